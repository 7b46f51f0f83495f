// `npm run test:webhook-outage`: webhook deliveries through a receiver outage and a node crash
// (docs/api.md §15), on real `lightbox serve` processes, the way `npm run test:outage` does it
// for notification emails.
//
// For each database (PostgreSQL: a fresh database, created and dropped here; SQLite: two
// processes on one WAL file in a temporary DATA_DIR), two nodes run on free ports of 127.0.0.1
// with WEBHOOK_ALLOW_PRIVATE=true and a short retry schedule (WEBHOOK_RETRY_SECONDS). A receiver
// on 127.0.0.1 (packages/bench/src/lib/receiver.ts) verifies every delivery with `standardwebhooks`.
//   1. Outage: the receiver is down (connection refused, then 503) while --count clients are
//      created through the API (POST /v1/clients, alternating between the nodes), then comes back.
//      Target: every event delivered, 0 lost, 0 delivered again after a successful attempt
//      (counted by webhook-id), every signature valid, and the API says every delivery succeeded.
//   2. Crash: --count more events while the receiver is up but slow; one node is killed with
//      SIGKILL in the middle of delivery. Its claimed deliveries come back when their lease runs
//      out (WEBHOOK_TIMEOUT_SECONDS + 60 s). Target: 0 lost, every signature valid; deliveries
//      repeated after a success (at least once) are reported and may not exceed what the killed
//      node could hold (WEBHOOK_ENDPOINT_CONCURRENCY).
// Exit code 1 when a target is missed, 2 on bad arguments.
//
//   npm run test:webhook-outage                       both databases
//   npm run test:webhook-outage -- --db sqlite --count 200 --phase 3
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiOk, closeAgents, createClient, createEndpoint, inParallel } from './lib/api.ts';
import { createPgDatabase, dropPgDatabase } from './lib/pg.ts';
import { accountWithKey, benchEnv, cleanup, HOST, onCleanup, startServe, tail, type Serve } from './lib/procs.ts';
import { parseOrExit, wholeNumberOrExit } from './lib/options.ts';
import { startReceiver, tally, type ReceiverHandle, type Receipt, type Tally } from './lib/receiver.ts';

const HELP = `Usage: npm run test:webhook-outage -- [options]   (node packages/bench/src/webhook-outage.ts)

Options:
  --db KIND       postgres, sqlite or both (default both); PostgreSQL on BENCH_DATABASE_URL
                  (default postgres://postgres@127.0.0.1:5432/postgres): a fresh database, dropped after
  --count N       events per phase (default 500)
  --phase S       seconds the receiver refuses connections, then answers 503, at least (default 5)
  --deadline S    seconds after the receiver is back (or the kill) before what is undelivered counts as lost (default 150)
  --help`;

const RETRY_SECONDS = '1,1,2,2,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3';
const TIMEOUT_SECONDS = 2;
const PER_ENDPOINT = 4;

interface Options {
  dialects: ('postgres' | 'sqlite')[];
  count: number;
  phaseMs: number;
  deadlineMs: number;
}

function options(): Options {
  const values = parseOrExit(HELP, {
    db: { type: 'string', default: 'both' },
    count: { type: 'string', default: '500' },
    phase: { type: 'string', default: '5' },
    deadline: { type: 'string', default: '150' },
    help: { type: 'boolean', default: false },
  });
  const whole = wholeNumberOrExit;
  const db = values.db;
  if (db !== 'both' && db !== 'postgres' && db !== 'sqlite') {
    process.stderr.write('--db must be postgres, sqlite or both\n');
    process.exit(2);
  }
  return {
    dialects: db === 'both' ? ['postgres', 'sqlite'] : [db],
    count: whole('count', values.count, 1, 20_000),
    phaseMs: whole('phase', values.phase, 0, 600) * 1000,
    deadlineMs: whole('deadline', values.deadline, 10, 3600) * 1000,
  };
}

const started = performance.now();
const say = (line: string): void => {
  process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(1)}s] ${line}\n`);
};

/** Receipts gathered from the receiver, and their tally for one endpoint's path. */
class Seen {
  readonly all: Receipt[] = [];
  private readonly receiver: ReceiverHandle;
  constructor(receiver: ReceiverHandle) {
    this.receiver = receiver;
  }
  async of(hookPath: string): Promise<Tally> {
    this.all.push(...(await this.receiver.take()));
    return tally(this.all.filter((r) => r.path === hookPath));
  }
}

/** Waits until `done` holds, checking every 200 ms; false if `ms` pass first. */
async function waitUntil(done: () => Promise<boolean>, ms: number): Promise<boolean> {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    if (await done()) return true;
    await sleep(200);
  }
  return done();
}

/** The API's count of an endpoint's deliveries in a status. */
async function deliveries(node: Serve, key: string, endpointId: string, status: string): Promise<number> {
  const page = await apiOk<{ pagination: { total: number } }>(
    node.port,
    key,
    'GET',
    `/v1/webhook_endpoints/${endpointId}/deliveries?status=${status}&limit=1`,
    undefined,
    200,
  );
  return page.pagination.total;
}

/** Creates `count` clients, alternating between the nodes, 8 requests at a time. */
async function produce(nodes: Serve[], key: string, tag: string, count: number): Promise<void> {
  await inParallel(count, 8, async (i) => {
    const node = nodes[i % nodes.length] as Serve;
    const reply = await createClient(node.port, key, tag, i);
    if (reply.status !== 201) throw new Error(`POST /v1/clients on :${node.port}: ${reply.status} ${reply.text}`);
  });
}

interface PhaseResult {
  ok: boolean;
  line: string;
}

async function runDialect(dialect: 'postgres' | 'sqlite', opts: Options): Promise<PhaseResult[]> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'lightbox-webhook-outage-'));
  onCleanup(() => rm(work, { recursive: true, force: true }));
  const dbName = `lightbox_webhook_outage_${process.pid}`;
  const env = benchEnv(work, path.join(work, 'data'), 'warn', {
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_RETRY_SECONDS: RETRY_SECONDS,
    WEBHOOK_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
    WEBHOOK_ENDPOINT_CONCURRENCY: String(PER_ENDPOINT),
  });
  if (dialect === 'postgres') {
    env.DATABASE_URL = await createPgDatabase(dbName);
    onCleanup(() => dropPgDatabase(dbName));
  }
  const key = await accountWithKey(env, 'Outage Studio');
  const receiver = await startReceiver({ mode: 'refuse' });
  onCleanup(() => receiver.close());
  const port = receiver.ports[0] ?? 0;
  const nodes = [await startServe(env, path.join(work, 'a.log')), await startServe(env, path.join(work, 'b.log'))];
  const [a, b] = nodes as [Serve, Serve];
  say(`${dialect}: nodes on :${a.port} and :${b.port}; receiver on :${port}, refusing connections`);
  const seen = new Seen(receiver);
  const results: PhaseResult[] = [];

  // 1. The outage.
  const first = await createEndpoint(a.port, key, `http://${HOST}:${port}/hook/0`, ['client.created']);
  await receiver.setSecret('/hook/0', first.secret);
  await produce(nodes, key, 'outage', opts.count);
  say(`${opts.count} clients created while the receiver refuses connections`);
  await sleep(opts.phaseMs);
  await receiver.setMode('unavailable');
  // Answering 503 until every event has been attempted (and refused) at least once, and for the phase.
  const refusedAll = async (): Promise<boolean> => {
    await seen.of('/hook/0');
    return new Set(seen.all.filter((r) => r.status === 503).map((r) => r.id)).size >= opts.count;
  };
  await Promise.all([sleep(opts.phaseMs), waitUntil(refusedAll, 60_000)]);
  const unavailable = seen.all.filter((r) => r.status === 503).length;
  say(`receiver answered 503 to ${unavailable} attempts; back up`);
  await receiver.setMode('accept');
  const back = performance.now();
  const all = await waitUntil(
    async () =>
      (await seen.of('/hook/0')).delivered >= opts.count &&
      (await deliveries(a, key, first.id, 'succeeded')) >= opts.count,
    opts.deadlineMs,
  );
  const recovery = (performance.now() - back) / 1000;
  // A little longer, so that a late second delivery would still be seen.
  await sleep(all ? 3000 : 0);
  const outage = await seen.of('/hook/0');
  const succeeded = await deliveries(a, key, first.id, 'succeeded');
  const failed = await deliveries(a, key, first.id, 'failed');
  const pending = await deliveries(a, key, first.id, 'pending');
  const outageOk =
    outage.delivered === opts.count &&
    outage.duplicates === 0 &&
    outage.invalid === 0 &&
    succeeded === opts.count &&
    failed === 0;
  results.push({
    ok: outageOk,
    line: [
      `${dialect} outage: ${outageOk ? 'PASS' : 'FAIL'}`,
      `events=${opts.count} delivered=${outage.delivered} lost=${opts.count - outage.delivered}`,
      `duplicates_after_success=${outage.duplicates} invalid_signatures=${outage.invalid}`,
      `attempts=${outage.receipts}+refused 503=${unavailable}`,
      `api succeeded=${succeeded} failed=${failed} pending=${pending}`,
      `recovered_in=${recovery.toFixed(1)}s`,
    ].join(' '),
  });
  say(results.at(-1)?.line ?? '');

  // 2. A node killed in the middle of delivery.
  await apiOk(a.port, key, 'PATCH', `/v1/webhook_endpoints/${first.id}`, { enabled: false }, 200);
  const second = await createEndpoint(a.port, key, `http://${HOST}:${port}/hook/1`, ['client.created']);
  await receiver.setSecret('/hook/1', second.secret);
  await receiver.setMode('accept', 50);
  await produce(nodes, key, 'crash', opts.count);
  await waitUntil(async () => (await seen.of('/hook/1')).delivered >= opts.count * 0.3, 60_000);
  const before = (await seen.of('/hook/1')).delivered;
  b.child.proc.kill('SIGKILL');
  await b.child.exited;
  closeAgents();
  const killed = performance.now();
  say(`node :${b.port} killed (SIGKILL) with ${before} of ${opts.count} delivered`);
  await receiver.setMode('accept', 0);
  // Until the receiver has every event and the surviving node has recorded every delivery: the
  // killed node's claimed ones wait for their lease to run out, then are sent again.
  const done = await waitUntil(
    async () =>
      (await seen.of('/hook/1')).delivered >= opts.count &&
      (await deliveries(a, key, second.id, 'succeeded')) >= opts.count,
    opts.deadlineMs,
  );
  const crashRecovery = (performance.now() - killed) / 1000;
  await sleep(done ? 3000 : 0);
  const crash = await seen.of('/hook/1');
  const crashSucceeded = await deliveries(a, key, second.id, 'succeeded');
  const crashOk =
    crash.delivered === opts.count &&
    crash.invalid === 0 &&
    crash.duplicates <= PER_ENDPOINT &&
    crashSucceeded === opts.count;
  results.push({
    ok: crashOk,
    line: [
      `${dialect} kill -9: ${crashOk ? 'PASS' : 'FAIL'}`,
      `events=${opts.count} delivered=${crash.delivered} lost=${opts.count - crash.delivered}`,
      `delivered_before_kill=${before} repeated_after_success=${crash.duplicates} (at most ${PER_ENDPOINT}: at least once)`,
      `invalid_signatures=${crash.invalid} api succeeded=${crashSucceeded}`,
      `all_delivered_in=${crashRecovery.toFixed(1)}s after the kill (lease ${TIMEOUT_SECONDS + 60}s)`,
    ].join(' '),
  });
  say(results.at(-1)?.line ?? '');

  await a.child.stop(15_000);
  const { code, signal } = await a.child.exited;
  if (code !== 0) {
    results.push({ ok: false, line: `${dialect}: the surviving node exited ${String(code ?? signal)}:\n${await tail(a.logFile)}` }); // prettier-ignore
  }
  for (const node of nodes) {
    const errors = (await tail(node.logFile, 100_000)).split('\n').filter((l) => l.includes('"level":50'));
    if (errors.length > 0) say(`:${node.port} logged ${errors.length} error(s), first: ${errors[0] ?? ''}`);
  }
  await receiver.close();
  return results;
}

async function main(): Promise<number> {
  const opts = options();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`webhook-outage: ${signal}; cleaning up\n`);
      void cleanup().finally(() => process.exit(130));
    });
  }
  const results: PhaseResult[] = [];
  try {
    for (const dialect of opts.dialects) results.push(...(await runDialect(dialect, opts)));
  } finally {
    closeAgents();
    await cleanup();
  }
  const ok = results.every((r) => r.ok);
  process.stdout.write(`${results.map((r) => r.line).join('\n')}\nwebhook outage: ${ok ? 'PASS' : 'FAIL'} (${((performance.now() - started) / 1000).toFixed(0)} s)\n`); // prettier-ignore
  return ok ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`webhook-outage: error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
