// The "beside the API" part of `npm run bench:variants`: does making variants starve the API?
// Starts the real `lightbox serve` (SQLite, the shipped VARIANT_* defaults unless the caller's
// environment sets them), uploads --api-photos photos (distinct 12-24 MP camera-like JPEGs from
// test/support/photos.ts, each sent several times) into one gallery, and lets the service make
// their variants. Then, round by round:
//   idle    GET /v1/listings/:id/media at a steady pace (an open loop: a stalled server shows in
//           every request that waited) for --api-seconds, with no variant work queued;
//   busy    `lightbox media variants --all` queues every photo again, and the same requests run
//           until the service has made them all (the variants job's rows are gone).
// Reported per round and as medians: p50/p99 of both phases and their ratio, the server's RSS
// (median while idle, peak while busy, sampled from /proc every 100 ms), and photos (and
// variants) made per second.
import http from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { multipart } from '../../../../test/support/media-fixtures.ts';
import { photoLikeJpeg } from '../../../../test/support/photos.ts';
import { send } from './http.ts';
import { lightboxCli, startServe, tail } from './procs.ts';
import { median, percentile } from './report.ts';

export interface ApiOptions {
  photos: number;
  rounds: number;
  /** Length of each idle phase. */
  seconds: number;
  /** Requests per second to the media list, in both phases. */
  rate: number;
  work: string;
  log: (line: string) => void;
}

interface ApiRound {
  round: number;
  idle: { p50: number; p99: number; requests: number; rssMB: number };
  busy: { p50: number; p99: number; requests: number; peakRssMB: number; seconds: number; photosPerSecond: number };
  p99Ratio: number;
}

export interface ApiSummary {
  photos: number;
  megapixels: number[];
  uploadMB: number;
  /** The server's RSS once ready, before any upload. */
  startRssMB: number;
  firstPass: { seconds: number; photosPerSecond: number };
  rounds: ApiRound[];
  medians: {
    idleP50: number;
    idleP99: number;
    busyP50: number;
    busyP99: number;
    p99Ratio: number;
    idleRssMB: number;
    busyPeakRssMB: number;
    photosPerSecond: number;
    variantsPerSecond: number;
  };
}

/** Distinct sizes, 12 to 24 megapixels, 3:2 and 4:3. */
const SIZES: [number, number][] = [
  [4000, 3000],
  [4899, 3266],
  [5472, 3648],
  [6000, 4000],
];
const DISTINCT = 16;
const PER_REQUEST = 10;
const MB = 1e6;

function rssMB(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return match ? Number(match[1]) / 1000 : NaN;
  } catch {
    return NaN;
  }
}

async function request(
  agent: http.Agent,
  port: number,
  key: string,
  method: string,
  pathname: string,
  body?: Buffer,
  type?: string,
): Promise<{ status: number; ms: number; body: string }> {
  const { status, ms, text } = await send(port, method, pathname, { agent, key, body, type });
  return { status, ms, body: text };
}

export async function runApiBench(o: ApiOptions): Promise<ApiSummary> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? o.work,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATA_DIR: o.work,
    RATE_LIMIT_PER_MINUTE: '100000000',
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('VARIANT_'))),
  };
  const email = 'variants@bench.test';
  const made = await lightboxCli(['accounts', 'create', '--name', 'Bench', '--email', email], env, 'bench password 1\n'); // prettier-ignore
  if (made.code !== 0) throw new Error(`accounts create: ${made.stderr}`);
  const keyRun = await lightboxCli(['keys', 'create', '--account', email, '--name', 'bench'], env);
  if (keyRun.code !== 0) throw new Error(`keys create: ${keyRun.stderr}`);
  const key = keyRun.stdout.trim();

  o.log(`generating ${DISTINCT} distinct photos of 12-24 MP ...`);
  const distinct: Buffer[] = [];
  const megapixels: number[] = [];
  for (let i = 0; i < DISTINCT; i++) {
    const [w, h] = SIZES[i % SIZES.length] ?? [6000, 4000];
    distinct.push(await photoLikeJpeg(w, h));
    megapixels.push(Math.round((w * h) / 1e5) / 10);
  }

  const logFile = path.join(o.work, 'serve.log');
  const { child: server, port } = await startServe(env, logFile);
  await sleep(1000);
  const startRssMB = rssMB(server.pid);
  // The queue's depth, read (read-only) from the database the server uses: asking the API for
  // it would add requests to the ones measured, and no endpoint reports the queue.
  const db = new Database(path.join(o.work, 'lightbox.db'), { readonly: true, fileMustExist: true });
  const queued = db.prepare<[], { n: number }>("select count(*) as n from jobs where kind = 'media.variants'");
  const pendingJobs = (): number => queued.get()?.n ?? 0;

  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const gallery = await request(agent, port, key, 'POST', '/v1/listings', Buffer.from('{"address":"1 Bench Road"}'));
  if (gallery.status !== 201) throw new Error(`create gallery: ${gallery.status} ${gallery.body}`);
  const listingId = (JSON.parse(gallery.body) as { id: string }).id;

  o.log(`uploading ${o.photos} photos, ${PER_REQUEST} per request, and making their variants ...`);
  const firstStarted = performance.now();
  let uploaded = 0;
  let uploadBytes = 0;
  while (uploaded < o.photos) {
    const n = Math.min(PER_REQUEST, o.photos - uploaded);
    const parts = Array.from({ length: n }, (_, i) => {
      const data = distinct[(uploaded + i) % distinct.length] ?? Buffer.alloc(0);
      uploadBytes += data.length;
      return { filename: `photo-${uploaded + i}.jpg`, contentType: 'image/jpeg', data };
    });
    const { body, contentType } = multipart(parts);
    const res = await request(agent, port, key, 'POST', `/v1/listings/${listingId}/media`, body, contentType);
    if (res.status !== 201) throw new Error(`upload: ${res.status} ${res.body.slice(0, 300)}\n${await tail(logFile)}`);
    uploaded += n;
  }
  while (pendingJobs() > 0) await sleep(200);
  const firstSeconds = (performance.now() - firstStarted) / 1000;
  o.log(`  uploaded and made in ${firstSeconds.toFixed(1)} s`);

  const mediaPath = `/v1/listings/${listingId}/media`;
  /** Asks at a steady pace until `done()` says stop; returns the latencies and the RSS samples. */
  async function measure(done: () => boolean) {
    const latencies: number[] = [];
    const rss: number[] = [];
    const asked: Promise<void>[] = [];
    const ticker = setInterval(() => {
      asked.push(
        request(agent, port, key, 'GET', mediaPath).then((answer) => {
          if (answer.status !== 200) throw new Error(`GET media: ${answer.status} ${answer.body.slice(0, 200)}`);
          latencies.push(answer.ms);
        }),
      );
    }, 1000 / o.rate);
    const sampler = setInterval(() => rss.push(rssMB(server.pid)), 100);
    while (!done()) await sleep(100);
    clearInterval(ticker);
    clearInterval(sampler);
    await Promise.all(asked);
    return { latencies: latencies.sort((a, b) => a - b), rss };
  }

  const rounds: ApiRound[] = [];
  for (let round = 1; round <= o.rounds; round++) {
    const idleUntil = performance.now() + o.seconds * 1000;
    const idle = await measure(() => performance.now() >= idleUntil);
    const remake = await lightboxCli(['media', 'variants', '--all'], env);
    if (remake.code !== 0) throw new Error(`media variants --all: ${remake.stderr}`);
    const busyStarted = performance.now();
    const busy = await measure(() => pendingJobs() === 0);
    const seconds = (performance.now() - busyStarted) / 1000;
    const r: ApiRound = {
      round,
      idle: {
        p50: percentile(idle.latencies, 50),
        p99: percentile(idle.latencies, 99),
        requests: idle.latencies.length,
        rssMB: median(idle.rss),
      },
      busy: {
        p50: percentile(busy.latencies, 50),
        p99: percentile(busy.latencies, 99),
        requests: busy.latencies.length,
        peakRssMB: Math.max(...busy.rss),
        seconds,
        photosPerSecond: o.photos / seconds,
      },
      p99Ratio: percentile(busy.latencies, 99) / percentile(idle.latencies, 99),
    };
    rounds.push(r);
    o.log(`  round ${round}: idle p50 ${r.idle.p50.toFixed(1)} p99 ${r.idle.p99.toFixed(1)} ms, RSS ${r.idle.rssMB.toFixed(0)} MB | busy p50 ${r.busy.p50.toFixed(1)} p99 ${r.busy.p99.toFixed(1)} ms, peak RSS ${r.busy.peakRssMB.toFixed(0)} MB, ${r.busy.photosPerSecond.toFixed(2)} photos/s (${seconds.toFixed(0)} s)`); // prettier-ignore
  }
  db.close();
  agent.destroy();
  await server.stop();

  const med = (f: (r: ApiRound) => number): number => median(rounds.map(f));
  const photosPerSecond = med((r) => r.busy.photosPerSecond);
  return {
    photos: o.photos,
    megapixels: [...new Set(megapixels)],
    uploadMB: uploadBytes / MB,
    startRssMB,
    firstPass: { seconds: firstSeconds, photosPerSecond: o.photos / firstSeconds },
    rounds,
    medians: {
      idleP50: med((r) => r.idle.p50),
      idleP99: med((r) => r.idle.p99),
      busyP50: med((r) => r.busy.p50),
      busyP99: med((r) => r.busy.p99),
      p99Ratio: med((r) => r.p99Ratio),
      idleRssMB: med((r) => r.idle.rssMB),
      busyPeakRssMB: med((r) => r.busy.peakRssMB),
      photosPerSecond,
      variantsPerSecond: photosPerSecond * 3,
    },
  };
}
