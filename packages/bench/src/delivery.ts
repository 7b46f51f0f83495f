// `npm run bench:delivery`: the client gallery (docs/api.md §14) on a real `lightbox serve`.
//
// (a) "Download all" of a 2 GiB gallery (50 originals of random bytes) over HTTP, beside the same
//     stored files read raw in the same run: by a bare node:http server (a child process, like
//     packages/bench/src/lib/bare.ts) that streams them one after another in one response (what HTTP and
//     the disk cost without Lightbox: the baseline of the 0.9x target), and by this process with
//     fs.createReadStream (the storage's own speed, for context). Rounds are interleaved; figures
//     are medians, in MB/s of the response (1 MB = 1e6 bytes). The server's RSS is sampled every
//     50 ms during its ZIP downloads against its idle RSS just before (target: under idle + 64 MB).
// (b) The gallery page of 300 photos (variants ready) against GET /v1/listings/:id/media of the
//     same gallery: one connection at a time, so the latency is the server's time plus loopback;
//     p50 and p99 medians over the rounds (target: page p50 <= 2x the API's).
//
//   node packages/bench/src/delivery.ts --help
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { photo, uploadParts, uploadStreamed } from './lib/delivery-upload.ts';
import { profileClock, profileTop, type ProfileWindow } from './lib/profile.ts';
import { fixed, median, table } from './lib/report.ts';
import {
  accountWithKey,
  benchEnv,
  cleanup,
  defaultTool,
  HOST,
  onCleanup,
  ROOT,
  runLoadChild,
  apiCaller,
  startServe,
  tail,
  track,
} from './lib/procs.ts';

const MiB = 1024 * 1024;
const MB = 1e6;

const HELP = `Usage: npm run bench:delivery -- [options]   (node packages/bench/src/delivery.ts [options])

Options:
  --rounds N      measured rounds of each part (default 3; medians are reported)
  --only PART     zip or page: run that part alone (default both)
  --files N       originals in the ZIP's gallery (default 50)
  --total MIB     their total size in MiB (default 2048)
  --photos N      photos on the page (default 300)
  --seconds S     seconds per page measurement (default 5)
  --profile       run lightbox serve with --cpu-prof and print where its time went during
                  the measured ZIP downloads only (the profile file stays with --keep)
  --keep          keep the work folder (data, log, profile) instead of removing it
  -h, --help      show this help
`;

// ---- the raw server: the stored files, one after another, in one response ----------------------
if (process.argv[2] === '--raw-child') {
  // The file list comes as a file (stdin stays open: its end tells this child to exit).
  const files = JSON.parse(readFileSync(process.argv[3] ?? '', 'utf8')) as { path: string; size: number }[];
  const size = files.reduce((sum, f) => sum + f.size, 0);
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size });
    void (async () => {
      for (const f of files)
        await pipeline(createReadStream(f.path, { highWaterMark: 256 * 1024 }), res, { end: false });
      res.end();
    })().catch((err: unknown) => res.destroy(err as Error));
  });
  server.listen(0, HOST, () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
  });
  process.stdin.resume();
  process.stdin.once('end', () => process.exit(0));
} else {
  await main().finally(cleanup);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '3' },
      seconds: { type: 'string', default: '5' },
      files: { type: 'string', default: '50' },
      total: { type: 'string', default: '2048' },
      photos: { type: 'string', default: '300' },
      only: { type: 'string' },
      profile: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  if (values.only !== undefined && values.only !== 'zip' && values.only !== 'page') {
    throw new Error(`--only takes zip or page, not ${values.only}`);
  }
  const runZip = values.only !== 'page';
  const runPage = values.only !== 'zip';
  const rounds = Number(values.rounds);
  const seconds = Number(values.seconds);
  const fileCount = Number(values.files);
  const total = Number(values.total) * MiB;
  const photoCount = Number(values.photos);

  const work = await mkdtemp(path.join(os.tmpdir(), 'lightbox-bench-delivery-'));
  if (!values.keep) onCleanup(() => rm(work, { recursive: true, force: true }));
  const dataDir = path.join(work, 'data');
  const env = benchEnv(work, dataDir, 'warn', { GALLERY_RATE_LIMIT_PER_MINUTE: '100000000' });
  const key = await accountWithKey(env, 'Bench Delivery');

  const logFile = path.join(work, 'lightbox.log');
  const profileName = 'lightbox-serve.cpuprofile';
  const profileFlags = values.profile ? ['--cpu-prof', `--cpu-prof-dir=${work}`, `--cpu-prof-name=${profileName}`] : [];
  const { child: server, port } = await startServe(env, logFile, { nodeFlags: profileFlags, publicUrl: true });
  console.log(`lightbox serve pid ${server.pid} on :${port}, data in ${dataDir}`);

  const api = apiCaller(port, key, logFile);
  /** A gallery assigned (no email) to a new client: its id and its link's path. */
  const linkedGallery = async (address: string): Promise<{ id: string; path: string }> => {
    const { id } = await api<{ id: string }>('POST', '/v1/listings', { address });
    const client = await api<{ id: string }>('POST', '/v1/clients', {
      name: 'Bench Client',
      email: `client-${randomBytes(4).toString('hex')}@lightbox.invalid`,
    });
    const assigned = await api<{ client_link: { url: string } }>(
      'POST',
      `/v1/clients/${client.id}/listings/${id}?notify=false`,
    );
    return { id, path: new URL(assigned.client_link.url).pathname };
  };

  const tool = defaultTool();
  console.log(`node ${process.version}, ${os.cpus().length} CPUs, load generator ${tool}, ${rounds} rounds (medians)`);

  // ---- (a) the ZIP of 2 GiB -----------------------------------------------------------------
  /** When the measured ZIP downloads ran, to cut the server's profile down to them. */
  const zipWindows: ProfileWindow[] = [];
  const zipPart = async (): Promise<void> => {
    const big = await linkedGallery('1 Download Lane');
    const fileSize = Math.floor(total / fileCount);
    const t = performance.now();
    const pdfHead = Buffer.from('%PDF-1.4\n%bench\n');
    for (let i = 0; i < fileCount; i++) {
      await uploadStreamed(port, key, big.id, `IMG_${String(i + 1).padStart(4, '0')}.pdf`, pdfHead, fileSize);
    }
    console.log(`(a) uploaded ${fileCount} originals, ${fixed((fileSize * fileCount) / MiB, 0)} MiB, in ${fixed((performance.now() - t) / 1000)} s`); // prettier-ignore
    const stored = await storedFiles(path.join(dataDir, 'media'), fileSize);
    if (stored.length !== fileCount) throw new Error(`found ${stored.length} stored originals, expected ${fileCount}`);

    const listFile = path.join(dataDir, 'raw-files.json');
    await writeFile(listFile, JSON.stringify(stored));
    const raw = spawn(process.execPath, [new URL(import.meta.url).pathname, '--raw-child', listFile], {
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production' },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const rawChild = track('raw server', raw);
    const [line] = (await once(raw.stdout, 'data')) as [Buffer];
    const rawPort = (JSON.parse(line.toString('utf8')) as { port: number }).port;

    const zipUrl = `http://${HOST}:${port}${big.path}/download.zip`;
    const rawUrl = `http://${HOST}:${rawPort}/`;
    await download(zipUrl); // warm-up: JIT, and the files into the page cache
    await download(rawUrl);
    await sleep(2000);
    const idle = rssMiB(server.pid);
    const rate = { zip: [] as number[], http: [] as number[], fs: [] as number[] };
    const peaks: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      let peak = rssMiB(server.pid);
      const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(server.pid))), 50);
      const window = { start: profileClock(), end: 0 };
      const z = await download(zipUrl);
      window.end = profileClock();
      zipWindows.push(window);
      clearInterval(sampler);
      peaks.push(peak);
      const h = await download(rawUrl);
      const f = await readFiles(stored);
      rate.zip.push(z.bytes / MB / z.seconds);
      rate.http.push(h.bytes / MB / h.seconds);
      rate.fs.push(f.bytes / MB / f.seconds);
      console.log(
        `  round ${round}: zip ${fixed(z.bytes / MB / z.seconds, 0)} MB/s (${z.bytes} B), raw over HTTP ${fixed(h.bytes / MB / h.seconds, 0)} MB/s, ` +
          `raw fs ${fixed(f.bytes / MB / f.seconds, 0)} MB/s; server RSS peak ${fixed(peak)} MiB (idle ${fixed(idle)} MiB)`,
      );
    }
    await rawChild.stop();

    const zipRatio = median(rate.zip) / median(rate.http);
    const rssOver = median(peaks) - idle;
    console.log(
      table([
        [`(a) ${fixed((fileSize * fileCount) / MiB, 0)} MiB, ${fileCount} originals`, 'MB/s', 'vs raw over HTTP'],
        ['ZIP via /g/<token>/download.zip', fixed(median(rate.zip), 0), `${fixed(zipRatio, 2)}x`],
        ['raw over HTTP (bare node:http)', fixed(median(rate.http), 0), '1.00x'],
        ['raw fs.createReadStream', fixed(median(rate.fs), 0), `${fixed(median(rate.fs) / median(rate.http), 2)}x`],
      ]),
    );
    console.log(
      `server RSS: idle ${fixed(idle)} MiB, peak during the ZIP ${fixed(median(peaks))} MiB (${rssOver >= 0 ? '+' : ''}${fixed(rssOver)} MiB; target < +64: ${rssOver < 64 ? 'met' : 'NOT met'})`,
    );
    console.log(`ZIP throughput target >= 0.9x raw over HTTP: ${zipRatio >= 0.9 ? 'met' : 'NOT met'}\n`);
  };

  // ---- (b) the page of 300 photos -------------------------------------------------------------
  const pagePart = async (): Promise<void> => {
    const page = await linkedGallery('300 Photo Avenue');
    const t = performance.now();
    for (let i = 0; i < photoCount; i += 100) {
      const parts = await Promise.all(Array.from({ length: Math.min(100, photoCount - i) }, (_, j) => photo(i + j)));
      await uploadParts(port, key, page.id, parts);
    }
    for (;;) {
      const list = await api<{ data: { variants: { status: string } | null }[] }>('GET', `/v1/listings/${page.id}/media`); // prettier-ignore
      const pending = list.data.filter((m) => m.variants?.status !== 'ready').length;
      if (list.data.length === photoCount && pending === 0) break;
      if (list.data.some((m) => m.variants?.status === 'failed')) throw new Error('a variant failed');
      await sleep(500);
    }
    console.log(
      `(b) ${photoCount} photos uploaded and their variants made in ${fixed((performance.now() - t) / 1000)} s`,
    );
    const pageBytes = (await (await fetch(`http://${HOST}:${port}${page.path}`)).text()).length;
    const spec = (paths: string[], headers: Record<string, string>) => ({
      url: `http://${HOST}:${port}`,
      method: 'GET' as const,
      paths,
      headers,
      connections: 1,
      seconds,
    });
    const latency = { page: [] as { p50: number; p99: number; rps: number }[], api: [] as { p50: number; p99: number; rps: number }[] }; // prettier-ignore
    await runLoadChild(spec([page.path], {}), tool, work); // warm-up
    await runLoadChild(spec([`/v1/listings/${page.id}/media`], { authorization: `Bearer ${key}` }), tool, work);
    for (let round = 1; round <= rounds; round++) {
      const p = await runLoadChild(spec([page.path], {}), tool, work);
      const a = await runLoadChild(
        spec([`/v1/listings/${page.id}/media`], { authorization: `Bearer ${key}` }),
        tool,
        work,
      );
      for (const [name, r] of [
        ['page', p],
        ['api', a],
      ] as const) {
        if (r.non2xx + r.errors + r.timeouts > 0)
          throw new Error(`${name}: ${JSON.stringify(r)}\n${await tail(logFile)}`);
        latency[name].push({ p50: r.p50, p99: r.p99, rps: r.rps });
      }
      console.log(`  round ${round}: page p50 ${fixed(p.p50, 2)} ms p99 ${fixed(p.p99, 2)} ms; API p50 ${fixed(a.p50, 2)} ms p99 ${fixed(a.p99, 2)} ms`); // prettier-ignore
    }
    const m = (list: { p50: number; p99: number; rps: number }[], k: 'p50' | 'p99' | 'rps') =>
      median(list.map((x) => x[k]));
    const pageRatio = m(latency.page, 'p50') / m(latency.api, 'p50');
    console.log(
      table([
        [`(b) ${photoCount} photos`, 'p50 ms', 'p99 ms', 'req/s'],
        [`GET /g/<token> (${pageBytes} B of HTML)`, fixed(m(latency.page, 'p50'), 2), fixed(m(latency.page, 'p99'), 2), fixed(m(latency.page, 'rps'), 0)], // prettier-ignore
        ['GET /v1/listings/:id/media', fixed(m(latency.api, 'p50'), 2), fixed(m(latency.api, 'p99'), 2), fixed(m(latency.api, 'rps'), 0)], // prettier-ignore
      ]),
    );
    console.log(`page p50 / API p50 = ${fixed(pageRatio, 2)}x (target <= 2x: ${pageRatio <= 2 ? 'met' : 'NOT met'})`);
  };

  if (runZip) await zipPart();
  if (runPage) await pagePart();
  await server.stop();

  if (values.profile && zipWindows.length > 0) {
    const file = path.join(work, profileName);
    const top = await profileTop(file, ROOT, 25, zipWindows);
    console.log('\nCPU profile of lightbox serve during the measured ZIP downloads, top self time:');
    for (const p of top.functions) console.log(`  ${fixed(p.percent).padStart(5)}%  ${p.fn}`);
    console.log('by package:');
    for (const p of top.packages.slice(0, 12)) console.log(`  ${fixed(p.percent).padStart(5)}%  ${p.fn}`);
    if (values.keep) console.log(`profile: ${file}`);
  }
}

/** The server's resident set, MiB (Linux). */
function rssMiB(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? NaN : Number(match[1]) / 1024;
  } catch {
    return NaN;
  }
}

/** Downloads a URL to nowhere: its bytes and the wall time. */
async function download(url: string): Promise<{ bytes: number; seconds: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`${url}: ${res.statusCode}`));
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.once('end', () => {
          if (bytes !== Number(res.headers['content-length'])) reject(new Error(`${url}: ${bytes} bytes, not the Content-Length`)); // prettier-ignore
          resolve({ bytes, seconds: (performance.now() - started) / 1000 });
        });
        res.once('error', reject);
      })
      .once('error', reject);
  });
}

async function readFiles(files: { path: string }[]): Promise<{ bytes: number; seconds: number }> {
  const started = performance.now();
  let bytes = 0;
  for (const f of files) {
    for await (const chunk of createReadStream(f.path, { highWaterMark: MiB })) bytes += (chunk as Buffer).length;
  }
  return { bytes, seconds: (performance.now() - started) / 1000 };
}

/** The stored files of `size` bytes under the media folder (the originals; variants are small). */
async function storedFiles(dir: string, size: number): Promise<{ path: string; size: number }[]> {
  const found: { path: string; size: number }[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const s = await stat(file);
    if (s.size === size) found.push({ path: file, size: s.size });
  }
  return found;
}
