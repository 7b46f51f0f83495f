// The "shoot" part of `npm run bench:analysis`: a shoot analysed end to end by the real service.
// Starts the real `lightbox serve` (SQLite, shipped defaults: ANALYSIS and ANALYSIS_OCR on), makes
// an account with a few galleries, then:
//   idle    GET /v1/listings at a steady pace (an open loop) for --idle-seconds, nothing queued;
//   upload  the shoot's photos into one gallery, a few per request;
//   busy    the same requests from the upload's end until every photo's `media.analyzed` event is
//           recorded (or its analysis failed): the job queue makes the variants, then analyses.
// The end is seen by reading (read-only) the server's own database: the events table's
// `media.analyzed` rows, so no request is added to the ones measured. The server's peak RSS is
// its VmHWM (/proc/PID/status) at the end: every model has been loaded and used by then.
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { multipart } from '../../../../test/support/media-fixtures.ts';
import { send } from './http.ts';
import { accountWithKey, benchEnv, startServe, tail } from './procs.ts';
import { listingsProbe, summary, type Latency, type Measured } from './latency.ts';
import { percentile } from './report.ts';

export interface ShootOptions {
  /** The photo files, uploaded in turn until `photos` are sent. */
  files: string[];
  photos: number;
  idleSeconds: number;
  /** GET /v1/listings per second, in both phases. */
  rate: number;
  /** Galleries the account has besides the shoot's (what GET /v1/listings lists). */
  galleries: number;
  work: string;
  log: (line: string) => void;
}

export interface ShootResult {
  photos: number;
  uploadMB: number;
  uploadSeconds: number;
  /** From the upload's end to the last `media.analyzed` (or failure). */
  analysedSeconds: number;
  analysed: number;
  failed: number;
  idle: Latency;
  busy: Latency;
  p99Ratio: number;
  /** GET /v1/listings whose kept-alive connection was reset, sent again (and timed from the first try). */
  resets: number;
  /** Server RSS once ready (before any model is loaded), its peak (VmHWM) at the end, in MiB. */
  startRssMiB: number;
  peakRssMiB: number;
}

const PER_REQUEST = 5;
const MIB = 1024 * 1024;
/** The shoot gives up after this long: something is stuck. */
const GIVE_UP_MS = 30 * 60_000;

/** A field of /proc/PID/status, in MiB (NaN off Linux or once the process is gone). */
export function statusMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return match ? (Number(match[1]) * 1024) / MIB : NaN;
  } catch {
    return NaN;
  }
}

export async function runShoot(o: ShootOptions): Promise<ShootResult> {
  const env = benchEnv(o.work, o.work, 'warn');
  const key = await accountWithKey(env, 'Analysis Bench');
  const logFile = path.join(o.work, 'serve.log');
  const { child: server, port } = await startServe(env, logFile);
  await sleep(1000);
  const startRssMiB = statusMiB(server.pid, 'VmRSS');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const ask = async (method: string, pathname: string, body?: Buffer | string, type?: string) => {
    const { status, ms, text } = await send(port, method, pathname, { agent, key, body, type });
    return { status, ms, text };
  };

  for (let i = 0; i < o.galleries; i++) {
    const made = await ask('POST', '/v1/listings', JSON.stringify({ address: `${i + 1} Bench Road` }));
    if (made.status !== 201) throw new Error(`create gallery: ${made.status} ${made.text}\n${await tail(logFile)}`);
  }
  const shoot = await ask('POST', '/v1/listings', JSON.stringify({ address: '40 Shoot Lane' }));
  if (shoot.status !== 201) throw new Error(`create gallery: ${shoot.status} ${shoot.text}`);
  const listingId = (JSON.parse(shoot.text) as { id: string }).id;

  const db = new Database(path.join(o.work, 'lightbox.db'), { readonly: true, fileMustExist: true });
  const analysedQuery = db.prepare<[], { n: number }>("select count(*) as n from events where type = 'media.analyzed'");
  const failedQuery = db.prepare<[string], { n: number }>(
    "select count(*) as n from media where listing_id = ? and analysis_status = 'failed'",
  );
  const analysed = (): number => analysedQuery.get()?.n ?? 0;
  const failed = (): number => failedQuery.get(listingId)?.n ?? 0;

  let exited = false;
  void server.exited.then(() => (exited = true));
  const probe = listingsProbe(port, key, agent, o.rate);
  /** The probe's measure, failing when the server died meanwhile. */
  async function measure(done: () => boolean): Promise<Measured> {
    const measured = await probe.measure(done);
    if (exited) throw new Error(`lightbox serve exited:\n${await tail(logFile)}`);
    return measured;
  }

  o.log(`idle: GET /v1/listings at ${o.rate}/s for ${o.idleSeconds} s ...`);
  const idleUntil = performance.now() + o.idleSeconds * 1000;
  const idle = await measure(() => performance.now() >= idleUntil);

  o.log(`uploading ${o.photos} photos, ${PER_REQUEST} per request ...`);
  const uploadStarted = performance.now();
  let uploaded = 0;
  let uploadBytes = 0;
  while (uploaded < o.photos) {
    const n = Math.min(PER_REQUEST, o.photos - uploaded);
    const parts = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const file = o.files[(uploaded + i) % o.files.length] ?? '';
        const data = await readFile(file);
        uploadBytes += data.length;
        return { filename: `shoot-${uploaded + i}.jpg`, contentType: 'image/jpeg', data };
      }),
    );
    const { body, contentType } = multipart(parts);
    const res = await ask('POST', `/v1/listings/${listingId}/media`, body, contentType);
    if (res.status !== 201) throw new Error(`upload: ${res.status} ${res.text.slice(0, 300)}\n${await tail(logFile)}`);
    uploaded += n;
  }
  const uploadEnded = performance.now();
  o.log(`  uploaded in ${((uploadEnded - uploadStarted) / 1000).toFixed(1)} s; analysing ...`);

  let ended = uploadEnded;
  let lastReport = uploadEnded;
  const busy = await measure(() => {
    const now = performance.now();
    if (exited) return true;
    if (analysed() + failed() >= o.photos) {
      ended = now;
      return true;
    }
    if (now - uploadEnded > GIVE_UP_MS) throw new Error(`the shoot was not analysed within ${GIVE_UP_MS / 60_000} min`); // prettier-ignore
    if (now - lastReport >= 15_000) {
      lastReport = now;
      o.log(`  ${((now - uploadEnded) / 1000).toFixed(0)} s: ${analysed()} analysed, ${failed()} failed`);
    }
    return false;
  });
  const result: ShootResult = {
    photos: o.photos,
    uploadMB: uploadBytes / 1e6,
    uploadSeconds: (uploadEnded - uploadStarted) / 1000,
    analysedSeconds: (ended - uploadEnded) / 1000,
    analysed: analysed(),
    failed: failed(),
    idle: summary(idle),
    busy: summary(busy),
    p99Ratio: percentile(busy.latencies, 99) / percentile(idle.latencies, 99),
    resets: probe.resets(),
    startRssMiB,
    peakRssMiB: statusMiB(server.pid, 'VmHWM'),
  };
  db.close();
  agent.destroy();
  await server.stop();
  return result;
}
