// The independent check of issue 17, reproduced as it was described: authenticated
// `GET /v1/listings` (page 1, no filter) over 20,000 galleries seeded **through the API** (not the
// bulk path), wrk -t1 -c50 -d6s, three rounds interleaved with the bare node:http server sending
// its fixed 3 KB body, no warm-up beyond the seeding. They measured bare 61k req/s, Lightbox 6.7k:
// 0.110x. `npm run bench` runs it once per run, beside its own method (bulk seed, `status=active`,
// warm-up, --duration), so the two can be compared in the same report.
import path from 'node:path';
import { inParallel, apiOk } from './api.ts';
import { createPgDatabase, dropPgDatabase } from './pg.ts';
import {
  accountWithKey,
  cpuSeconds,
  HOST,
  onCleanup,
  runLoadChild,
  startBare,
  startServe,
  type LoadTool,
} from './procs.ts';
import { fixed, summarize, type RoundResult, type Row } from './report.ts';

export interface CheckOptions {
  dialect: 'sqlite' | 'postgres';
  galleries: number;
  rounds: number;
  seconds: number;
  connections: number;
  tool: LoadTool;
  work: string;
  outDir: string;
  log: (line: string) => void;
}

export interface CheckResult {
  galleries: number;
  seedSeconds: number;
  /** Creates per second while seeding through the API (16 in flight). */
  seedRate: number;
  total: number;
  bare: Row;
  list: Row;
}

const STATUSES = ['draft', 'active', 'archived'] as const;

export async function independentCheck(options: CheckOptions): Promise<CheckResult> {
  const dataDir = path.join(options.work, 'data-check');
  const dbName = `lightbox_bench_check_${process.pid}`;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? options.work,
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    DATA_DIR: dataDir,
    RATE_LIMIT_PER_MINUTE: '100000000',
    HTTP_MAX_IN_FLIGHT_PER_KEY: '100000',
    HTTP_MAX_IN_FLIGHT_PER_ADDRESS: '100000',
    ...(options.dialect === 'postgres' ? { DATABASE_URL: await createPgDatabase(dbName) } : {}),
  };
  if (options.dialect === 'postgres') onCleanup(() => dropPgDatabase(dbName));
  const key = await accountWithKey(env, 'Independent Check');
  const node = await startServe(env, path.join(options.outDir, `lightbox-${options.dialect}-check.log`));

  const started = performance.now();
  await inParallel(options.galleries, 16, async (i) => {
    await apiOk(node.port, key, 'POST', '/v1/listings', {
      address: `${String(1 + (i % 9999))} Check St, Springfield, IL 62704`,
      status: STATUSES[i % 3],
      beds: 1 + (i % 6),
      baths: 1 + (i % 3),
      sqft: 600 + (i % 4000),
    }, 201); // prettier-ignore
  });
  const seedSeconds = (performance.now() - started) / 1000;
  const first = await apiOk<{ pagination: { total: number } }>(node.port, key, 'GET', '/v1/listings', undefined, 200);
  if (first.pagination.total !== options.galleries) {
    throw new Error(`independent check: total ${first.pagination.total}, expected ${options.galleries}`);
  }
  options.log(
    `independent check: ${options.galleries} galleries created through POST /v1/listings in ${fixed(seedSeconds)} s ` +
      `(${fixed(options.galleries / seedSeconds, 0)}/s); GET /v1/listings total ${first.pagination.total}`,
  );

  const bare = await startBare();
  const spec = (port: number, headers: Record<string, string>) => ({
    url: `http://${HOST}:${port}`,
    method: 'GET' as const,
    paths: [port === bare.port ? '/' : '/v1/listings'],
    headers,
    connections: options.connections,
    seconds: options.seconds,
  });
  const bareRounds: RoundResult[] = [];
  const listRounds: RoundResult[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    let cpu = cpuSeconds(bare.child.pid);
    const b = await runLoadChild(spec(bare.port, {}), options.tool, options.work);
    const bareUs = ((cpuSeconds(bare.child.pid) - cpu) / b.requests) * 1e6;
    bareRounds.push({ ...b, round, ratio: 1, cpuUs: bareUs, cpuRatio: 1 });
    cpu = cpuSeconds(node.child.pid);
    const l = await runLoadChild(spec(node.port, { authorization: `Bearer ${key}` }), options.tool, options.work);
    const cpuUs = ((cpuSeconds(node.child.pid) - cpu) / l.requests) * 1e6;
    listRounds.push({ ...l, round, ratio: l.rps / b.rps, cpuUs, cpuRatio: bareUs / cpuUs });
    const errors = l.errors + l.non2xx + l.timeouts;
    options.log(
      `  check round ${round}: bare ${fixed(b.rps, 0)} req/s, GET /v1/listings ${fixed(l.rps, 0)} req/s ` +
        `(${fixed(cpuUs, 0)} µs CPU/req) = ${fixed(l.rps / b.rps, 3)}x${errors > 0 ? `, ${errors} errors` : ''}`,
    );
  }
  await bare.child.stop();
  await node.child.stop();
  const size = `${options.galleries / 1000}k (API)`;
  return {
    galleries: options.galleries,
    seedSeconds,
    seedRate: options.galleries / seedSeconds,
    total: first.pagination.total,
    bare: summarize(size, 'bare', 'check: bare node:http (3 KB body)', bareRounds),
    list: summarize(size, 'check', 'check: GET /v1/listings p1, wrk -c50 -d6s, no warm-up', listRounds),
  };
}

/** The two methods side by side: the independent check's ratio and this bench's own list rows. */
export function checkSummary(check: CheckResult, rows: Row[]): string {
  const own = rows.filter((r) => r.endpoint === 'list').map((r) => `${fixed(r.ratio, 3)}x at ${r.size}`);
  return (
    `Independent check method (${check.galleries} galleries through the API in ${fixed(check.seedSeconds)} s, GET /v1/listings, ` +
    `wrk -t1 -c50 -d6s, 3 rounds, no warm-up): ${fixed(check.list.ratio, 3)}x (bare ${fixed(check.bare.rps, 0)}, ` +
    `Lightbox ${fixed(check.list.rps, 0)} req/s, ${fixed(check.list.cpuUs, 0)} µs CPU/req; they measured 0.110x). ` +
    `This bench's method (bulk seed, status=active, warm-up): ${own.join(', ') || 'not run'}.`
  );
}
