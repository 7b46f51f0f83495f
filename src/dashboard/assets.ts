// The dashboard's stylesheet, script and icon, served from /dashboard/assets/ under names that carry
// a hash of their content: they can be cached for a year, and a new release is a new name.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

interface Asset {
  body: Buffer;
  type: string;
}

const SOURCES: Record<string, string> = {
  'dashboard.css': 'text/css; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
  // Linked from every page: without it every fresh browser asks for /favicon.ico and logs a 404.
  'favicon.svg': 'image/svg+xml',
};

const byName = new Map<string, Asset>();
const urls = new Map<string, string>();

for (const [file, type] of Object.entries(SOURCES)) {
  const body = readFileSync(new URL(`./assets/${file}`, import.meta.url));
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  const dot = file.lastIndexOf('.');
  const name = `${file.slice(0, dot)}.${hash}${file.slice(dot)}`;
  byName.set(name, { body, type });
  urls.set(file, `/dashboard/assets/${name}`);
}

/** The versioned URL of an asset, by its source name (`dashboard.css`). */
export function assetUrl(file: string): string {
  const url = urls.get(file);
  if (url === undefined) throw new Error(`unknown dashboard asset ${file}`);
  return url;
}

/** The asset behind a versioned name, or undefined. */
export const findAsset = (name: string): Asset | undefined => byName.get(name);
