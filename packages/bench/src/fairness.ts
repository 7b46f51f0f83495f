// `npm run bench:fairness`: does one account's flood of refused requests slow another account
// down? Starts the real `lightbox serve` (SQLite) with two accounts; the quiet one lists its
// galleries at a steady pace (--quiet-rate, 50 a second, whatever the answers take), and its
// latency is measured alone, then while the other key sends bodies that must be refused, inside
// its rate limit (--rate, 9 a second, under the default 600 a minute):
//   keys    1 MiB of JSON holding ~80,000 unknown fields (the adversarial review's body)
//   deep    arrays nested 5,000 deep in 10 KB
//   string  1 MiB of valid JSON whose one field is too long
//   accepted  a valid create (201): what an accepted request costs, for comparison
// Reported: the quiet account's p50/p90/p99 per phase, the flood's statuses, and the server's CPU
// time per flood request (measured in a half-length phase of the flood alone).
//
//   npm run bench:fairness                       10 s per phase
//   npm run bench:fairness -- --seconds 20 --rate 9 --quiet-rate 50
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { accountWithKey, cleanup, cpuSeconds, onCleanup, startServe, tail } from './lib/procs.ts';
import { send } from './lib/http.ts';
import { fixed, percentile, table } from './lib/report.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    rate: { type: 'string', default: '9' },
    'quiet-rate': { type: 'string', default: '50' },
  },
});
const SECONDS = Number(values.seconds);
const RATE = Number(values.rate);
const QUIET_RATE = Number(values['quiet-rate']);
if (!(SECONDS >= 1 && RATE > 0 && QUIET_RATE > 0)) {
  process.stderr.write('--seconds must be at least 1, --rate and --quiet-rate above 0\n');
  process.exit(2);
}

/** The flood's bodies, built once. */
function floodBodies(): Record<string, Buffer> {
  const parts: string[] = [];
  for (let i = 0, size = 2; size + 20 < 1024 * 1024; i += 1) {
    const part = `"f${i}":0`;
    parts.push(part);
    size += part.length + 1;
  }
  return {
    keys: Buffer.from(`{${parts.join(',')}}`),
    deep: Buffer.from(`{"address":${'['.repeat(5000)}"x"${']'.repeat(5000)}}`),
    string: Buffer.from(JSON.stringify({ address: 'x'.repeat(1024 * 1024 - 20) })),
    // For comparison: what an accepted write costs (201, a gallery created each time).
    accepted: Buffer.from(JSON.stringify({ address: '1 Flood Road' })),
  };
}

interface Answer {
  status: number;
  ms: number;
  body: string;
}

async function request(
  agent: http.Agent,
  port: number,
  key: string,
  method: string,
  pathname: string,
  body?: Buffer,
): Promise<Answer> {
  const { status, ms, text } = await send(port, method, pathname, { agent, key, body });
  return { status, ms, body: text };
}

interface Phase {
  name: string;
  quiet: number[];
  flood: Record<string, number>;
  floodSent: number;
  cpuMsPerFlood: number;
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'lightbox-fairness-'));
  onCleanup(() => rm(work, { recursive: true, force: true }));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? work,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATA_DIR: work,
    // The quiet account asks 50 a second, over the default 600 a minute; the flood keeps to its
    // own pace (--rate, 9 a second, inside it), so the limit is out of the way of both. The
    // limits of requests in progress stay at their defaults: they are part of what is measured.
    RATE_LIMIT_PER_MINUTE: '100000000',
  };
  const keys: string[] = [];
  for (const name of ['Quiet', 'Flood']) keys.push(await accountWithKey(env, name));
  const [quietKey = '', floodKey = ''] = keys;

  const logFile = path.join(work, 'serve.log');
  const { child: server, port } = await startServe(env, logFile);

  const quietAgent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const floodAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  for (let i = 0; i < 20; i += 1) {
    const body = Buffer.from(JSON.stringify({ address: `${i} Quiet Lane` }));
    const made = await request(quietAgent, port, quietKey, 'POST', '/v1/listings', body);
    if (made.status !== 201) throw new Error(`seeding: ${made.status} ${made.body}\n${await tail(logFile)}`);
  }

  const bodies = floodBodies();
  /** Sends the flood at its pace for `ms`, with or without the quiet account asking meanwhile. */
  async function run(body: Buffer | undefined, ms: number, quietToo: boolean) {
    const flood: Record<string, number> = {};
    let sent = 0;
    const pending: Promise<void>[] = [];
    const cpuBefore = cpuSeconds(server.pid);
    const until = performance.now() + ms;
    const ticker =
      body === undefined
        ? undefined
        : setInterval(() => {
            sent += 1;
            pending.push(
              request(floodAgent, port, floodKey, 'POST', '/v1/listings', body).then(
                (a) => void (flood[a.status] = (flood[a.status] ?? 0) + 1),
                () => void (flood.error = (flood.error ?? 0) + 1),
              ),
            );
          }, 1000 / RATE);
    // The quiet account asks at its own steady pace whatever the answers take (an open loop: a
    // stalled server shows in every request that waited, not as fewer requests).
    const quiet: number[] = [];
    const asked: Promise<void>[] = [];
    const quietTicker = quietToo
      ? setInterval(() => {
          asked.push(
            request(quietAgent, port, quietKey, 'GET', '/v1/listings').then((answer) => {
              if (answer.status !== 200) throw new Error(`the quiet account got ${answer.status}: ${answer.body}`);
              quiet.push(answer.ms);
            }),
          );
        }, 1000 / QUIET_RATE)
      : undefined;
    await sleep(Math.max(0, until - performance.now()));
    if (ticker !== undefined) clearInterval(ticker);
    if (quietTicker !== undefined) clearInterval(quietTicker);
    await Promise.all([...pending, ...asked]);
    const cpuMs = (cpuSeconds(server.pid) - cpuBefore) * 1000;
    return { flood, sent, quiet: quiet.sort((a, b) => a - b), cpuMs };
  }

  const phases: Phase[] = [];
  for (const name of ['alone', ...Object.keys(bodies)]) {
    const body = bodies[name];
    // The flood alone first, for the server's CPU time per flood request; then with the quiet account.
    const solo = body === undefined ? undefined : await run(body, (SECONDS * 1000) / 2, false);
    const both = await run(body, SECONDS * 1000, true);
    phases.push({
      name,
      quiet: both.quiet,
      flood: both.flood,
      floodSent: both.sent,
      cpuMsPerFlood: solo === undefined ? NaN : solo.cpuMs / solo.sent,
    });
    console.log(`  ${name}: ${both.quiet.length} quiet requests, ${both.sent} flood requests`);
    await sleep(500);
  }
  quietAgent.destroy();
  floodAgent.destroy();

  console.log(`\nThe quiet account's GET /v1/listings (ms), ${QUIET_RATE}/s, while the other key sends ${RATE}/s:\n`);
  console.log(
    table([
      ['flood', 'quiet requests', 'p50', 'p90', 'p99', 'flood answers', 'server CPU ms per flood request'],
      ...phases.map((p) => [
        p.name,
        String(p.quiet.length),
        fixed(percentile(p.quiet, 50), 2),
        fixed(percentile(p.quiet, 90), 2),
        fixed(percentile(p.quiet, 99), 2),
        Object.entries(p.flood)
          .map(([status, n]) => `${status}×${n}`)
          .join(' ') || '-',
        fixed(p.cpuMsPerFlood, 2),
      ]),
    ]),
  );
}

try {
  await main();
} finally {
  await cleanup();
}
