// `npm run bench:unlock`: what pay-to-unlock costs a client (docs/api.md §29, issue 39). Two
// galleries of the same photos on one real `lightbox serve`, each at its client link; the second
// has an open invoice with pay_to_unlock, so its page reads the lock and serves the watermarked
// previews (made once, in the background, before the load starts). Each round loads both pages in
// turn, then every thumb and large image of each page (wrk -t1, or autocannon, on loopback), with
// the response cache off. Figures are medians over the rounds: requests a second and the server's
// CPU time per request; the locked gallery's against the open one's is printed against the target
// (CPU per request <= 1.2x). A report, never a timed test.
//
//   node packages/bench/src/unlock.ts [--rounds 5] [--seconds 5] [--connections 10] [--photos 12]
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { uploadParts } from './lib/delivery-upload.ts';
import {
  accountWithKey,
  apiCaller,
  benchEnv,
  cleanup,
  cpuSeconds,
  defaultTool,
  HOST,
  linkedGallery,
  onCleanup,
  runLoadChild,
  settle,
  startServe,
} from './lib/procs.ts';
import { fixed, gitCommit, median, table } from './lib/report.ts';

const HELP = `Usage: npm run bench:unlock -- [options]   (node packages/bench/src/unlock.ts [options])

Options:
  --rounds N       rounds, each loading both galleries in turn (default 5)
  --seconds N      seconds of load per page (or image set) and round (default 5)
  --connections N  concurrent connections (default 10)
  --photos N       photos in each gallery (default 12)
  -h, --help       show this help
`;

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    photos: { type: 'string', default: '12' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

/**
 * A photograph-like JPEG: smooth shapes under camera-like grain, so it compresses like a camera's
 * photo (a few hundred KB at 2048 px) rather than a drawing, whose previews would be mostly the
 * mark's own bytes.
 */
async function photo(n: number): Promise<{ name: string; data: Buffer }> {
  const { data, info } = await sharp(randomBytes(24 * 16 * 3), { raw: { width: 24, height: 16, channels: 3 } })
    .resize(3000, 2000, { kernel: 'cubic' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const grain = randomBytes(data.length);
  for (let k = 0; k < data.length; k++) {
    const v = (data[k] ?? 0) + ((grain[k] ?? 0) & 15) - 8;
    data[k] = v < 0 ? 0 : v > 255 ? 255 : v;
  }
  const jpeg = await sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
  return { name: `room-${String(n + 1).padStart(2, '0')}.jpg`, data: jpeg };
}

interface Sample {
  rps: number;
  cpuUsPerRequest: number;
  p50: number;
  failed: number;
}

async function main(): Promise<void> {
  if (values.help) {
    console.log(HELP);
    return;
  }
  const [rounds, seconds, connections, photos] = [values.rounds, values.seconds, values.connections, values.photos].map(Number) as [number, number, number, number]; // prettier-ignore
  const work = await mkdtemp(path.join(os.tmpdir(), 'lightbox-bench-unlock-'));
  onCleanup(() => rm(work, { recursive: true, force: true }));
  const env = benchEnv(work, path.join(work, 'data'), 'warn', {
    HTTP_RESPONSE_CACHE_MB: '0',
    GALLERY_RATE_LIMIT_PER_MINUTE: '100000000',
    RATE_LIMIT_ADDRESS_PER_MINUTE: '100000000',
  });
  const key = await accountWithKey(env, 'Bench Unlock Studio');
  const logFile = path.join(work, 'lightbox.log');
  const serve = await startServe(env, logFile, { publicUrl: true });
  const api = apiCaller(serve.port, key, logFile);
  const origin = `http://${HOST}:${serve.port}`;
  console.log(`lightbox serve pid ${serve.child.pid} on :${serve.port} (commit ${gitCommit()})`);

  const parts = await Promise.all(Array.from({ length: photos }, (_, i) => photo(i)));
  /** A gallery of the photos at its client link, variants made: the page's path. */
  async function gallery(address: string): Promise<{ id: string; page: string }> {
    const g = await linkedGallery(api, { address, beds: 3, baths: 2, sqft: 1500, description: 'Bench' });
    for (let i = 0; i < parts.length; i += 4) await uploadParts(serve.port, key, g.id, parts.slice(i, i + 4));
    for (;;) {
      const list = await api<{ data: { variants: { status: string } | null }[] }>('GET', `/v1/listings/${g.id}/media`); // prettier-ignore
      if (list.data.some((m) => m.variants?.status === 'failed')) throw new Error('a variant failed');
      if (list.data.length === photos && list.data.every((m) => m.variants?.status === 'ready')) break;
      await sleep(250);
    }
    return { id: g.id, page: new URL(g.linkUrl).pathname };
  }
  /** The page's thumb and large URLs, once every one answers 200 (the previews are made). */
  async function images(page: string): Promise<string[]> {
    for (;;) {
      const html = await (await fetch(`${origin}${page}`)).text();
      const urls = [
        ...new Set([...html.matchAll(/(\/g\/[^"\s]+\/(?:thumb|large)\/[^"\s,]+)/g)].map((m) => m[1] ?? '')),
      ];
      const ready = urls.length >= photos * 2 && (await Promise.all(urls.map(async (u) => (await fetch(`${origin}${u}`)).status === 200))).every(Boolean); // prettier-ignore
      if (ready) return urls;
      await sleep(250);
    }
  }
  const open = await gallery('1 Open Lane');
  const locked = await gallery('2 Locked Lane');
  const invoice = await api<{ id: string }>('POST', '/v1/invoices', {
    listing_id: locked.id,
    items: [{ description: 'Photography', unit_amount: 45_000 }],
    pay_to_unlock: true,
  });
  await api('POST', `/v1/invoices/${invoice.id}/issue`);
  const loads: [string, string[]][] = [
    ['open page', [open.page]],
    ['locked page', [locked.page]],
    ['open images', await images(open.page)],
    ['locked images', await images(locked.page)],
  ];
  /** Mean bytes of a response of each load: the previews carry a mark, which JPEG and WebP pay for. */
  const bytes = new Map<string, number>();
  for (const [label, paths] of loads) {
    const sizes = await Promise.all(paths.map(async (p) => (await (await fetch(`${origin}${p}`)).arrayBuffer()).byteLength)); // prettier-ignore
    bytes.set(label, sizes.reduce((a, b) => a + b, 0) / sizes.length);
  }
  await settle(serve.child.pid);

  const tool = defaultTool();
  const samples = new Map<string, Sample[]>(loads.map(([label]) => [label, []]));
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 0 ? [...loads].reverse() : loads;
    for (const [label, paths] of order) {
      const before = cpuSeconds(serve.child.pid);
      const result = await runLoadChild({ url: origin, method: 'GET', paths, headers: {}, connections, seconds }, tool, work); // prettier-ignore
      const cpu = cpuSeconds(serve.child.pid) - before;
      samples.get(label)?.push({
        rps: result.rps,
        cpuUsPerRequest: (cpu / result.requests) * 1e6,
        p50: result.p50,
        failed: result.non2xx + result.errors + result.timeouts,
      });
      await settle(serve.child.pid);
    }
    console.error(`round ${round} of ${rounds} done`);
  }

  const med = (label: string, pick: (s: Sample) => number) => median((samples.get(label) ?? []).map(pick));
  const rows = [['load', 'req/s', 'server CPU µs/req', 'mean KB', 'p50 ms', 'errors or not 2xx']];
  for (const [label] of loads) {
    rows.push([
      label,
      fixed(med(label, (s) => s.rps), 0), // prettier-ignore
      fixed(med(label, (s) => s.cpuUsPerRequest), 0), // prettier-ignore
      fixed((bytes.get(label) ?? 0) / 1024, 1),
      fixed(med(label, (s) => s.p50), 1), // prettier-ignore
      String((samples.get(label) ?? []).reduce((n, s) => n + s.failed, 0)),
    ]);
  }
  console.log(`${photos} photos per gallery, ${rounds} rounds of ${seconds} s, ${connections} connections, ${tool}, ${os.cpus().length} CPUs`); // prettier-ignore
  console.log(table(rows));
  for (const what of ['page', 'images']) {
    const cpu = med(`locked ${what}`, (s) => s.cpuUsPerRequest) / med(`open ${what}`, (s) => s.cpuUsPerRequest);
    const rps = med(`locked ${what}`, (s) => s.rps) / med(`open ${what}`, (s) => s.rps);
    const size = (bytes.get(`locked ${what}`) ?? 0) / (bytes.get(`open ${what}`) ?? 1);
    console.log(`locked / open ${what}: CPU per request ${fixed(cpu, 2)}x (target <= 1.20), throughput ${fixed(rps, 2)}x, bytes ${fixed(size, 2)}x`); // prettier-ignore
  }
  await serve.child.stop();
}

await main().finally(cleanup);
