// `npm run bench:webhooks`: what webhooks cost and how fast they go, on the real `lightbox serve`
// (one node, production, SQLite by default) with receivers on 127.0.0.1 in a process of their own
// (packages/bench/src/lib/receiver.ts: each delivery verified with `standardwebhooks`, answered 204).
//   (a) Write path: POST /v1/clients throughput (autocannon, --connections) of an account with no
//       webhook endpoint and of one with 3 subscribed endpoints (3 receivers), alternated round
//       by round in the same run; the ratio hooked/plain is the median of the per-round ratios.
//       Target ≥ 0.85x. Each run starts with an empty queue (the backlog of the one before drained).
//   (b) Delivery throughput: after each hooked run, the node delivers the backlog the run left
//       with the API idle: deliveries per second from the end of the run to the last delivery
//       (median of rounds). Target ≥ 500/s.
//   (c) Latency: a steady --rate events per second (open loop) for --steady seconds to an account
//       with one endpoint; time from the event's created_at to its arrival at the receiver,
//       p50/p90/p99/max. Target p99 < 1 s.
// Each is measured on two topologies (--nodes): `one`, a single `lightbox serve` that answers the
// API and runs the jobs (the default deployment), and `split`, an API node (`lightbox serve` with
// JOBS=false) beside a worker node (`lightbox worker`) on the same database: (a) is then the API
// node's throughput, (b) and (c) the worker's. Both run the same code a production deployment runs.
// The sender alone (no database, no queue) is `npm run bench:webhook-sender`.
//
//   npm run bench:webhooks
//   npm run bench:webhooks -- --db postgres --rounds 5 --duration 5 --profile
//   npm run bench:webhooks -- --nodes split
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { apiOk, atRate, closeAgents, createClient, createEndpoint } from './lib/api.ts';
import { createPgDatabase, dropPgDatabase } from './lib/pg.ts';
import {
  benchEnv,
  accountWithKey,
  cleanup,
  cpuSeconds,
  HOST,
  onCleanup,
  ROOT,
  runLoadChild,
  startServe,
  startWorker,
  type Serve,
} from './lib/procs.ts';
import { profileTop } from './lib/profile.ts';
import { startReceiverChild, takeAccepted, tally, type ReceiverHandle } from './lib/receiver.ts';
import { fixed, median, percentile, table } from './lib/report.ts';
import { wholeNumber } from './lib/options.ts';

const HELP = `Usage: npm run bench:webhooks -- [options]     (node packages/bench/src/webhooks.ts)

Options:
  --db KIND          sqlite (default) or postgres (a fresh database on BENCH_DATABASE_URL, dropped after)
  --rounds N         write-path rounds, each a plain and a hooked run (default 5; medians reported)
  --duration S       seconds per write-path run (default 5)
  --connections N    autocannon connections for the write path (default 32)
  --rate R           events per second for the latency run (default 100)
  --steady S         seconds of the latency run (default 20)
  --nodes WHICH      one (a serve node that also runs the jobs), split (an API node with JOBS=false
                     and a \`lightbox worker\`), or both (default), one after the other
  --profile          run lightbox serve (and worker) with --cpu-prof and print their top functions
  --help`;

interface Options {
  dialect: 'sqlite' | 'postgres';
  rounds: number;
  seconds: number;
  connections: number;
  rate: number;
  steady: number;
  profile: boolean;
  topologies: Topology[];
}

type Topology = 'one' | 'split';

function parseOptions(): Options | undefined {
  const { values } = parseArgs({
    options: {
      db: { type: 'string', default: 'sqlite' },
      rounds: { type: 'string', default: '5' },
      duration: { type: 'string', default: '5' },
      connections: { type: 'string', default: '32' },
      rate: { type: 'string', default: '100' },
      steady: { type: 'string', default: '20' },
      profile: { type: 'boolean', default: false },
      nodes: { type: 'string', default: 'both' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return undefined;
  const int = wholeNumber;
  if (values.db !== 'sqlite' && values.db !== 'postgres') throw new Error('--db must be sqlite or postgres');
  const nodes = values.nodes;
  if (nodes !== 'one' && nodes !== 'split' && nodes !== 'both') throw new Error('--nodes must be one, split or both');
  return {
    dialect: values.db,
    rounds: int(values.rounds, 'rounds', 1, 50),
    seconds: int(values.duration, 'duration', 1, 600),
    connections: int(values.connections, 'connections', 1, 1000),
    rate: int(values.rate, 'rate', 1, 10_000),
    steady: int(values.steady, 'steady', 1, 3600),
    profile: values.profile,
    topologies: nodes === 'both' ? ['one', 'split'] : [nodes],
  };
}

interface Account {
  label: string;
  key: string;
  endpoints: string[];
  /** Receiver paths, one per endpoint. */
  paths: string[];
}

/** Pending deliveries of an account, over its endpoints (the API's own count). */
async function pending(node: Serve, account: Account): Promise<number> {
  let sum = 0;
  for (const id of account.endpoints) {
    const page = await apiOk<{ pagination: { total: number } }>(node.port, account.key, 'GET', `/v1/webhook_endpoints/${id}/deliveries?status=pending&limit=1`, undefined, 200); // prettier-ignore
    sum += page.pagination.total;
  }
  return sum;
}

/** Waits until an account has nothing pending; resolves with the seconds it took. */
async function drain(node: Serve, account: Account, limitMs = 600_000): Promise<number> {
  const started = performance.now();
  while ((await pending(node, account)) > 0) {
    if (performance.now() - started > limitMs) throw new Error(`${account.label}: deliveries still pending after ${limitMs / 1000} s`); // prettier-ignore
    await sleep(100);
  }
  return (performance.now() - started) / 1000;
}

interface WriteRound {
  round: number;
  plain: number;
  hooked: number;
  ratio: number;
  /** Deliveries per second while the hooked run wrote, and after it, the API idle. */
  duringRate: number;
  drainRate: number;
  /** CPU of the sending node per delivery while it drained the backlog (load on the machine aside). */
  drainCpuUs: number;
  backlog: number;
  cpuUsPlain: number;
  cpuUsHooked: number;
  /** The worker node's CPU per hooked request while it ran (split only). */
  workerCpuUsHooked: number;
}

async function main(options: Options): Promise<void> {
  let failed = false;
  for (const topology of options.topologies) failed = (await measure(options, topology)) || failed;
  if (failed) process.exitCode = 1;
}

/** One topology measured whole, on a database of its own; true if a node did not stop cleanly. */
async function measure(options: Options, topology: Topology): Promise<boolean> {
  const split = topology === 'split';
  const work = await mkdtemp(path.join(os.tmpdir(), 'lightbox-bench-webhooks-'));
  onCleanup(() => rm(work, { recursive: true, force: true }));
  const outDir = path.join(
    ROOT,
    'bench-results',
    `${new Date().toISOString().replace(/[:.]/g, '-')}-webhooks-${topology}`,
  );
  await mkdir(outDir, { recursive: true });
  const dbName = `lightbox_bench_webhooks_${process.pid}_${topology}`;
  const env = benchEnv(work, path.join(work, 'data'), 'info', { WEBHOOK_ALLOW_PRIVATE: 'true' });
  if (options.dialect === 'postgres') {
    env.DATABASE_URL = await createPgDatabase(dbName);
    onCleanup(() => dropPgDatabase(dbName));
  }
  const receiver: ReceiverHandle = await startReceiverChild({ ports: 3 });
  const accounts: Account[] = [];
  for (const label of ['plain', 'hooked', 'steady'] as const) {
    accounts.push({ label, key: await accountWithKey(env, `Webhooks ${label}`), endpoints: [], paths: [] });
  }
  const [plain, hooked, steady] = accounts as [Account, Account, Account];
  const logFile = path.join(outDir, 'lightbox.log');
  const flags = options.profile ? ['--cpu-prof', `--cpu-prof-dir=${outDir}`, '--cpu-prof-name=lightbox.cpuprofile'] : []; // prettier-ignore
  const node = await startServe(split ? { ...env, JOBS: 'false' } : env, logFile, flags);
  const workerFlags = options.profile ? ['--cpu-prof', `--cpu-prof-dir=${outDir}`, '--cpu-prof-name=worker.cpuprofile'] : []; // prettier-ignore
  const worker = split ? await startWorker(env, path.join(outDir, 'worker.log'), workerFlags) : undefined;
  for (const [account, count] of [
    [hooked, 3],
    [steady, 1],
  ] as const) {
    for (let i = 0; i < count; i += 1) {
      const hookPath = `/${account.label}/${i}`;
      const endpoint = await createEndpoint(node.port, account.key, `http://${HOST}:${receiver.ports[i] ?? 0}${hookPath}`, ['client.created']); // prettier-ignore
      await receiver.setSecret(hookPath, endpoint.secret);
      account.endpoints.push(endpoint.id);
      account.paths.push(hookPath);
    }
  }
  const title = split
    ? `API node (serve, JOBS=false) pid ${node.child.pid} + worker node (lightbox worker) pid ${worker?.pid ?? '?'}`
    : `one node (serve, API and jobs) pid ${node.child.pid}`;
  console.log(`\n[${topology}] ${title}, ${options.dialect}, on :${node.port}; receivers on :${receiver.ports.join(', :')}`); // prettier-ignore

  const load = (account: Account, tag: string, seconds: number) =>
    runLoadChild(
      {
        url: `http://${HOST}:${node.port}`,
        method: 'POST',
        paths: ['/v1/clients'],
        headers: { authorization: `Bearer ${account.key}`, 'content-type': 'application/json' },
        bodyTemplate: JSON.stringify({ name: `Bench ${tag} {n}`, email: `${tag}-{n}@bench.invalid` }),
        connections: options.connections,
        seconds,
      },
      'autocannon',
      work,
    );

  // Warm-up: both accounts, and a drained queue.
  await load(plain, 'warm-plain', 2);
  const warm = await load(hooked, 'warm-hooked', 2);
  await takeAccepted(receiver, warm.requests * hooked.endpoints.length, { label: hooked.label, limitMs: 600_000 });

  // (a) and (b).
  const rounds: WriteRound[] = [];
  for (let round = 1; round <= options.rounds; round += 1) {
    const measured: Record<string, { rps: number; cpuUs: number; workerCpuUs: number; start: number; end: number; errors: number }> = {}; // prettier-ignore
    for (const account of round % 2 === 1 ? [plain, hooked] : [hooked, plain]) {
      const cpu = cpuSeconds(node.child.pid);
      const workerCpu = worker === undefined ? NaN : cpuSeconds(worker.pid);
      const start = Date.now();
      const result = await load(account, `r${round}-${account.label}`, options.seconds);
      const end = Date.now();
      const errors = result.errors + result.non2xx + result.timeouts;
      if (errors > 0) throw new Error(`${account.label} round ${round}: ${errors} errors ${JSON.stringify(result.statuses)}`); // prettier-ignore
      measured[account.label] = { rps: result.rps, cpuUs: ((cpuSeconds(node.child.pid) - cpu) / result.requests) * 1e6, workerCpuUs: worker === undefined ? NaN : ((cpuSeconds(worker.pid) - workerCpu) / result.requests) * 1e6, start, end, errors }; // prettier-ignore
      if (account === hooked) {
        const sender = worker?.pid ?? node.child.pid;
        const drainCpu = cpuSeconds(sender);
        const receipts = await takeAccepted(receiver, result.requests * hooked.endpoints.length, { label: hooked.label, limitMs: 600_000 }); // prettier-ignore
        const drainCpuSeconds = cpuSeconds(sender) - drainCpu;
        const during = receipts.filter((r) => r.at <= end).length;
        // Deliveries owed when the writes ended: pending ones, and events not yet fanned out.
        const backlog = receipts.length - during;
        const after = receipts.filter((r) => r.at > end);
        const last = Math.max(end, ...after.map((r) => r.at));
        rounds[round - 1] = {
          ...(rounds[round - 1] ?? ({} as WriteRound)),
          duringRate: during / ((end - start) / 1000),
          drainRate: after.length / Math.max(0.001, (last - end) / 1000),
          drainCpuUs: (drainCpuSeconds / Math.max(1, after.length)) * 1e6,
          backlog,
        };
      }
    }
    const p = measured.plain;
    const h = measured.hooked;
    if (p === undefined || h === undefined) throw new Error('a run is missing');
    const row = { ...(rounds[round - 1] as WriteRound), round, plain: p.rps, hooked: h.rps, ratio: h.rps / p.rps, cpuUsPlain: p.cpuUs, cpuUsHooked: h.cpuUs, workerCpuUsHooked: h.workerCpuUs }; // prettier-ignore
    rounds[round - 1] = row;
    console.log(
      `[${topology}] round ${round}: plain ${fixed(p.rps, 0)}/s (${fixed(p.cpuUs, 0)} µs), hooked ${fixed(h.rps, 0)}/s (${fixed(h.cpuUs, 0)} µs), ` +
        `ratio ${fixed(row.ratio, 3)}; deliveries ${fixed(row.duringRate, 0)}/s during, backlog ${row.backlog}, then ${fixed(row.drainRate, 0)}/s (${fixed(row.drainCpuUs, 0)} µs CPU each)`,
    );
  }

  // (c): a steady rate to one endpoint.
  await receiver.take();
  const startedSteady = Date.now();
  const sent = await atRate(options.rate, options.steady, async (i) => {
    const reply = await createClient(node.port, steady.key, 'steady', i);
    if (reply.status !== 201) throw new Error(`steady POST /v1/clients: ${reply.status} ${reply.text}`);
  });
  const steadySeconds = (Date.now() - startedSteady) / 1000;
  await drain(node, steady);
  await sleep(500);
  const seen = tally((await receiver.take()).filter((r) => r.path === steady.paths[0]));
  const lat = seen.latencies;
  if (seen.delivered !== sent || seen.invalid > 0) throw new Error(`steady: ${sent} sent, ${seen.delivered} delivered, ${seen.invalid} invalid signatures`); // prettier-ignore

  await node.child.stop();
  const { code } = await node.child.exited;
  const workerCode = worker === undefined ? 0 : (await worker.stop(), (await worker.exited).code);
  await receiver.close();
  closeAgents();

  const m = (pick: (r: WriteRound) => number): number => median(rounds.map(pick));
  const where = split ? 'API node + worker node' : 'one node';
  console.log(`\nWebhooks, ${options.dialect}, ${where} [${topology}], ${options.rounds} rounds × ${options.seconds} s at ${options.connections} connections (medians):\n`); // prettier-ignore
  console.log(
    table([
      ['measure', 'value'],
      ['(a) POST /v1/clients, 0 endpoints', `${fixed(m((r) => r.plain), 0)} req/s (${fixed(m((r) => r.cpuUsPlain), 0)} µs CPU/req)`], // prettier-ignore
      ['(a) POST /v1/clients, 3 endpoints', `${fixed(m((r) => r.hooked), 0)} req/s (${fixed(m((r) => r.cpuUsHooked), 0)} µs CPU/req${split ? `; worker ${fixed(m((r) => r.workerCpuUsHooked), 0)} µs/req` : ''})`], // prettier-ignore
      ['(a) ratio 3 endpoints / 0', `${fixed(m((r) => r.ratio), 3)}x (rounds: ${rounds.map((r) => fixed(r.ratio, 2)).join(' ')})`], // prettier-ignore
      ['(b) deliveries/s, API idle (backlog drain)', `${fixed(m((r) => r.drainRate), 0)} (backlog ${fixed(m((r) => r.backlog), 0)}; ${fixed(m((r) => r.drainCpuUs), 0)} µs CPU/delivery of the ${split ? 'worker' : 'node'})`], // prettier-ignore
      [
        '(b) deliveries/s while the writes run',
        fixed(
          m((r) => r.duringRate),
          0,
        ),
      ],
      [`(c) commit → delivery at ${options.rate}/s (${sent} events, ${fixed(steadySeconds, 1)} s)`, `p50 ${percentile(lat, 50)} ms, p90 ${percentile(lat, 90)} ms, p99 ${percentile(lat, 99)} ms, max ${lat.at(-1) ?? NaN} ms`], // prettier-ignore
    ]),
  );
  const verdicts: [string, boolean][] = [
    [
      `(a) write path with 3 endpoints ≥ 0.85x: ${fixed(
        m((r) => r.ratio),
        3,
      )}x`,
      m((r) => r.ratio) >= 0.85,
    ],
    [
      `(b) delivery throughput ≥ 500/s: ${fixed(
        m((r) => r.drainRate),
        0,
      )}/s`,
      m((r) => r.drainRate) >= 500,
    ],
    [`(c) p99 commit → delivery < 1000 ms: ${percentile(lat, 99)} ms`, percentile(lat, 99) < 1000],
  ];
  console.log(`\n${verdicts.map(([line, met]) => `${met ? 'MET    ' : 'NOT MET'}  [${topology}] ${line}`).join('\n')}`);
  console.log(`lightbox serve stopped: exit ${String(code)}; log in ${path.relative(ROOT, logFile)}`);
  if (worker !== undefined) console.log(`lightbox worker stopped: exit ${String(workerCode)}`);
  if (options.profile) {
    for (const [name, file] of [
      ['lightbox serve', 'lightbox.cpuprofile'],
      ...(split ? [['lightbox worker', 'worker.cpuprofile']] : []),
    ] as const) {
      // prettier-ignore
      const profile = await profileTop(path.join(outDir, file), ROOT, 20);
      console.log(`CPU profile of ${name} (whole life), top self time:`);
      for (const p of profile.functions) console.log(`  ${fixed(p.percent).padStart(5)}%  ${p.fn}`);
      console.log('by package or source folder:');
      for (const p of profile.packages.slice(0, 12)) console.log(`  ${fixed(p.percent).padStart(5)}%  ${p.fn}`);
    }
  }
  return code !== 0 || workerCode !== 0;
}

let options: Options | undefined;
try {
  options = parseOptions();
} catch (err) {
  process.stderr.write(`bench:webhooks: ${(err as Error).message}\n\n${HELP}\n`);
  process.exit(2);
}
if (options === undefined) {
  console.log(HELP);
} else {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void cleanup().finally(() => process.exit(130)));
  }
  try {
    await main(options);
  } catch (err) {
    process.stderr.write(`bench:webhooks failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  } finally {
    await cleanup();
  }
}
