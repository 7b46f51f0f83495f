// The dashboard's stylesheet, script and icon, served from /dashboard/assets/ under names that carry
// a hash of their content: they can be cached for a year, and a new release is a new name.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

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

/** Served from the installed packages: tus-js-client, for a gallery page's resumable uploads. */
const PACKAGED: Record<string, { path: string; type: string }> = {
  'tus.min.js': {
    path: createRequire(import.meta.url).resolve('tus-js-client/dist/tus.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
};

const files = [
  ...Object.entries(SOURCES).map(([file, type]) => ({
    file,
    type,
    from: new URL(`./assets/${file}`, import.meta.url),
  })),
  ...Object.entries(PACKAGED).map(([file, { path, type }]) => ({ file, type, from: path })),
];

for (const { file, type, from } of files) {
  // A packaged script's source map comment would send a browser's tools after a file not served.
  const raw = readFileSync(from);
  const body =
    file in PACKAGED ? Buffer.from(raw.toString('utf8').replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n')) : raw;
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
