// `npm run bench:property`: the property page (docs/api.md §25) on a real `lightbox serve`, beside
// the client gallery page (docs/api.md §14) of the same gallery, the page it mirrors.
//
// One gallery of N photos (variants ready), assigned to a client (its /g link) and published
// (its /p pages). Each round measures GET /p/<token>, GET /p/<unbranded token> and GET /g/<token>
// one connection at a time (the server's time plus loopback); p50 and p99 are medians over the
// rounds, and the ratio property p50 / gallery p50 is reported (target: <= 1.25x; both pages
// count a view per load, so both write once per request).
//
//   node packages/bench/src/property.ts --help
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { photo, uploadParts } from './lib/delivery-upload.ts';
import { fixed, median, table } from './lib/report.ts';
import { accountWithKey, benchEnv, cleanup, defaultTool, HOST, onCleanup, runLoadChild, apiCaller, linkedGallery, startServe, tail } from './lib/procs.ts'; // prettier-ignore

const HELP = `Usage: npm run bench:property -- [options]   (node packages/bench/src/property.ts [options])

Options:
  --rounds N      measured rounds (default 3; medians are reported)
  --photos N      photos in the gallery (default 100)
  --seconds S     seconds per measurement (default 5)
  --keep          keep the work folder (data, log) instead of removing it
  -h, --help      show this help
`;

await main().finally(cleanup);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '3' },
      seconds: { type: 'string', default: '5' },
      photos: { type: 'string', default: '100' },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const rounds = Number(values.rounds);
  const seconds = Number(values.seconds);
  const photoCount = Number(values.photos);

  const work = await mkdtemp(path.join(os.tmpdir(), 'lightbox-bench-property-'));
  if (!values.keep) onCleanup(() => rm(work, { recursive: true, force: true }));
  const dataDir = path.join(work, 'data');
  const env = benchEnv(work, dataDir, 'warn', { GALLERY_RATE_LIMIT_PER_MINUTE: '100000000' });
  const key = await accountWithKey(env, 'Bench Property');
  const logFile = path.join(work, 'lightbox.log');
  const { child: server, port } = await startServe(env, logFile, { publicUrl: true });
  console.log(`lightbox serve pid ${server.pid} on :${port}, data in ${dataDir}`);

  const api = apiCaller(port, key, logFile);

  const tool = defaultTool();
  console.log(`node ${process.version}, ${os.cpus().length} CPUs, load generator ${tool}, ${rounds} rounds (medians)`);

  const { id, linkUrl } = await linkedGallery(api, {
    address: '100 Property Parade',
    beds: 3,
    baths: 2,
    sqft: 1800,
    description: 'A bench of a house.',
  });
  const t = performance.now();
  for (let i = 0; i < photoCount; i += 100) {
    const parts = await Promise.all(Array.from({ length: Math.min(100, photoCount - i) }, (_, j) => photo(i + j)));
    await uploadParts(port, key, id, parts);
  }
  for (;;) {
    const list = await api<{ data: { variants: { status: string } | null }[] }>('GET', `/v1/listings/${id}/media`); // prettier-ignore
    const pending = list.data.filter((m) => m.variants?.status !== 'ready').length;
    if (list.data.length === photoCount && pending === 0) break;
    if (list.data.some((m) => m.variants?.status === 'failed')) throw new Error('a variant failed');
    await sleep(500);
  }
  console.log(`${photoCount} photos uploaded and their variants made in ${fixed((performance.now() - t) / 1000)} s`);
  const published = await api<{ property_page: { url: string; unbranded_url: string } }>(
    'PUT',
    `/v1/listings/${id}/property_page`,
  );

  const paths = {
    property: new URL(published.property_page.url).pathname,
    unbranded: new URL(published.property_page.unbranded_url).pathname,
    gallery: new URL(linkUrl).pathname,
  };
  const bytes: Record<string, number> = {};
  for (const [name, p] of Object.entries(paths)) {
    bytes[name] = (await (await fetch(`http://${HOST}:${port}${p}`)).text()).length;
  }
  const spec = (p: string) => ({
    url: `http://${HOST}:${port}`,
    method: 'GET' as const,
    paths: [p],
    headers: {},
    connections: 1,
    seconds,
  });
  type Latency = { p50: number; p99: number; rps: number };
  const latency: Record<keyof typeof paths, Latency[]> = { property: [], unbranded: [], gallery: [] };
  for (const p of Object.values(paths)) await runLoadChild(spec(p), tool, work); // warm-up
  for (let round = 1; round <= rounds; round++) {
    const line: string[] = [];
    for (const name of Object.keys(paths) as (keyof typeof paths)[]) {
      const r = await runLoadChild(spec(paths[name]), tool, work);
      if (r.non2xx + r.errors + r.timeouts > 0)
        throw new Error(`${name}: ${JSON.stringify(r)}\n${await tail(logFile)}`);
      latency[name].push({ p50: r.p50, p99: r.p99, rps: r.rps });
      line.push(`${name} p50 ${fixed(r.p50, 2)} ms p99 ${fixed(r.p99, 2)} ms`);
    }
    console.log(`  round ${round}: ${line.join('; ')}`);
  }
  const m = (list: Latency[], k: keyof Latency) => median(list.map((x) => x[k]));
  const row = (label: string, name: keyof typeof paths) => [
    `${label} (${bytes[name]} B of HTML)`,
    fixed(m(latency[name], 'p50'), 2),
    fixed(m(latency[name], 'p99'), 2),
    fixed(m(latency[name], 'rps'), 0),
  ];
  console.log(
    table([
      [`${photoCount} photos`, 'p50 ms', 'p99 ms', 'req/s'],
      row('GET /p/<token>', 'property'),
      row('GET /p/<unbranded token>', 'unbranded'),
      row('GET /g/<token>', 'gallery'),
    ]),
  );
  const ratio = m(latency.property, 'p50') / m(latency.gallery, 'p50');
  console.log(`property page p50 / gallery page p50 = ${fixed(ratio, 2)}x (target <= 1.25x: ${ratio <= 1.25 ? 'met' : 'NOT met'})`); // prettier-ignore
  await server.stop();
}
