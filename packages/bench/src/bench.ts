// (Over 400 lines: one run's whole sequence, kept in one place so its order reads top to bottom.)
// `npm run bench`: Lightbox under load the way its users run it, against the machine's limit
// measured in the same run. For each size it seeds a fresh database (packages/bench/src/lib/seed.ts),
// starts the real `lightbox serve` (production, logging at info to a file), creates a key with the
// CLI, and drives each endpoint with autocannon in its own process, interleaved round by round
// with a bare node:http server sending a fixed 3 KB list body. Figures are medians of the rounds.
// Before the sizes, the independent check's method (packages/bench/src/lib/check.ts); in each size, the
// newer paths beside their own baselines (packages/bench/src/lib/paths.ts: variants, the gallery page, the
// ZIP, webhook fan-out, uploads and tus).
//
//   npm run bench -- --quick               1k and 100k galleries, SQLite (under 5 minutes)
//   npm run bench -- --db postgres         the same on PostgreSQL
//   npm run bench -- --help
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { bodyOf, ENDPOINTS, type Endpoint } from './lib/endpoints.ts';
import type { LoadSpec } from './lib/load.ts';
import {
  benchEnv,
  call,
  cpuSeconds,
  defaultTool,
  pgBackendCpu,
  pgBackendCpuSince,
  pgBackends,
  HOST,
  lightboxCli,
  onCleanup,
  ROOT,
  runLoadChild,
  settle,
  startBare,
  startServe,
  tail,
  type LoadTool,
  runBench,
} from './lib/procs.ts';
import { createPgDatabase, dropPgDatabase } from './lib/pg.ts';
import {
  fixed,
  machine,
  resultsTable,
  summarize,
  verdictLines,
  verdicts,
  type RoundResult,
  type Row,
} from './lib/report.ts';
import { profileInclusive, profileTop, type ProfileLine } from './lib/profile.ts';
import { BIG_ACCOUNT_EMAIL, seed, type Seeded } from './lib/seed.ts';
import { checkSummary, independentCheck, type CheckResult } from './lib/check.ts';
import { finishPaths, pathsTable, startPaths, type PathsRun } from './lib/paths-run.ts';
import type { PathRow } from './lib/paths.ts';
import { wholeNumber } from './lib/options.ts';

const HELP = `Usage: npm run bench -- [options]       (node packages/bench/src/bench.ts [options])

Options:
  --quick              sizes 1k and 100k, 2 s per measurement, 2 rounds of the newer
                       paths (finishes in under 5 minutes)
  --db KIND            sqlite (default) or postgres (a fresh database per size on
                       BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres)
  --sizes LIST         gallery counts, e.g. 1k,100k,1M (default 1k,100k,1M)
  --rounds N           measured rounds per endpoint (default 3; the median is reported)
  --duration S         seconds per measurement (default 5, --quick 2)
  --warmup S           unmeasured seconds per endpoint before the rounds (default 1)
  --connections N      concurrent connections (default 50)
  --tool NAME          wrk (default when installed: one thread, like the issue's anchors)
                       or autocannon (a Node process; it saturates near 15-25k req/s here,
                       below the bare server's limit, which flatters every ratio)
  --endpoints LIST     only these (list,page1000,page1,cursor1000,byclient,updated,bysearch,
                       raresearch,midsearch,get,search,search1,client,
                       notifications,webhooks,create,update,createclient,updateclient,
                       assign,gallery,media)
  --no-check           skip the independent check (20k galleries made through the API,
                       GET /v1/listings, wrk -t1 -c50 -d6s, 3 rounds beside the bare server;
                       --check runs it with --quick, which leaves it out by default)
  --no-paths           skip the newer paths (variants, gallery page, ZIP, webhooks, uploads)
  --profile            run lightbox serve with --cpu-prof (profiles in the results folder)
  --keep               keep the seeded databases (printed) instead of removing them
  -h, --help           show this help

Results: a summary on stdout, and results.json + results.md in bench-results/<time>/.
`;

interface Options {
  dialect: 'sqlite' | 'postgres';
  sizes: string[];
  rounds: number;
  seconds: number;
  warmup: number;
  connections: number;
  tool: LoadTool;
  endpoints: string[] | undefined;
  profile: boolean;
  keep: boolean;
  check: boolean;
  paths: boolean;
  quick: boolean;
}

const SIZES: Record<string, number> = { '1k': 1_000, '10k': 10_000, '100k': 100_000, '1M': 1_000_000 };

function parseOptions(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowNegative: true,
    options: {
      quick: { type: 'boolean', default: false },
      db: { type: 'string', default: 'sqlite' },
      sizes: { type: 'string' },
      rounds: { type: 'string', default: '3' },
      duration: { type: 'string' },
      warmup: { type: 'string', default: '1' },
      connections: { type: 'string', default: '50' },
      tool: { type: 'string' },
      endpoints: { type: 'string' },
      profile: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      check: { type: 'boolean' },
      paths: { type: 'boolean', default: true },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return undefined;
  const int = wholeNumber;
  if (values.db !== 'sqlite' && values.db !== 'postgres') throw new Error('--db must be sqlite or postgres');
  const sizes = (values.sizes ?? (values.quick ? '1k,100k' : '1k,100k,1M')).split(',').map((s) => s.trim());
  for (const size of sizes) if (SIZES[size] === undefined) throw new Error(`--sizes: ${size} is not one of ${Object.keys(SIZES).join(', ')}`); // prettier-ignore
  const endpoints = values.endpoints?.split(',').map((s) => s.trim());
  for (const e of endpoints ?? [])
    if (!ENDPOINTS.some((x) => x.name === e)) throw new Error(`--endpoints: unknown ${e}`);
  const tool = values.tool ?? defaultTool();
  if (tool !== 'wrk' && tool !== 'autocannon') throw new Error('--tool must be wrk or autocannon');
  return {
    tool,
    dialect: values.db,
    sizes,
    rounds: int(values.rounds, 'rounds', 1, 50),
    seconds: int(values.duration ?? (values.quick ? '2' : '5'), 'duration', 1, 600),
    warmup: int(values.warmup, 'warmup', 0, 60),
    connections: int(values.connections, 'connections', 1, 1000),
    endpoints,
    profile: values.profile,
    keep: values.keep,
    // Seeding 20k galleries through the API and 36 s of wrk do not fit --quick's 5 minutes.
    check: values.check ?? !values.quick,
    paths: values.paths,
    quick: values.quick,
  };
}

interface SizeResult {
  size: string;
  seeded: Partial<Seeded>;
  bare: Row;
  rows: Row[];
  logLines: number;
  shutdown: string;
  doctor: string;
  profile?: { functions: ProfileLine[]; packages: ProfileLine[] };
  paths?: PathRow[];
}

async function runSize(options: Options, size: string, work: string, outDir: string): Promise<SizeResult> {
  const galleries = SIZES[size] ?? 0;
  const dataDir = path.join(work, `data-${size}`);
  await mkdir(dataDir, { recursive: true });
  const dbName = `lightbox_bench_${size.toLowerCase()}_${process.pid}`;
  // benchEnv keeps the rate and in-flight limiters on the path with limits no benchmark reaches.
  const env = benchEnv(work, dataDir, 'info', {
    GALLERY_RATE_LIMIT_PER_MINUTE: '100000000',
    // The webhook rows' receivers listen on 127.0.0.1.
    WEBHOOK_ALLOW_PRIVATE: 'true',
    ...(options.dialect === 'postgres' ? { DATABASE_URL: await createPgDatabase(dbName) } : {}),
  });
  if (!options.keep) {
    onCleanup(() =>
      options.dialect === 'postgres' ? dropPgDatabase(dbName) : rm(dataDir, { recursive: true, force: true }),
    );
  }
  console.log(`\n== ${size} galleries (${options.dialect}) ==`);
  const seeded = await seed(env, galleries, (line) => console.log(`  ${line}`));
  console.log(
    `  seeded ${seeded.galleries} galleries, ${seeded.clients} clients, ${seeded.media} media, ${seeded.assigned} assigned ` +
      `in ${fixed(seeded.seconds)} s; heavy account: ${seeded.bigAccountGalleries} galleries, ${seeded.bigAccountClients} clients`,
  );
  const created = await lightboxCli(['keys', 'create', '--account', BIG_ACCOUNT_EMAIL, '--name', 'bench'], env);
  if (created.code !== 0) throw new Error(`lightbox keys create: ${created.stderr}`);
  const key = created.stdout.trim();

  const logFile = path.join(outDir, `lightbox-${options.dialect}-${size}.log`);
  const profileFlags = options.profile
    ? ['--cpu-prof', `--cpu-prof-dir=${outDir}`, `--cpu-prof-name=lightbox-${options.dialect}-${size}.cpuprofile`]
    : [];
  const { child: server, port } = await startServe(env, logFile, profileFlags);
  const bare = await startBare();
  console.log(`  lightbox serve pid ${server.pid} on :${port}; bare server pid ${bare.child.pid} on :${bare.port} (${bare.bytes} B body)`); // prettier-ignore

  const pathsContext = { port, key, env, dataDir, work, tool: options.tool, rounds: options.quick ? Math.min(2, options.rounds) : options.rounds, seconds: options.seconds, quick: options.quick, log: (line: string) => console.log(line) }; // prettier-ignore
  // The newer paths' gallery (photos with variants, a client link), its variants timed on the way.
  const paths: PathsRun | undefined = options.paths ? await startPaths(pathsContext, size) : undefined;
  const fixture = {
    ...seeded,
    ...(paths === undefined ? {} : { gallery: paths.fixture }),
    ...(options.endpoints?.includes('cursor1000') === true ? { deepCursor: await walkCursor(port, key, 1000) } : {}),
  };
  const endpoints = ENDPOINTS.filter(
    (e) =>
      (options.endpoints === undefined
        ? !(options.quick && e.fullRunOnly === true)
        : options.endpoints.includes(e.name)) &&
      seeded.bigAccountGalleries >= (e.minGalleries ?? 0) &&
      (e.needsGallery !== true || paths !== undefined),
  );
  // One request each first: the answers must be right before their speed means anything.
  for (const e of endpoints.filter((x) => x.method === 'GET')) {
    const reply = await call(port, 'GET', e.paths(fixture)[0] ?? '/', e.anonymous === true ? undefined : key);
    if (reply.status !== 200) throw new Error(`${e.label}: ${reply.status} ${reply.text}\n${await tail(logFile)}`);
    if (e.anonymous === true) {
      console.log(`  ${e.label}: 200, ${reply.text.length} characters`);
      continue;
    }
    const total = (JSON.parse(reply.text) as { pagination?: { total: number } }).pagination?.total;
    console.log(`  ${e.label}: 200${total === undefined ? '' : `, total ${total}`}`);
  }

  const spec = (e: Endpoint | undefined, seconds: number): LoadSpec => ({
    url: `http://${HOST}:${e === undefined ? bare.port : port}`,
    method: e?.method ?? 'GET',
    paths: e === undefined ? ['/'] : e.paths(fixture),
    headers: e === undefined || e.anonymous === true ? {} : { authorization: `Bearer ${key}`, ...(e.body === undefined && e.bodyTemplate === undefined ? {} : { 'content-type': 'application/json' }) }, // prettier-ignore
    ...(e === undefined ? {} : bodyOf(e)),
    connections: e?.connections ?? options.connections,
    seconds,
  });
  if (options.warmup > 0) {
    for (const e of [undefined, ...endpoints]) {
      await runLoadChild(spec(e, options.warmup), options.tool, work);
      await call(port, 'GET', '/readyz');
      if (e !== undefined && e.method !== 'GET') await settle(server.pid);
    }
  }

  const bareRounds: RoundResult[] = [];
  const rounds = new Map<string, RoundResult[]>(endpoints.map((e) => [e.name, []]));
  for (let round = 1; round <= options.rounds; round++) {
    let cpu = cpuSeconds(bare.child.pid);
    const bareResult = await runLoadChild(spec(undefined, options.seconds), options.tool, work);
    const bareCpu = (cpuSeconds(bare.child.pid) - cpu) / bareResult.requests;
    bareRounds.push({ ...bareResult, round, ratio: 1, cpuUs: bareCpu * 1e6, cpuRatio: 1 });
    const line = [`  round ${round}: bare ${fixed(bareResult.rps, 0)} (${fixed(bareCpu * 1e6, 0)} µs)`];
    // Alternate the order so slow drift on the machine does not always hit the same endpoint.
    const order = round % 2 === 1 ? endpoints : [...endpoints].reverse();
    for (const e of order) {
      cpu = cpuSeconds(server.pid);
      const dbCpu = options.dialect === 'postgres' ? pgBackendCpu(dbName) : undefined;
      const result = await runLoadChild(spec(e, options.seconds), options.tool, work);
      const cpuUs = ((cpuSeconds(server.pid) - cpu) / result.requests) * 1e6;
      const dbCpuUs = dbCpu === undefined ? undefined : (pgBackendCpuSince(dbName, dbCpu) / result.requests) * 1e6;
      // Slow requests (PostgreSQL's COUNT(*) at 100k, queued for a pooled connection) outlive
      // the run; the next endpoint must not inherit their backlog: /readyz queues behind it.
      await call(port, 'GET', '/readyz');
      // A write's background work (emails, webhook events, checkpoints) is done before the next.
      const settled = e.method === 'GET' ? 0 : await settle(server.pid);
      rounds.get(e.name)?.push({
        ...result,
        round,
        ratio: result.rps / bareResult.rps,
        cpuUs,
        cpuRatio: (bareCpu * 1e6) / cpuUs,
        ...(dbCpuUs === undefined ? {} : { dbCpuUs }),
      });
      const errors = result.errors + result.non2xx + result.timeouts;
      line.push(`${e.name} ${fixed(result.rps, 0)} (${fixed(cpuUs, 0)} µs${dbCpuUs === undefined ? '' : ` + PostgreSQL ${fixed(dbCpuUs, 0)} µs`})${errors > 0 ? ` (${errors} errors: ${JSON.stringify(result.statuses)})` : ''}${settled >= 500 ? ` [settled ${fixed(settled / 1000, 1)} s]` : ''}`); // prettier-ignore
    }
    console.log(line.join(', '));
  }

  const pathRows =
    paths === undefined ? undefined : await finishPaths(pathsContext, size, paths, rounds.get('gallery'), rounds.get('media')); // prettier-ignore

  if (options.dialect === 'postgres') {
    // The pool's size in use: src/db/database.ts allows 10 per node.
    console.log(
      `  PostgreSQL backends serving lightbox serve's database after the rounds: ${pgBackends(dbName).length}`,
    );
  }
  await server.stop();
  const { code, signal } = await server.exited;
  const shutdown = `exit ${String(code)}${signal === null ? '' : ` (${signal})`}`;
  await bare.child.stop();
  let profile: Awaited<ReturnType<typeof profileTop>> | undefined;
  if (options.profile) {
    profile = await profileTop(path.join(outDir, `lightbox-${options.dialect}-${size}.cpuprofile`), ROOT);
    console.log('  CPU profile of lightbox serve (whole life), top self time:');
    for (const p of profile.functions) console.log(`    ${fixed(p.percent).padStart(5)}%  ${p.fn}`);
    console.log('  by package or source folder:');
    for (const p of profile.packages.slice(0, 12)) console.log(`    ${fixed(p.percent).padStart(5)}%  ${p.fn}`);
    const stem = path.join(outDir, `lightbox-${options.dialect}-${size}`);
    const stages = await profileInclusive(`${stem}.cpuprofile`, ROOT, { folded: `${stem}.folded`, match: (fn) => fn.includes(' src/') }); // prettier-ignore
    console.log(
      `  Lightbox's own functions by inclusive time (stacks: ${path.relative(ROOT, stem)}.folded, flame graph: .svg):`,
    );
    for (const p of stages) console.log(`    ${fixed(p.percent).padStart(5)}%  ${p.fn}`);
  }
  const logLines = Number(execFileSync('wc', ['-l', logFile], { encoding: 'utf8' }).trim().split(/\s+/)[0]);
  // The counts check: totals must still be exact after the bench's writes.
  const checked = await lightboxCli(['doctor'], env);
  const doctor = `exit ${String(checked.code)}\n${(checked.stdout + checked.stderr).trim()}`;
  // A run whose writes left a count inexact fails, whatever its throughput.
  if (checked.code !== 0) process.exitCode = 1;
  console.log(
    `  lightbox serve stopped: ${shutdown}; ${logLines} log lines; doctor: ${doctor.replace(/\n/g, '\n    ')}`,
  );
  if (options.keep) console.log(`  kept: ${env.DATABASE_URL ?? dataDir}`);
  const counts: Partial<Seeded> = { ...seeded };
  delete counts.galleryIds;
  delete counts.clientIds;
  return {
    size,
    seeded: counts,
    bare: summarize(size, 'bare', 'bare node:http (3 KB body)', bareRounds),
    rows: endpoints.map((e) => summarize(size, e.name, e.label, rounds.get(e.name) ?? [])),
    logLines,
    shutdown,
    doctor,
    ...(profile === undefined ? {} : { profile }),
    ...(pathRows === undefined ? {} : { paths: pathRows }),
  };
}

async function run(options: Options): Promise<void> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const outDir = path.join(ROOT, 'bench-results', `${stamp}-${options.dialect}`);
  await mkdir(outDir, { recursive: true });
  const work = await mkdtemp(path.join(os.tmpdir(), 'lightbox-bench-'));
  if (!options.keep) onCleanup(() => rm(work, { recursive: true, force: true }));
  const started = performance.now();
  const loadBefore = os.loadavg();
  let check: CheckResult | undefined;
  if (options.check) {
    console.log(`\n== independent check (${options.dialect}) ==`);
    check = await independentCheck({ dialect: options.dialect, galleries: 20_000, rounds: 3, seconds: 6, connections: 50, tool: options.tool, work, outDir, log: (line) => console.log(`  ${line}`) }); // prettier-ignore
  }
  const sizes: SizeResult[] = [];
  for (const size of options.sizes) sizes.push(await runSize(options, size, work, outDir));
  const rows = [...(check === undefined ? [] : [check.bare, check.list]), ...sizes.flatMap((s) => [s.bare, ...s.rows])]; // prettier-ignore
  const pathRows = sizes.flatMap((s) => s.paths ?? []);
  const checks = verdicts(
    sizes.flatMap((s) => s.rows),
    options.dialect,
  );
  const environment = {
    ...machine(loadBefore),
    minutes: Number(fixed((performance.now() - started) / 60_000, 1)),
  };
  const summary = resultsTable(rows);
  const paths = pathRows.length === 0 ? '' : `Newer paths, each beside its own baseline (medians of ${options.rounds} rounds):\n\n${pathsTable(pathRows)}`; // prettier-ignore
  const checkLine =
    check === undefined
      ? ''
      : checkSummary(
          check,
          sizes.flatMap((s) => s.rows),
        );
  console.log(`\n${summary}\n\n${checkLine}\n\n${paths}\n\n${verdictLines(checks).join('\n')}\n`);
  const result = { benchmark: 'api', date: new Date().toISOString(), options, environment, check, sizes, verdicts: checks }; // prettier-ignore
  await writeFile(path.join(outDir, 'results.json'), `${JSON.stringify(result, null, 2)}\n`);
  const markdown = [
    `# Lightbox API benchmark (${options.dialect})`,
    '',
    `${result.date} · Node ${environment.node} · ${environment.cpus} · load ${environment.loadAverageBefore.join(' ')} → ${environment.loadAverageAfter.join(' ')} · commit ${environment.commit} · ${environment.minutes} min · response cache ${environment.responseCacheMb} MB`,
    '',
    `${options.tool}, ${options.connections} connections, ${options.rounds} rounds × ${options.seconds} s per endpoint (medians; errors summed), interleaved with the bare server each round.`,
    '',
    summary,
    '',
    checkLine,
    '',
    paths,
    '',
    ...verdictLines(checks).map((l) => `- ${l}`),
    '',
    ...sizes.map((s) => `- ${s.size}: seeded in ${fixed(s.seeded.seconds ?? NaN)} s (counts recomputed: ${String(s.seeded.countsRecomputed)}); server ${s.shutdown}, ${s.logLines} log lines; doctor: ${s.doctor.replace(/\n/g, ' ')}`), // prettier-ignore
    '',
  ];
  await writeFile(path.join(outDir, 'results.md'), markdown.join('\n'));
  if (options.profile) console.log(`CPU profiles in ${path.relative(ROOT, outDir)}`);
  console.log(`wrote ${path.relative(ROOT, outDir)}/results.json and results.md (${environment.minutes} min)`);
}

await runBench('bench', HELP, parseOptions, run);

/** The cursor of page `pages` + 1 of 20 galleries, reached by walking `next_cursor` (docs/api.md §19). */
async function walkCursor(port: number, key: string, pages: number): Promise<string> {
  let cursor: string | undefined;
  for (let i = 0; i < pages; i += 1) {
    const reply = await call(
      port,
      'GET',
      `/v1/listings?limit=20${cursor === undefined ? '' : `&cursor=${cursor}`}`,
      key,
    );
    const next = (JSON.parse(reply.text) as { pagination: { next_cursor: string | null } }).pagination.next_cursor;
    if (reply.status !== 200 || next === null) throw new Error(`walking the cursor: page ${i + 1}: ${reply.status}`);
    cursor = next;
  }
  return cursor ?? '';
}
