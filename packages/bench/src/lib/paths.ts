// The paths added since the core bench (issue 17), measured by `npm run bench` on the same seeded
// server as the core endpoints, each beside its own baseline in the same run, round by round:
//   variants  photos uploaded through the API until their three variants are ready (the queue,
//             the job, makeVariants) vs the bare sharp script (packages/bench/src/lib/variants-work.ts) on
//             the same files;
//   gallery   the gallery page GET /g/<token> vs GET /v1/listings/:id/media of the same gallery
//             (the page is also a core endpoint, against the bare server);
//   zip       GET /g/<token>/download.zip vs a bare node:http server streaming the same stored
//             files one after another (delivery.ts --raw-child);
//   webhooks  POST /v1/listings by an account with 3 subscribed endpoints vs one with none (the
//             fan-out's cost on the write), and the backlog's delivery rate after each run;
//   upload    a tus upload (docs/api.md §16; skipped, saying so, where the route is absent) vs the
//             multipart upload of the same bytes.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { readdir, stat, mkdir, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { photoLikeJpeg } from '../../../../test/support/photos.ts';
import { apiOk, createEndpoint } from './api.ts';
import { accountWithKey, HOST, ROOT, runLoadChild, track, type LoadTool } from './procs.ts';
import { startReceiverChild, takeAccepted, type Receipt } from './receiver.ts';
import { fixed, median } from './report.ts';
import type { WorkResult } from './variants-work.ts';

const MB = 1e6;
const MiB = 1024 * 1024;

export interface PathsContext {
  port: number;
  key: string;
  env: NodeJS.ProcessEnv;
  dataDir: string;
  work: string;
  tool: LoadTool;
  rounds: number;
  seconds: number;
  quick: boolean;
  log: (line: string) => void;
}

/** One new path beside its baseline: medians of the rounds, ratio = the median of per-round ratios. */
export interface PathRow {
  size: string;
  name: string;
  label: string;
  unit: string;
  value: number;
  baseline: string;
  baselineValue: number;
  ratio: number;
  note: string;
  rounds: { value: number; baselineValue: number }[];
}

export interface GalleryFixture {
  listingId: string;
  /** The link's path, /g/<token>. */
  linkPath: string;
  photos: number;
}

const row = (size: string, r: Omit<PathRow, 'size' | 'value' | 'baselineValue' | 'ratio'>): PathRow => ({
  size,
  ...r,
  value: median(r.rounds.map((x) => x.value)),
  baselineValue: median(r.rounds.map((x) => x.baselineValue)),
  ratio: median(r.rounds.map((x) => x.value / x.baselineValue)),
});

/** Multipart upload of parts to a gallery (field `files`), resolves with the created media ids. */
async function uploadParts(
  ctx: PathsContext,
  listingId: string,
  parts: { name: string; type: string; data: Buffer }[],
) {
  const boundary = `bench${randomBytes(8).toString('hex')}`;
  const body = Buffer.concat([
    ...parts.flatMap((p) => [
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${p.name}"\r\nContent-Type: ${p.type}\r\n\r\n`), // prettier-ignore
      p.data,
      Buffer.from('\r\n'),
    ]),
    Buffer.from(`--${boundary}--\r\n`),
  ]);
  const reply = await send(ctx.port, 'POST', `/v1/listings/${listingId}/media`, {
    authorization: `Bearer ${ctx.key}`,
    'content-type': `multipart/form-data; boundary=${boundary}`,
  }, body); // prettier-ignore
  if (reply.status !== 201) throw new Error(`upload: ${reply.status} ${reply.text.slice(0, 300)}`);
  return (JSON.parse(reply.text) as { data: { id: string }[] }).data.map((m) => m.id);
}

interface Sent {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

function send(
  port: number,
  method: string,
  pathname: string,
  headers: http.OutgoingHttpHeaders,
  body?: Buffer,
): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: HOST,
        port,
        method,
        path: pathname,
        agent: false,
        headers: { ...headers, 'content-length': body?.length ?? 0 },
      },
      (res) => {
        // prettier-ignore
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        res.once('error', reject);
      },
    );
    req.once('error', reject);
    Readable.from(body === undefined ? [] : [body]).pipe(req);
  });
}

/** Waits until every listed photo of a gallery has its variants ready. */
async function variantsReady(ctx: PathsContext, listingId: string, ids: string[], limitMs = 300_000): Promise<void> {
  const wanted = new Set(ids);
  const started = performance.now();
  for (;;) {
    const list = await apiOk<{ data: { id: string; variants: { status: string } | null }[] }>(ctx.port, ctx.key, 'GET', `/v1/listings/${listingId}/media`, undefined, 200); // prettier-ignore
    const mine = list.data.filter((m) => wanted.has(m.id));
    if (mine.some((m) => m.variants?.status === 'failed')) throw new Error('a variant failed');
    if (mine.length === wanted.size && mine.every((m) => m.variants?.status === 'ready')) return;
    if (performance.now() - started > limitMs) throw new Error('variants not ready in time');
    await sleep(25);
  }
}

/** The bare sharp script on a folder of photos, in a child process (packages/bench/src/lib/variants-work.ts). */
async function bareVariants(photos: string, out: string): Promise<WorkResult> {
  const worker = path.join(ROOT, 'packages', 'bench', 'src', 'lib', 'variants-work.ts');
  const child = track('variants bare', spawn(process.execPath, [worker, '--child', 'bare', photos, out, '1', '1'], { stdio: ['ignore', 'pipe', 'pipe'] })); // prettier-ignore
  let stdout = '';
  let stderr = '';
  child.proc.stdout?.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.proc.stderr?.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const [code] = (await once(child.proc, 'close')) as [number | null];
  await rm(out, { recursive: true, force: true });
  if (code !== 0) throw new Error(`variants bare exited with ${String(code)}: ${stderr.trim()}`);
  return JSON.parse(stdout.trim()) as WorkResult;
}

/**
 * The gallery the other paths use: a client link, and `perRound` photos (2400x1600 camera-like
 * JPEGs) uploaded each round, whose variant generation is timed against the bare sharp script.
 */
export async function variantsAndGallery(
  ctx: PathsContext,
  size: string,
): Promise<{ fixture: GalleryFixture; row: PathRow }> {
  const { id: listingId } = await apiOk<{ id: string }>(ctx.port, ctx.key, 'POST', '/v1/listings', { address: '1 Bench Gallery Way', status: 'active' }, 201); // prettier-ignore
  const client = await apiOk<{ id: string }>(ctx.port, ctx.key, 'POST', '/v1/clients', { name: 'Bench Gallery Client', email: `gallery-${randomBytes(4).toString('hex')}@bench.invalid` }, 201); // prettier-ignore
  const assigned = await apiOk<{ client_link: { url: string } }>(ctx.port, ctx.key, 'POST', `/v1/clients/${client.id}/listings/${listingId}?notify=false`, undefined, 200); // prettier-ignore
  const linkPath = new URL(assigned.client_link.url).pathname;
  const perRound = ctx.quick ? 4 : 8;
  const [width, height] = ctx.quick ? [1600, 1067] : [2400, 1600];
  const rounds: PathRow['rounds'] = [];
  for (let round = 1; round <= ctx.rounds; round++) {
    const dir = path.join(ctx.work, `photos-${size}-${round}`);
    await mkdir(dir, { recursive: true });
    const parts = [];
    for (let i = 0; i < perRound; i++) {
      const data = await photoLikeJpeg(width, height);
      const name = `bench-${round}-${i}.jpg`;
      await writeFile(path.join(dir, name), data);
      parts.push({ name, type: 'image/jpeg', data });
    }
    const ids = await uploadParts(ctx, listingId, parts);
    const started = performance.now();
    await variantsReady(ctx, listingId, ids);
    const served = perRound / ((performance.now() - started) / 1000);
    const bare = await bareVariants(dir, path.join(ctx.work, `variants-out-${size}-${round}`));
    rounds.push({ value: served, baselineValue: bare.photos / bare.seconds });
    ctx.log(`  variants round ${round}: ${perRound} photos ${width}x${height}, lightbox serve ${fixed(served, 2)} photos/s (upload to ready), bare sharp ${fixed(bare.photos / bare.seconds, 2)} photos/s`); // prettier-ignore
  }
  return {
    fixture: { listingId, linkPath, photos: perRound * ctx.rounds },
    row: row(size, { name: 'variants', label: `variant generation (3 variants, ${width}x${height} JPEG)`, unit: 'photos/s', baseline: 'bare sharp script, same files', note: 'from the upload answer to all ready, through the queue', rounds }), // prettier-ignore
  };
}

/** Downloads a URL to nowhere, again and again for `seconds` at one connection: MB/s. */
async function downloadRate(url: string, seconds: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const started = performance.now();
  let bytes = 0;
  try {
    while (performance.now() - started < seconds * 1000) {
      bytes += await new Promise<number>((resolve, reject) => {
        http
          .get(url, { agent }, (res) => {
            if (res.statusCode !== 200) reject(new Error(`${url}: ${res.statusCode}`));
            let n = 0;
            res.on('data', (c: Buffer) => (n += c.length));
            res.once('end', () => resolve(n));
            res.once('error', reject);
          })
          .once('error', reject);
      });
    }
  } finally {
    agent.destroy();
  }
  return bytes / MB / ((performance.now() - started) / 1000);
}

/** The gallery's ZIP vs the same stored originals streamed raw by a bare node:http server. */
export async function zipRow(ctx: PathsContext, size: string, fixture: GalleryFixture): Promise<PathRow> {
  const list = await apiOk<{ data: { id: string }[] }>(ctx.port, ctx.key, 'GET', `/v1/listings/${fixture.listingId}/media`, undefined, 200); // prettier-ignore
  const ids = new Set(list.data.map((m) => m.id));
  const files: { path: string; size: number }[] = [];
  for (const entry of await readdir(path.join(ctx.dataDir, 'media'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !ids.has(entry.name) || !entry.parentPath.endsWith(fixture.listingId)) continue;
    const file = path.join(entry.parentPath, entry.name);
    files.push({ path: file, size: (await stat(file)).size });
  }
  if (files.length !== ids.size) throw new Error(`zip: found ${files.length} stored originals, expected ${ids.size}`);
  const listFile = path.join(ctx.work, `raw-files-${size}.json`);
  await writeFile(listFile, JSON.stringify(files));
  const proc = spawn(
    process.execPath,
    [path.join(ROOT, 'packages', 'bench', 'src', 'delivery.ts'), '--raw-child', listFile],
    {
      // Its response gains a listener set per file piped (MaxListenersExceededWarning): harmless.
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', NODE_NO_WARNINGS: '1' },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const raw = track('raw server', proc);
  const [line] = (await once(proc.stdout, 'data')) as [Buffer];
  const rawUrl = `http://${HOST}:${(JSON.parse(line.toString('utf8')) as { port: number }).port}/`;
  const zipUrl = `http://${HOST}:${ctx.port}${fixture.linkPath}/download.zip`;
  const seconds = Math.max(1, ctx.seconds / 2);
  await downloadRate(zipUrl, 0.5); // warm-up
  await downloadRate(rawUrl, 0.5);
  const rounds: PathRow['rounds'] = [];
  for (let round = 1; round <= ctx.rounds; round++) {
    const z = await downloadRate(zipUrl, seconds);
    const r = await downloadRate(rawUrl, seconds);
    rounds.push({ value: z, baselineValue: r });
    ctx.log(`  zip round ${round}: ZIP ${fixed(z, 0)} MB/s, raw over HTTP ${fixed(r, 0)} MB/s`);
  }
  await raw.stop();
  const total = files.reduce((s, f) => s + f.size, 0);
  return row(size, { name: 'zip', label: `ZIP download (${files.length} photos, ${fixed(total / MB)} MB)`, unit: 'MB/s', baseline: 'the same files raw over bare node:http', note: '1 connection, downloads back to back', rounds }); // prettier-ignore
}

/** Creates by an account with 3 subscribed endpoints vs by one with none, and the backlog's delivery. */
export async function webhookRows(ctx: PathsContext, size: string): Promise<PathRow[]> {
  const receiver = await startReceiverChild({ ports: 3 });
  const plainKey = await accountWithKey(ctx.env, `Bench plain ${size}`);
  const hookedKey = await accountWithKey(ctx.env, `Bench hooked ${size}`);
  const endpoints: string[] = [];
  for (let i = 0; i < 3; i++) {
    const hookPath = `/hooked/${i}`;
    const endpoint = await createEndpoint(ctx.port, hookedKey, `http://${HOST}:${receiver.ports[i] ?? 0}${hookPath}`, ['listing.created']); // prettier-ignore
    await receiver.setSecret(hookPath, endpoint.secret);
    endpoints.push(endpoint.id);
  }
  const body = JSON.stringify({ address: '9 Webhook Row, Springfield, IL 62704', beds: 3, baths: 2, sqft: 1500 });
  const load = (key: string, seconds: number) =>
    runLoadChild({ url: `http://${HOST}:${ctx.port}`, method: 'POST', paths: ['/v1/listings'], headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body, connections: 50, seconds }, ctx.tool, ctx.work); // prettier-ignore
  const received: Receipt[] = [];
  /** Waits for the 3 deliveries of each create; the backlog is what arrived after the writes ended. */
  const drain = async (creates: number, end: number): Promise<{ backlog: number; rate: number }> => {
    const accepted = await takeAccepted(receiver, creates * 3, { label: 'webhooks', limitMs: 120_000, seen: (r) => received.push(...r) }); // prettier-ignore
    const after = accepted.filter((r) => r.at > end);
    const last = Math.max(end, ...after.map((r) => r.at));
    return { backlog: after.length, rate: after.length / Math.max(0.001, (last - end) / 1000) };
  };
  await load(plainKey, 1);
  const warm = await load(hookedKey, 1);
  await drain(warm.requests, Date.now());
  const seconds = Math.max(1, ctx.seconds - 1);
  const writes: PathRow['rounds'] = [];
  const drains: PathRow['rounds'] = [];
  for (let round = 1; round <= ctx.rounds; round++) {
    const plain = await load(plainKey, seconds);
    const hooked = await load(hookedKey, seconds);
    const d = await drain(hooked.requests, Date.now());
    const errors = plain.errors + plain.non2xx + plain.timeouts + hooked.errors + hooked.non2xx + hooked.timeouts;
    if (errors > 0) throw new Error(`webhooks: ${errors} errors under load`);
    writes.push({ value: hooked.rps, baselineValue: plain.rps });
    // The drain's own baseline: the rate the writes made deliveries (3 per create) while it ran.
    drains.push({ value: d.rate, baselineValue: hooked.rps * 3 });
    ctx.log(`  webhooks round ${round}: create ${fixed(plain.rps, 0)} req/s (no endpoint), ${fixed(hooked.rps, 0)} req/s (3 endpoints); backlog ${d.backlog} delivered at ${fixed(d.rate, 0)}/s`); // prettier-ignore
  }
  const tally = [...received, ...(await receiver.take())];
  const forged = tally.filter((r) => !r.valid).length;
  await receiver.close();
  if (forged > 0) throw new Error(`webhooks: ${forged} deliveries failed signature verification`);
  return [
    row(size, { name: 'webhooks', label: 'create gallery, 3 webhook endpoints (fan-out)', unit: 'req/s', baseline: 'create gallery, no endpoint', note: `wrk -c50; ${tally.length} deliveries received, all verified`, rounds: writes }), // prettier-ignore
    row(size, { name: 'deliveries', label: 'webhook deliveries after the writes', unit: 'deliveries/s', baseline: 'deliveries made by the writes, per s', note: 'API idle; receiver in its own process', rounds: drains }), // prettier-ignore
  ];
}

/** A tus upload (creation, then one PATCH) vs the multipart upload of the same bytes. */
export async function uploadRows(ctx: PathsContext, size: string): Promise<PathRow[]> {
  const { id: listingId } = await apiOk<{ id: string }>(ctx.port, ctx.key, 'POST', '/v1/listings', { address: '2 Upload Lane' }, 201); // prettier-ignore
  const bytes = (ctx.quick ? 16 : 64) * MiB;
  const data = Buffer.concat([Buffer.from('%PDF-1.4\n%bench\n'), randomBytes(bytes - 16)]);
  const multipart = async (): Promise<number> => {
    const started = performance.now();
    await uploadParts(ctx, listingId, [{ name: 'bench.pdf', type: 'application/pdf', data }]);
    return bytes / MB / ((performance.now() - started) / 1000);
  };
  const uploads = `/v1/listings/${listingId}/uploads`;
  const options = await send(ctx.port, 'OPTIONS', uploads, { 'tus-resumable': '1.0.0' });
  const tusAvailable = options.status === 204 && options.headers['tus-version'] !== undefined;
  const tus = async (): Promise<number> => {
    const started = performance.now();
    const auth = { authorization: `Bearer ${ctx.key}`, 'tus-resumable': '1.0.0' };
    const created = await send(ctx.port, 'POST', uploads, { ...auth, 'upload-length': bytes, 'upload-metadata': `filename ${Buffer.from('bench.pdf').toString('base64')}` }); // prettier-ignore
    const location = created.headers.location;
    if (created.status !== 201 || location === undefined) throw new Error(`tus creation: ${created.status} ${created.text}`); // prettier-ignore
    const patched = await send(ctx.port, 'PATCH', new URL(location, `http://${HOST}`).pathname, { ...auth, 'upload-offset': 0, 'content-type': 'application/offset+octet-stream' }, data); // prettier-ignore
    if (patched.status !== 204 || patched.headers['lightbox-media-id'] === undefined) throw new Error(`tus PATCH: ${patched.status} ${patched.text}`); // prettier-ignore
    return bytes / MB / ((performance.now() - started) / 1000);
  };
  await multipart(); // warm-up
  if (tusAvailable) await tus();
  const rounds: PathRow['rounds'] = [];
  const multipartOnly: number[] = [];
  for (let round = 1; round <= ctx.rounds; round++) {
    const m = await multipart();
    multipartOnly.push(m);
    if (tusAvailable) rounds.push({ value: await tus(), baselineValue: m });
  }
  const label = `tus upload (${bytes / MiB} MiB, creation + 1 PATCH)`;
  ctx.log(`  uploads: multipart ${multipartOnly.map((m) => fixed(m, 0)).join(', ')} MB/s; tus ${tusAvailable ? rounds.map((r) => fixed(r.value, 0)).join(', ') + ' MB/s' : `not available (OPTIONS ${uploads}: ${options.status})`}`); // prettier-ignore
  const multipartRow = row(size, { name: 'multipart', label: `multipart upload (${bytes / MiB} MiB)`, unit: 'MB/s', baseline: '-', note: 'the tus row\'s baseline', rounds: multipartOnly.map((m) => ({ value: m, baselineValue: m })) }); // prettier-ignore
  if (!tusAvailable) {
    return [multipartRow, { size, name: 'tus', label, unit: 'MB/s', value: NaN, baseline: 'multipart upload, same bytes', baselineValue: multipartRow.value, ratio: NaN, note: `not available: no tus route on this build (OPTIONS …/uploads answered ${options.status})`, rounds: [] }]; // prettier-ignore
  }
  return [multipartRow, row(size, { name: 'tus', label, unit: 'MB/s', baseline: 'multipart upload, same bytes', note: '', rounds })]; // prettier-ignore
}
