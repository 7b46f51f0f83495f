// `npm run bench:links`: what the gallery page costs with 50 share links defined against one
// (docs/api.md §28, issue 38). Two galleries of the same photos on one real `lightbox serve`, one
// with a single share link and one with fifty; the page at one share link of each is loaded in
// turn (wrk -t1, or autocannon, on loopback), rounds interleaved, with the response cache off so
// that every request builds the page afresh (and counts its view, a write, as a visit does).
// Figures are medians over the rounds: requests a second and the server's CPU time per request;
// the ratio of the 50-link gallery to the 1-link one is printed against the target (>= 0.90 of
// the throughput, <= 1.10 of the CPU). A report, never a timed test.
//
//   node packages/bench/src/links.ts [--rounds 5] [--seconds 5] [--connections 10] [--photos 12] [--links 50]
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
  onCleanup,
  runLoadChild,
  settle,
  startServe,
} from './lib/procs.ts';
import { fixed, gitCommit, median, table } from './lib/report.ts';

const HELP = `Usage: npm run bench:links -- [options]   (node packages/bench/src/links.ts [options])

Options:
  --rounds N       rounds, each loading both pages in turn (default 5)
  --seconds N      seconds of load per page and round (default 5)
  --connections N  concurrent connections (default 10)
  --photos N       photos in each gallery (default 12)
  --links N        share links of the second gallery (default 50, the most a gallery may have)
  -h, --help       show this help
`;

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    photos: { type: 'string', default: '12' },
    links: { type: 'string', default: '50' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

/** A small photograph-like JPEG (smooth shapes under grain), so that the variants are real work once. */
async function photo(n: number): Promise<{ name: string; data: Buffer }> {
  const data = await sharp(randomBytes(24 * 16 * 3), { raw: { width: 24, height: 16, channels: 3 } })
    .resize(1200, 800, { kernel: 'cubic' })
    .jpeg({ quality: 85 })
    .toBuffer();
  return { name: `room-${String(n + 1).padStart(2, '0')}.jpg`, data };
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
  const [rounds, seconds, connections, photos, links] = [values.rounds, values.seconds, values.connections, values.photos, values.links].map(Number) as [number, number, number, number, number]; // prettier-ignore
  const work = await mkdtemp(path.join(os.tmpdir(), 'lightbox-bench-links-'));
  onCleanup(() => rm(work, { recursive: true, force: true }));
  // Every request builds the page (no response cache), and no limit per address is reached.
  const env = benchEnv(work, path.join(work, 'data'), 'warn', {
    HTTP_RESPONSE_CACHE_MB: '0',
    GALLERY_RATE_LIMIT_PER_MINUTE: '100000000',
    RATE_LIMIT_ADDRESS_PER_MINUTE: '100000000',
  });
  const key = await accountWithKey(env, 'Bench Links Studio');
  const logFile = path.join(work, 'lightbox.log');
  const serve = await startServe(env, logFile, { publicUrl: true });
  const api = apiCaller(serve.port, key, logFile);
  console.log(`lightbox serve pid ${serve.child.pid} on :${serve.port} (commit ${gitCommit()})`);

  const parts = await Promise.all(Array.from({ length: photos }, (_, i) => photo(i)));
  /** A gallery of the photos, with `count` share links: the page path of its first link. */
  async function gallery(count: number): Promise<string> {
    const { id } = await api<{ id: string }>('POST', '/v1/listings', {
      address: `${count} Link Lane`,
      beds: 3,
      baths: 2,
      sqft: 1500,
      status: 'active',
    });
    for (let i = 0; i < parts.length; i += 4) await uploadParts(serve.port, key, id, parts.slice(i, i + 4));
    let first = '';
    for (let i = 0; i < count; i++) {
      const link = await api<{ url: string }>('POST', `/v1/listings/${id}/share_links`, { label: `Link ${i + 1}` });
      if (i === 0) first = new URL(link.url).pathname;
    }
    for (;;) {
      const list = await api<{ data: { variants: { status: string } | null }[] }>('GET', `/v1/listings/${id}/media`); // prettier-ignore
      if (list.data.some((m) => m.variants?.status === 'failed')) throw new Error('a variant failed');
      if (list.data.length === photos && list.data.every((m) => m.variants?.status === 'ready')) break;
      await sleep(250);
    }
    return first;
  }
  const pages: [string, string][] = [
    ['1 share link', await gallery(1)],
    [`${links} share links`, await gallery(links)],
  ];
  await settle(serve.child.pid);

  const tool = defaultTool();
  const samples = new Map<string, Sample[]>(pages.map(([label]) => [label, []]));
  for (let round = 1; round <= rounds; round++) {
    // Every other round the other page first, so that neither always follows the other.
    const order = round % 2 === 0 ? [...pages].reverse() : pages;
    for (const [label, pathname] of order) {
      const before = cpuSeconds(serve.child.pid);
      const result = await runLoadChild(
        { url: `http://${HOST}:${serve.port}`, method: 'GET', paths: [pathname], headers: {}, connections, seconds },
        tool,
        work,
      );
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
  const rows = [['gallery page at', 'req/s', 'server CPU µs/req', 'p50 ms', 'errors or not 2xx']];
  for (const [label] of pages) {
    rows.push([
      label,
      fixed(
        med(label, (s) => s.rps),
        0,
      ),
      fixed(
        med(label, (s) => s.cpuUsPerRequest),
        0,
      ),
      fixed(
        med(label, (s) => s.p50),
        1,
      ),
      String((samples.get(label) ?? []).reduce((n, s) => n + s.failed, 0)),
    ]);
  }
  const [one, many] = pages.map(([label]) => label) as [string, string];
  const rpsRatio = med(many, (s) => s.rps) / med(one, (s) => s.rps);
  const cpuRatio = med(many, (s) => s.cpuUsPerRequest) / med(one, (s) => s.cpuUsPerRequest);
  console.log(`${photos} photos per gallery, ${rounds} rounds of ${seconds} s, ${connections} connections, ${tool}, ${os.cpus().length} CPUs`); // prettier-ignore
  console.log(table(rows));
  console.log(`${many} / ${one}: throughput ${fixed(rpsRatio, 2)}x (target >= 0.90), CPU per request ${fixed(cpuRatio, 2)}x (target <= 1.10)`); // prettier-ignore
  await serve.child.stop();
}

await main().finally(cleanup);
