// `npm run bench:pages`: what a phone sees of the public pages (issue 37 §5). One gallery of 12
// photo-sized JPEGs (~3000x2000, made with sharp), assigned to a client (its /g link) and published
// (its branded and unbranded /p pages), on a real `lightbox serve`; then Lighthouse 12 (mobile:
// simulated slow 4G, 4x CPU slowdown, its defaults) in Debian's Chromium loads each page and the
// four category scores, the paint figures and the bytes are printed. A report, never a timed test:
// the targets (performance >= 95, largest paint <= 2.5 s, first screen < 300 KiB) are printed
// beside the figures, nothing fails on them.
//
//   node packages/bench/src/pages.ts --help
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import sharp from 'sharp';
import { uploadParts } from './lib/delivery-upload.ts';
import { fixed, gitCommit, table } from './lib/report.ts';
import {
  accountWithKey,
  benchEnv,
  cleanup,
  onCleanup,
  ROOT,
  apiCaller,
  linkedGallery,
  startServe,
} from './lib/procs.ts';

const HELP = `Usage: npm run bench:pages -- [options]   (node packages/bench/src/pages.ts [options])

Lighthouse's full reports (JSON) go to bench-results/pages-<page>.json.

Options:
  --photos N      photos in the gallery (default 12)
  --chrome PATH   the browser (default: CHROME_PATH, else /usr/bin/chromium)
  --keep          keep the work folder (data, log) instead of removing it
  -h, --help      show this help
`;

const KiB = 1024;

interface NetworkRequest {
  url: string;
  resourceType?: string;
  priority?: string;
  transferSize?: number;
}

/**
 * The bytes of the first screen: the document, its styles, scripts and fonts, and the images
 * Chrome fetched at high priority (the preloaded cover, images it found in the viewport at
 * layout). Images further down that Chrome's lazy loading fetched anyway, near the viewport
 * (within 1250-2500 px of it), are left out.
 */
const firstScreenBytes = (requests: NetworkRequest[]): number =>
  requests
    .filter((r) => r.resourceType !== 'Image' || r.priority === 'High' || r.priority === 'VeryHigh')
    .reduce((sum, r) => sum + (r.transferSize ?? 0), 0);

await main().finally(cleanup);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      photos: { type: 'string', default: '12' },
      chrome: { type: 'string', default: process.env.CHROME_PATH ?? '/usr/bin/chromium' },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const photoCount = Number(values.photos);
  const work = await mkdtemp(path.join(os.tmpdir(), 'lightbox-bench-pages-'));
  if (!values.keep) onCleanup(() => rm(work, { recursive: true, force: true }));
  const dataDir = path.join(work, 'data');
  const env = benchEnv(work, dataDir, 'warn', { GALLERY_RATE_LIMIT_PER_MINUTE: '100000000' });
  const key = await accountWithKey(env, 'Bench Pages Studio');
  const logFile = path.join(work, 'lightbox.log');
  const { child: server, port } = await startServe(env, logFile, { publicUrl: true });
  console.log(`lightbox serve pid ${server.pid} on :${port} (commit ${gitCommit()}), data in ${dataDir}`);

  const api = apiCaller(port, key, logFile);

  const { id, linkUrl } = await linkedGallery(api, {
    address: '12 Lighthouse Lane',
    beds: 4,
    baths: 2,
    sqft: 2100,
    description: 'A bright family house on a quiet lane, a short walk from the harbour.',
  });
  const parts = [];
  for (let i = 0; i < photoCount; i++) parts.push(await photoSized(i));
  const mean = parts.reduce((s, p) => s + p.data.length, 0) / parts.length / KiB;
  for (let i = 0; i < parts.length; i += 4) await uploadParts(port, key, id, parts.slice(i, i + 4));
  for (;;) {
    const list = await api<{ data: { variants: { status: string } | null }[] }>('GET', `/v1/listings/${id}/media`); // prettier-ignore
    if (list.data.some((m) => m.variants?.status === 'failed')) throw new Error('a variant failed');
    if (list.data.length === photoCount && list.data.every((m) => m.variants?.status === 'ready')) break;
    await sleep(500);
  }
  console.log(`${photoCount} photos of 3000x2000 (${fixed(mean, 0)} KiB each on average), variants ready`);
  const published = await api<{ property_page: { url: string; unbranded_url: string } }>(
    'PUT',
    `/v1/listings/${id}/property_page`,
  );
  const pages: [string, string][] = [
    ['client gallery /g', linkUrl],
    ['property page (branded) /p', published.property_page.url],
    ['property page (unbranded) /p', published.property_page.unbranded_url],
  ];

  const chrome = await chromeLauncher.launch({
    chromePath: values.chrome,
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  onCleanup(() => Promise.resolve(chrome.kill()));
  const results = path.join(ROOT, 'bench-results');
  await mkdir(results, { recursive: true });
  const rows = [['page', 'perf', 'a11y', 'best pr.', 'SEO', 'FCP s', 'LCP s', 'TBT ms', 'CLS', '1st screen KiB', 'total KiB', 'requests']]; // prettier-ignore
  let version = 'unknown';
  for (const [index, [label, url]] of pages.entries()) {
    const result = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error' });
    if (result === undefined) throw new Error(`lighthouse gave no result for ${label}`);
    const { categories, audits } = result.lhr;
    version = result.lhr.lighthouseVersion;
    const score = (name: string) => fixed((categories[name]?.score ?? NaN) * 100, 0);
    const num = (name: string) => audits[name]?.numericValue ?? NaN;
    const requests = (audits['network-requests']?.details as { items?: NetworkRequest[] } | undefined)?.items ?? [];
    await writeFile(path.join(results, `pages-${['gallery', 'branded', 'unbranded'][index] ?? index}.json`), JSON.stringify(result.lhr)); // prettier-ignore
    rows.push([
      label,
      score('performance'),
      score('accessibility'),
      score('best-practices'),
      score('seo'),
      fixed(num('first-contentful-paint') / 1000, 2),
      fixed(num('largest-contentful-paint') / 1000, 2),
      fixed(num('total-blocking-time'), 0),
      fixed(num('cumulative-layout-shift'), 3),
      fixed(firstScreenBytes(requests) / KiB, 0),
      fixed(num('total-byte-weight') / KiB, 0),
      String(requests.length),
    ]);
    console.log(`  ${label}: ${url}`);
  }
  console.log(`Lighthouse ${version} (mobile, simulated slow 4G, 4x CPU), ${os.cpus().length} CPUs`);
  console.log(table(rows));
  console.log('targets: perf >= 95, LCP <= 2.5 s, first screen < 300 KiB (total KiB adds the lazy images Chrome fetched near the viewport)'); // prettier-ignore
  chrome.kill();
  await server.stop();
}

/**
 * A 3000x2000 JPEG that compresses like a photograph rather than a flat colour: smooth shapes (a
 * small random image enlarged) under fine grain, so a 2048 px variant weighs what a real one does.
 */
async function photoSized(n: number): Promise<{ name: string; data: Buffer }> {
  const [w, h] = [3000, 2000];
  const shapes = await sharp(randomBytes(48 * 32 * 3), { raw: { width: 48, height: 32, channels: 3 } })
    .resize(w, h, { kernel: 'cubic' })
    .raw()
    .toBuffer();
  const grain = randomBytes(w * h * 3);
  for (let i = 0; i < shapes.length; i++) shapes[i] = Math.min(255, ((shapes[i] ?? 0) * 7 + (grain[i] ?? 0)) >> 3);
  const data = await sharp(shapes, { raw: { width: w, height: h, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
  return { name: `house-${String(n + 1).padStart(2, '0')}.jpg`, data };
}
