// `npm run bench:etag`: what conditional requests (docs/api.md §17) cost and save, on real servers.
//
// (a) GET /v1/listings page 1 (20 galleries of an account holding --galleries) with an
//     If-None-Match that matches (304) against the same request without one (200), on this
//     code; and the same 200 on main's code (no ETag, no version read) in the same run, for what
//     the version read adds to a 200.
// (b) POST /v1/listings on this code (every write also raises the account's version, by trigger)
//     against main's code.
// Each server is a real `lightbox serve` on its own database (SQLite, or a fresh PostgreSQL
// database with --postgres); wrk -t1 (or autocannon) on loopback; rounds are interleaved and
// figures are medians over the rounds: requests a second, and the server's CPU time per request
// (user + system, from /proc). main's code is `git archive $(git merge-base HEAD main)`, run from
// a temporary folder with this worktree's node_modules. Shared machines are noisy: compare within one run only.
//
//   node packages/bench/src/etag.ts [--rounds 3] [--seconds 5] [--connections 50] [--galleries 2000] [--postgres] [--no-main]
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { LoadSpec } from './lib/load.ts';
import { send } from './lib/http.ts';
import { createPgDatabase, dropPgDatabase } from './lib/pg.ts';
import {
  accountWithKey,
  benchEnv,
  cleanup,
  cpuSeconds,
  defaultTool,
  HOST,
  onCleanup,
  pgBackendCpu,
  pgBackendCpuSince,
  ROOT,
  runLoadChild,
  type Serve,
  startServe,
} from './lib/procs.ts';
import { fixed, median, table } from './lib/report.ts';

const { values: options } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    galleries: { type: 'string', default: '2000' },
    postgres: { type: 'boolean', default: false },
    'no-main': { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(options.rounds);
const SECONDS = Number(options.seconds);
const CONNECTIONS = Number(options.connections);
const GALLERIES = Number(options.galleries);
const tool = defaultTool();

interface Server {
  name: string;
  /** PostgreSQL: the server's database, whose backends' CPU is counted too. */
  database?: string;
  serve: Serve;
  key: string;
  /** The ETag of GET /v1/listings right now (this code only). */
  etag?: string;
}

/** One request on Node's (kept-alive) global agent; the response's status, ETag and body. */
async function request(
  port: number,
  method: string,
  pathname: string,
  key: string,
  body?: string,
): Promise<{ status: number; etag: string | undefined; text: string }> {
  const { status, headers, text } = await send(port, method, pathname, { key, body });
  return { status, etag: headers.etag, text };
}

/** Galleries through the API, 16 at a time (every one raises the version like any write). */
async function seed(server: Server): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < GALLERIES) {
      const n = next++;
      const res = await request(server.serve.port, 'POST', '/v1/listings', server.key, JSON.stringify({ address: `${n} Bench Road`, beds: n % 6, baths: 2, sqft: 1000 + n, status: 'active' })); // prettier-ignore
      if (res.status !== 201) throw new Error(`seeding ${server.name}: ${res.status} ${res.text}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

async function start(name: string, root: string, scratch: string): Promise<Server> {
  const dataDir = path.join(scratch, name);
  // The bench's own environment, so `HTTP_RESPONSE_CACHE_MB=0` reaches the server here too.
  const env = benchEnv(scratch, dataDir, 'warn', { RATE_LIMIT_ADDRESS_PER_MINUTE: '100000000' });
  let database: string | undefined;
  if (options.postgres) {
    database = `lbx_bench_etag_${name}_${process.pid}`;
    env.DATABASE_URL = await createPgDatabase(database);
    const made = database;
    onCleanup(() => dropPgDatabase(made));
  }
  const bin = path.join(root, 'bin', 'lightbox.js');
  // With that code's command line (which migrates first).
  const key = await accountWithKey(env, `Etag ${name}`, bin);
  const serve = await startServe(env, path.join(scratch, `${name}.log`), { bin });
  const server: Server = { name, serve, key, ...(database === undefined ? {} : { database }) };
  await seed(server);
  return server;
}

/** main's code as this branch started from it, beside this worktree (its node_modules linked). */
async function mainCode(scratch: string): Promise<string> {
  const dir = path.join(scratch, 'main-code');
  // Where this branch left main: the same code without this branch's changes (main may have moved on).
  const base = execFileSync('git', ['-C', ROOT, 'merge-base', 'HEAD', 'main'], { encoding: 'utf8' }).trim();
  execFileSync('sh', ['-c', `mkdir -p "${dir}" && git -C "${ROOT}" archive ${base} | tar -x -C "${dir}"`]);
  await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

interface Sample {
  rps: number;
  cpuUsPerRequest: number;
  /** PostgreSQL's own CPU (the backends serving this server's database) per request. */
  dbUsPerRequest: number;
  p50: number;
  non2xx: number;
}

async function load(server: Server, spec: Omit<LoadSpec, 'url' | 'connections' | 'seconds'>, scratch: string) {
  const dbBefore = server.database === undefined ? undefined : pgBackendCpu(server.database);
  const before = cpuSeconds(server.serve.child.pid);
  const result = await runLoadChild(
    { ...spec, url: `http://${HOST}:${server.serve.port}`, connections: CONNECTIONS, seconds: SECONDS },
    tool,
    scratch,
  );
  const cpu = cpuSeconds(server.serve.child.pid) - before;
  const dbCpu =
    server.database === undefined || dbBefore === undefined ? 0 : pgBackendCpuSince(server.database, dbBefore);
  return {
    dbUsPerRequest: (dbCpu / result.requests) * 1e6,
    rps: result.rps,
    cpuUsPerRequest: (cpu / result.requests) * 1e6,
    p50: result.p50,
    non2xx: result.non2xx + result.errors + result.timeouts,
  } satisfies Sample;
}

async function main(): Promise<void> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'lightbox-bench-etag-'));
  onCleanup(() => rm(scratch, { recursive: true, force: true }));
  const servers: Server[] = [await start('branch', ROOT, scratch)];
  if (!options['no-main']) servers.push(await start('main', await mainCode(scratch), scratch));
  const [branch, base] = servers as [Server, Server | undefined];

  const page = '/v1/listings?page=1&limit=20';
  const samples = new Map<string, Sample[]>();
  const add = (label: string, s: Sample): void => {
    samples.set(label, [...(samples.get(label) ?? []), s]);
  };
  const post = { address: '1 Load Street', beds: 3, baths: 2, sqft: 1500 };
  for (let round = 1; round <= ROUNDS; round++) {
    // The last load's requests may still be committing: wait for two equal tags in a row.
    let etag: string;
    for (let tries = 0; ; tries++) {
      const a = (await request(branch.serve.port, 'GET', page, branch.key)).etag ?? '';
      await sleep(300);
      const b = (await request(branch.serve.port, 'GET', page, branch.key)).etag ?? '';
      if (a === b && a.startsWith('W/')) {
        etag = a;
        break;
      }
      if (tries === 50) throw new Error(`no stable ETag: ${a} ${b}`);
    }
    const auth = (s: Server) => ({ authorization: `Bearer ${s.key}` });
    // Every other round runs main's code first, so neither side always follows the other.
    const flip = round % 2 === 0;
    const get200 = async (): Promise<void> => {
      const ours = async () => add('GET page 1, 200 (no If-None-Match)', await load(branch, { method: 'GET', paths: [page], headers: auth(branch) }, scratch)); // prettier-ignore
      const theirs = async () => { if (base !== undefined) add('GET page 1, 200 on main (no ETag)', await load(base, { method: 'GET', paths: [page], headers: auth(base) }, scratch)); }; // prettier-ignore
      for (const run of flip ? [theirs, ours] : [ours, theirs]) await run();
    };
    const posts = async (): Promise<void> => {
      const json = { 'content-type': 'application/json' };
      const ours = async () => add('POST /v1/listings', await load(branch, { method: 'POST', paths: ['/v1/listings'], headers: { ...auth(branch), ...json }, body: JSON.stringify(post) }, scratch)); // prettier-ignore
      const theirs = async () => { if (base !== undefined) add('POST /v1/listings on main', await load(base, { method: 'POST', paths: ['/v1/listings'], headers: { ...auth(base), ...json }, body: JSON.stringify(post) }, scratch)); }; // prettier-ignore
      for (const run of flip ? [theirs, ours] : [ours, theirs]) await run();
    };
    add('GET page 1, 304 (If-None-Match matches)', await load(branch, { method: 'GET', paths: [page], headers: { ...auth(branch), 'if-none-match': etag } }, scratch)); // prettier-ignore
    await get200();
    await posts();
    console.error(`round ${round} of ${ROUNDS} done`);
  }

  const rows = [['request', 'req/s', 'server CPU µs/req', 'PostgreSQL CPU µs/req', 'p50 ms', 'errors']];
  const med = new Map<string, { rps: number; cpu: number; total: number }>();
  for (const [label, list] of samples) {
    const rps = median(list.map((s) => s.rps));
    const cpu = median(list.map((s) => s.cpuUsPerRequest));
    const db = median(list.map((s) => s.dbUsPerRequest));
    med.set(label, { rps, cpu, total: median(list.map((s) => s.cpuUsPerRequest + s.dbUsPerRequest)) });
    rows.push([label, fixed(rps, 0), fixed(cpu, 0), options.postgres ? fixed(db, 0) : '-', fixed(median(list.map((s) => s.p50)), 2), String(list.reduce((n, s) => n + s.non2xx, 0))]); // prettier-ignore
  }
  const ratio = (a: string, b: string, field: 'rps' | 'cpu' | 'total'): string => {
    const x = med.get(a)?.[field];
    const y = med.get(b)?.[field];
    return x === undefined || y === undefined ? 'n/a' : `${fixed(x / y, 2)}x`;
  };
  console.log(
    `\nConditional requests: ${options.postgres ? 'PostgreSQL' : 'SQLite'}, ${GALLERIES} galleries in the account, ` +
      `${tool} ${CONNECTIONS} connections, ${SECONDS} s, median of ${ROUNDS} rounds, ` +
      `response cache ${process.env.HTTP_RESPONSE_CACHE_MB === undefined ? 'on (default)' : `HTTP_RESPONSE_CACHE_MB=${process.env.HTTP_RESPONSE_CACHE_MB}`}\n`,
  );
  console.log(table(rows));
  const g304 = 'GET page 1, 304 (If-None-Match matches)';
  const g200 = 'GET page 1, 200 (no If-None-Match)';
  const both = (a: string, b: string): string =>
    `${ratio(a, b, 'rps')} req/s, ${ratio(a, b, 'cpu')} server CPU per request` +
    (options.postgres ? `, ${ratio(a, b, 'total')} server + PostgreSQL CPU per request` : '');
  console.log(`\n304 vs 200: ${both(g304, g200)}`);
  if (base !== undefined) {
    console.log(`200 vs main's 200: ${both(g200, 'GET page 1, 200 on main (no ETag)')}`);
    console.log(`POST vs main's POST: ${both('POST /v1/listings', 'POST /v1/listings on main')}`);
  }
}

try {
  await main();
} finally {
  await cleanup();
}
