// `npm run bench:compliance`: what a gallery's compliance report costs (docs/api.md §31). One real
// `lightbox serve`, a gallery of 50 photos with an MLS profile, variants made; each round loads its
// media list and its compliance report in turn (wrk -t1, or autocannon, on loopback, with the
// key), with the response cache off, so each answer is computed. Figures are medians over the
// rounds; the report's p50 latency against the media list's is printed against the target
// (<= 1.5x). A report, never a timed test.
//
//   node packages/bench/src/compliance.ts [--rounds 5] [--seconds 5] [--connections 10] [--photos 50]
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

const HELP = `Usage: npm run bench:compliance -- [options]   (node packages/bench/src/compliance.ts [options])

Options:
  --rounds N       rounds, each loading the media list and the report in turn (default 5)
  --seconds N      seconds of load per read and round (default 5)
  --connections N  concurrent connections (default 10)
  --photos N       photos in the gallery (default 50)
  -h, --help       show this help
`;

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    photos: { type: 'string', default: '50' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

/** A small photograph-like JPEG (smooth shapes under grain). */
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
  const [rounds, seconds, connections, photos] = [values.rounds, values.seconds, values.connections, values.photos].map(Number) as [number, number, number, number]; // prettier-ignore
  const work = await mkdtemp(path.join(os.tmpdir(), 'lightbox-bench-compliance-'));
  onCleanup(() => rm(work, { recursive: true, force: true }));
  const env = benchEnv(work, path.join(work, 'data'), 'warn', {
    HTTP_RESPONSE_CACHE_MB: '0',
    RATE_LIMIT_PER_MINUTE: '100000000',
    RATE_LIMIT_ADDRESS_PER_MINUTE: '100000000',
    // The report reads the photos' analysis; the models are not what is measured here.
    ANALYSIS: 'off',
  });
  const key = await accountWithKey(env, 'Bench Compliance Studio');
  const logFile = path.join(work, 'lightbox.log');
  const serve = await startServe(env, logFile);
  const api = apiCaller(serve.port, key, logFile);
  const origin = `http://${HOST}:${serve.port}`;
  console.log(`lightbox serve pid ${serve.child.pid} on :${serve.port} (commit ${gitCommit()})`);

  const profile = await api<{ id: string }>('POST', '/v1/mls_profiles', { name: 'Bench MLS', min_long_edge: 800 });
  const gallery = await api<{ id: string }>('POST', '/v1/listings', { address: '50 Bench Road' });
  await api('PATCH', `/v1/listings/${gallery.id}`, { mls_profile_id: profile.id });
  const parts = await Promise.all(Array.from({ length: photos }, (_, i) => photo(i)));
  for (let i = 0; i < parts.length; i += 5) await uploadParts(serve.port, key, gallery.id, parts.slice(i, i + 5));
  for (;;) {
    const list = await api<{ data: { variants: { status: string } | null }[] }>('GET', `/v1/listings/${gallery.id}/media`); // prettier-ignore
    if (list.data.some((m) => m.variants?.status === 'failed')) throw new Error('a variant failed');
    if (list.data.length === photos && list.data.every((m) => m.variants?.status === 'ready')) break;
    await sleep(250);
  }
  const loads: [string, string][] = [
    ['media list', `/v1/listings/${gallery.id}/media`],
    ['compliance', `/v1/listings/${gallery.id}/compliance`],
  ];
  await settle(serve.child.pid);

  const tool = defaultTool();
  const headers = { authorization: `Bearer ${key}` };
  const samples = new Map<string, Sample[]>(loads.map(([label]) => [label, []]));
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 0 ? [...loads].reverse() : loads;
    for (const [label, url] of order) {
      const before = cpuSeconds(serve.child.pid);
      const result = await runLoadChild({ url: origin, method: 'GET', paths: [url], headers, connections, seconds }, tool, work); // prettier-ignore
      const cpu = cpuSeconds(serve.child.pid) - before;
      samples.get(label)?.push({
        rps: result.rps,
        cpuUsPerRequest: (cpu / Math.max(result.requests, 1)) * 1e6,
        p50: result.p50,
        failed: result.non2xx + result.errors + result.timeouts,
      });
      await settle(serve.child.pid);
    }
    console.error(`round ${round} of ${rounds} done`);
  }

  const med = (label: string, pick: (s: Sample) => number) => median((samples.get(label) ?? []).map(pick));
  const rows = [['read', 'req/s', 'server CPU µs/req', 'p50 ms', 'errors or not 2xx']];
  for (const [label] of loads) {
    rows.push([
      label,
      fixed(med(label, (s) => s.rps), 0), // prettier-ignore
      fixed(med(label, (s) => s.cpuUsPerRequest), 0), // prettier-ignore
      fixed(med(label, (s) => s.p50), 1), // prettier-ignore
      String((samples.get(label) ?? []).reduce((n, s) => n + s.failed, 0)),
    ]);
  }
  console.log(`${photos} photos, ${rounds} rounds of ${seconds} s, ${connections} connections, ${tool}, ${os.cpus().length} CPUs`); // prettier-ignore
  console.log(table(rows));
  const latency = med('compliance', (s) => s.p50) / med('media list', (s) => s.p50);
  const cpu = med('compliance', (s) => s.cpuUsPerRequest) / med('media list', (s) => s.cpuUsPerRequest);
  console.log(`compliance / media list: p50 latency ${fixed(latency, 2)}x (target <= 1.50), CPU per request ${fixed(cpu, 2)}x`); // prettier-ignore
  await serve.child.stop();
}

await main().finally(cleanup);
