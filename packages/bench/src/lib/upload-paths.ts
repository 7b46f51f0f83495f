// The ways `npm run bench:upload` sends a file, each a measured path: the bare baseline and
// lightbox's multipart POST /v1/listings/:id/media. A path sends one body (timed) and then checks
// the server's answer against the digests and removes what was stored (untimed). Another way of
// uploading (a resumable one, say) is one more function here returning an UploadPath, and one more
// entry in the benchmark's list of paths.
import { once } from 'node:events';
import http from 'node:http';
import type net from 'node:net';
import { performance } from 'node:perf_hooks';
import { bodyChunks, fileChunks, type Body, type Digests } from './upload-body.ts';
import { HOST, call, tail, type Reply } from './procs.ts';
import { tusUpload } from './upload-tus.ts';

export interface UploadTiming extends Reply {
  /** First body byte written to the response fully received. */
  seconds: number;
  /** First body byte written to the last one handed to the kernel. */
  sendSeconds: number;
  clientCpuSeconds: number;
}

export interface UploadPath {
  /** The path's name in the round lines, the rounds table and the JSON ('bare', 'lightbox'). */
  side: string;
  /** Its column head in the summary table. */
  label: string;
  /** The server process measured (memory, CPU). */
  pid: number;
  /** Another process doing this upload's work (s3rver), whose CPU is reported too. */
  helperPid?: number;
  send(body: Body): Promise<UploadTiming>;
  /** Checks the answer against what was sent and removes what was stored (not timed). */
  verify(timing: UploadTiming, body: Body, digests: Digests): Promise<void>;
}

/** One POST of `body` as multipart/form-data on its own connection, timed from its first body byte. */
async function upload(
  port: number,
  pathname: string,
  headers: http.OutgoingHttpHeaders,
  body: Body,
): Promise<UploadTiming> {
  const req = http.request({
    host: HOST,
    port,
    method: 'POST',
    path: pathname,
    agent: false,
    headers: {
      ...headers,
      'content-type': `multipart/form-data; boundary=${body.boundary}`,
      'content-length': body.length,
      connection: 'close',
    },
  });
  let failure: Error | undefined;
  let answered = false;
  const responded = new Promise<Reply & { at: number }>((resolve, reject) => {
    req.once('response', (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (chunk: Buffer) => parts.push(chunk));
      res.once('end', () =>
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8'), at: performance.now() }),
      );
      res.once('error', reject);
    });
    req.on('error', (err) => {
      failure ??= err;
      reject(err);
    });
  });
  // Observed below; an early error must not count as unhandled while the body is being written.
  responded.catch(() => undefined);

  const [socket] = (await once(req, 'socket')) as [net.Socket];
  if (socket.connecting) await once(socket, 'connect');
  const cpu = process.cpuUsage();
  const start = performance.now();
  let sentAt = NaN;
  for (const chunk of bodyChunks(body)) {
    // A server that answers early (a refusal) stops reading: stop writing and report its answer.
    if (answered || failure !== undefined) break;
    if (!req.write(chunk)) await Promise.race([once(req, 'drain'), responded]).catch(() => undefined);
  }
  if (!answered && failure === undefined) {
    req.end();
    await Promise.race([once(req, 'finish'), responded]).catch(() => undefined);
    sentAt = performance.now();
  }
  const reply = await responded;
  const used = process.cpuUsage(cpu);
  return {
    status: reply.status,
    text: reply.text,
    seconds: (reply.at - start) / 1000,
    sendSeconds: (sentAt - start) / 1000,
    clientCpuSeconds: (used.user + used.system) / 1e6,
  };
}

/** The bare server of packages/bench/src/lib/upload-bare.ts: it stores the whole body, framing included. */
export function barePath(server: { pid: number; port: number }): UploadPath {
  return {
    side: 'bare',
    label: 'bare (disk)',
    pid: server.pid,
    send: (b) => upload(server.port, '/', {}, b),
    async verify(timing, b, expected) {
      if (timing.status !== 201) throw new Error(`bare: ${timing.status} ${timing.text}`);
      const answer = JSON.parse(timing.text) as { file: string; size: number; sha256: string };
      if (answer.size !== b.length || answer.sha256 !== expected.body) {
        throw new Error(
          `bare stored ${answer.size} bytes with sha256 ${answer.sha256}; sent ${b.length}, ${expected.body}`,
        );
      }
      const removed = await call(server.port, 'DELETE', `/${answer.file}`);
      if (removed.status !== 204) throw new Error(`bare: deleting ${answer.file}: ${removed.status} ${removed.text}`);
    },
  };
}

export interface LightboxTarget {
  pid: number;
  port: number;
  logFile: string;
  key: string;
  galleryId: string;
  /** s3rver's process under --storage s3. */
  helperPid?: number;
  /** 'local disk' or 's3rver'. */
  storageLabel: string;
}

/** lightbox's multipart upload, POST /v1/listings/:id/media: it stores the file alone. */
export function multipartPath(target: LightboxTarget): UploadPath {
  const { port, key, galleryId, logFile } = target;
  return {
    side: 'lightbox',
    label: `lightbox (${target.storageLabel})`,
    pid: target.pid,
    ...(target.helperPid === undefined ? {} : { helperPid: target.helperPid }),
    send: (b) => upload(port, `/v1/listings/${galleryId}/media`, { authorization: `Bearer ${key}` }, b),
    async verify(timing, b, expected) {
      if (timing.status !== 201) throw new Error(`lightbox: ${timing.status} ${timing.text}\n${await tail(logFile)}`);
      const { data } = JSON.parse(timing.text) as {
        data: { id: string; size: number; sha256: string; kind: string; content_type: string }[];
      };
      const media = data[0];
      if (data.length !== 1 || media === undefined) throw new Error(`lightbox stored ${data.length} files, not 1`);
      if (media.size !== b.fileSize || media.sha256 !== expected.file || media.kind !== 'video') {
        throw new Error(
          `lightbox stored a ${media.kind} (${media.content_type}) of ${media.size} bytes with sha256 ${media.sha256}; ` +
            `sent a video of ${b.fileSize} bytes, ${expected.file}`,
        );
      }
      const removed = await call(port, 'DELETE', `/v1/listings/${galleryId}/media/${media.id}`, key);
      if (removed.status !== 204) throw new Error(`lightbox: deleting ${media.id}: ${removed.status} ${removed.text}`);
    },
  };
}

/** The same file through resumable uploads (docs/api.md §16) in 8 MiB PATCHes (packages/bench/src/lib/upload-tus.ts). */
export function tusPath(target: LightboxTarget): UploadPath {
  const { port, key, galleryId, logFile } = target;
  return {
    side: 'tus',
    label: `tus (${target.storageLabel})`,
    pid: target.pid,
    ...(target.helperPid === undefined ? {} : { helperPid: target.helperPid }),
    send: (b) => tusUpload({ host: HOST, port, key, galleryId }, b.fileSize, () => fileChunks(b)),
    async verify(timing, b, expected) {
      if (timing.status !== 201) throw new Error(`tus: ${timing.status} ${timing.text}\n${await tail(logFile)}`);
      const { media_id: mediaId } = JSON.parse(timing.text) as { media_id: string };
      const got = await call(port, 'GET', `/v1/listings/${galleryId}/media/${mediaId}`, key);
      const media = JSON.parse(got.text) as { size: number; sha256: string; kind: string };
      if (media.size !== b.fileSize || media.sha256 !== expected.file || media.kind !== 'video') {
        throw new Error(`tus stored ${got.text}; sent a video of ${b.fileSize} bytes, ${expected.file}`);
      }
      const removed = await call(port, 'DELETE', `/v1/listings/${galleryId}/media/${mediaId}`, key);
      if (removed.status !== 204) throw new Error(`tus: deleting ${mediaId}: ${removed.status} ${removed.text}`);
    },
  };
}
