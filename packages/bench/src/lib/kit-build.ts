// The "build" part of `npm run bench:kit`: a whole listing kit built by the real service while the
// API is asked for the account's galleries. Starts the real `lightbox serve` (SQLite, shipped
// defaults but ANALYSIS=off: the kit, not the analysis, is measured), makes an account with a few
// galleries and one active gallery of --photos photos, waits for their variants, then:
//   idle   GET /v1/listings at a steady pace (an open loop) for --idle-seconds, nothing queued;
//   build  POST /v1/listings/:id/kit, and the same requests until the kit is ready (or failed),
//          seen by reading (read-only) the server's own database, so no request is added.
// Peak RSS of the server and of its largest child (ffmpeg) are sampled every 100 ms meanwhile.
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { multipart } from '../../../../test/support/media-fixtures.ts';
import { send } from './http.ts';
import { listingsProbe, summary, type Latency, type Measured } from './latency.ts';
import { accountWithKey, benchEnv, startServe, tail } from './procs.ts';
import { percentile } from './report.ts';

export interface KitBuildOptions {
  /** The photo files, uploaded in turn until `photos` are sent. */
  files: string[];
  photos: number;
  idleSeconds: number;
  /** GET /v1/listings per second, in both phases. */
  rate: number;
  /** Galleries the account has besides the kit's (what GET /v1/listings lists). */
  galleries: number;
  work: string;
  log: (line: string) => void;
}

export interface KitBuildResult {
  photos: number;
  /** From POST .../kit to the kit's `ready` (or `failed`). */
  buildSeconds: number;
  status: string;
  idle: Latency;
  busy: Latency;
  p99Ratio: number;
  resets: number;
  /** The server's RSS at its peak while building, and its largest child's (ffmpeg), in MiB. */
  serverPeakMiB: number;
  childPeakMiB: number;
}

const PER_REQUEST = 5;
const MIB = 1024 * 1024;
/** The build gives up after this long: something is stuck. */
const GIVE_UP_MS = 60 * 60_000;

/** A memory field of /proc/PID/status in bytes, 0 once the process is gone. */
async function statusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  try {
    const text = await readFile(`/proc/${pid}/status`, 'latin1');
    return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(text)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** The processes below `pid` (the bounding shells, their ffmpeg), from each one's children file. */
async function descendantsOf(pid: number): Promise<number[]> {
  let children: number[];
  try {
    const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'latin1');
    children = text
      .split(' ')
      .filter((p) => p !== '')
      .map(Number);
  } catch {
    return [];
  }
  const below = await Promise.all(children.map((child) => descendantsOf(child)));
  return [...children, ...below.flat()];
}

export async function runKitBuild(o: KitBuildOptions): Promise<KitBuildResult> {
  const env = benchEnv(o.work, o.work, 'warn', { ANALYSIS: 'off' });
  const key = await accountWithKey(env, 'Kit Bench');
  const logFile = path.join(o.work, 'serve.log');
  const { child: server, port } = await startServe(env, logFile);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const ask = async (method: string, pathname: string, body?: Buffer | string, type?: string) =>
    send(port, method, pathname, { agent, key, body, type });
  const must = async (what: string, status: number, answer: Promise<{ status: number; text: string }>) => {
    const got = await answer;
    if (got.status !== status) throw new Error(`${what}: ${got.status} ${got.text.slice(0, 300)}\n${await tail(logFile)}`); // prettier-ignore
    return got.text;
  };

  for (let i = 0; i < o.galleries; i++) {
    await must('create gallery', 201, ask('POST', '/v1/listings', JSON.stringify({ address: `${i + 1} Bench Road` })));
  }
  const facts = { address: '12 Harbour Street, Portland', beds: 4, baths: 3, sqft: 2450, status: 'active' };
  const made = await must('create gallery', 201, ask('POST', '/v1/listings', JSON.stringify(facts)));
  const listingId = (JSON.parse(made) as { id: string }).id;

  o.log(`uploading ${o.photos} photos ...`);
  for (let sent = 0; sent < o.photos; sent += PER_REQUEST) {
    const n = Math.min(PER_REQUEST, o.photos - sent);
    const parts = await Promise.all(
      Array.from({ length: n }, async (_, i) => ({
        filename: `kit-${sent + i}.jpg`,
        contentType: 'image/jpeg',
        data: await readFile(o.files[(sent + i) % o.files.length] ?? ''),
      })),
    );
    const { body, contentType } = multipart(parts);
    await must('upload', 201, ask('POST', `/v1/listings/${listingId}/media`, body, contentType));
  }

  const db = new Database(path.join(o.work, 'lightbox.db'), { readonly: true, fileMustExist: true });
  const readyQuery = db.prepare<[string], { n: number }>(
    "select count(*) as n from media where listing_id = ? and variants_status = 'ready'",
  );
  const kitQuery = db.prepare<[string], { status: string }>('select status from listing_kits where listing_id = ?');
  const waitedFrom = performance.now();
  while ((readyQuery.get(listingId)?.n ?? 0) < o.photos) {
    if (performance.now() - waitedFrom > GIVE_UP_MS) throw new Error('the photos were not ready in time');
    await sleep(500);
  }
  o.log('  variants ready');

  let exited = false;
  void server.exited.then(() => (exited = true));
  const probe = listingsProbe(port, key, agent, o.rate);
  async function measure(done: () => boolean): Promise<Measured> {
    const measured = await probe.measure(done);
    if (exited) throw new Error(`lightbox serve exited:\n${await tail(logFile)}`);
    return measured;
  }

  o.log(`idle: GET /v1/listings at ${o.rate}/s for ${o.idleSeconds} s ...`);
  const idleUntil = performance.now() + o.idleSeconds * 1000;
  const idle = await measure(() => performance.now() >= idleUntil);

  o.log('building the kit ...');
  let serverPeak = 0;
  let childPeak = 0;
  // Sampled with asynchronous reads of the server's own process tree only: a synchronous walk of
  // /proc here would hold this process's event loop and add its milliseconds to the latencies.
  let sampling = false;
  const sampler = setInterval(() => {
    if (sampling) return;
    sampling = true;
    void (async () => {
      serverPeak = Math.max(serverPeak, await statusBytes(server.pid, 'VmRSS'));
      for (const pid of await descendantsOf(server.pid))
        childPeak = Math.max(childPeak, await statusBytes(pid, 'VmHWM'));
    })().finally(() => (sampling = false));
  }, 250);
  const started = performance.now();
  let ended = started;
  let status = 'building';
  let lastReport = started;
  await must('build the kit', 202, ask('POST', `/v1/listings/${listingId}/kit`));
  const busy = await measure(() => {
    const now = performance.now();
    status = kitQuery.get(listingId)?.status ?? 'none';
    if (exited || status === 'ready' || status === 'failed') {
      ended = now;
      return true;
    }
    if (now - started > GIVE_UP_MS) throw new Error(`the kit was not built within ${GIVE_UP_MS / 60_000} min`);
    if (now - lastReport >= 15_000) {
      lastReport = now;
      o.log(`  ${((now - started) / 1000).toFixed(0)} s: ${status}`);
    }
    return false;
  });
  clearInterval(sampler);
  const result: KitBuildResult = {
    photos: o.photos,
    buildSeconds: (ended - started) / 1000,
    status,
    idle: summary(idle),
    busy: summary(busy),
    p99Ratio: percentile(busy.latencies, 99) / percentile(idle.latencies, 99),
    resets: probe.resets(),
    serverPeakMiB: serverPeak / MIB,
    childPeakMiB: childPeak / MIB,
  };
  db.close();
  agent.destroy();
  await server.stop();
  return result;
}
