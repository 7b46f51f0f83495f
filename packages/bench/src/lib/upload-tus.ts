// The resumable-upload side of `npm run bench:upload` (docs/api.md §16): the same generated file sent
// through tus 1.0 in 8 MiB PATCHes on one kept-alive connection (as tus-js-client sends it), timed
// from the first byte of the creation request to the completing PATCH's answer. The bytes are
// written straight from the generator's chunks (never gathered), so the client holds no 8 MiB
// buffer either.
import http from 'node:http';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';

const MiB = 1024 * 1024;
const TUS_CHUNK = 8 * MiB;

export interface TusTiming {
  status: number;
  /** `{"media_id": ...}` on success, else the refusal's body. */
  text: string;
  seconds: number;
  sendSeconds: number;
  clientCpuSeconds: number;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

function request(
  agent: http.Agent,
  host: string,
  port: number,
  method: string,
  path: string,
  headers: http.OutgoingHttpHeaders,
  write: (req: http.ClientRequest) => Promise<void>,
): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request({ host, port, method, path, agent, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (chunk: Buffer) => parts.push(chunk));
      res.once('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(parts).toString('utf8') }),
      );
      res.once('error', reject);
    });
    req.once('error', reject);
    write(req).then(
      () => req.end(),
      (err: unknown) => req.destroy(err as Error),
    );
  });
}

/** Sends `length` bytes of `source` (an iterator over the file's chunks) as the request body. */
async function writeFrom(
  req: http.ClientRequest,
  source: Iterator<Buffer>,
  carry: { rest: Buffer | undefined },
  length: number,
) {
  let left = length;
  while (left > 0) {
    let chunk = carry.rest;
    carry.rest = undefined;
    if (chunk === undefined) {
      const next = source.next();
      if (next.done === true) throw new Error('the file ended early');
      chunk = next.value;
    }
    if (chunk.length > left) {
      carry.rest = chunk.subarray(left);
      chunk = chunk.subarray(0, left);
    }
    left -= chunk.length;
    if (!req.write(chunk)) await once(req, 'drain');
  }
}

/** One tus upload of `fileSize` bytes from `chunks`, as tus-js-client would send it. */
export async function tusUpload(
  target: { host: string; port: number; key: string; galleryId: string },
  fileSize: number,
  chunks: () => Iterable<Buffer>,
): Promise<TusTiming> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const auth = { authorization: `Bearer ${target.key}`, 'tus-resumable': '1.0.0' };
  const cpu = process.cpuUsage();
  const start = performance.now();
  try {
    const created = await request(
      agent,
      target.host,
      target.port,
      'POST',
      `/v1/listings/${target.galleryId}/uploads`,
      {
        ...auth,
        'upload-length': String(fileSize),
        'upload-metadata': `filename ${Buffer.from('bench.mp4').toString('base64')}`,
      },
      () => Promise.resolve(),
    );
    if (created.status !== 201) return { ...failed(created), seconds: NaN, sendSeconds: NaN, clientCpuSeconds: NaN };
    const location = String(created.headers.location);
    const source = chunks()[Symbol.iterator]();
    const carry: { rest: Buffer | undefined } = { rest: undefined };
    let last: Answer | undefined;
    for (let offset = 0; offset < fileSize;) {
      const length = Math.min(TUS_CHUNK, fileSize - offset);
      last = await request(
        agent,
        target.host,
        target.port,
        'PATCH',
        location,
        {
          ...auth,
          'upload-offset': String(offset),
          'content-type': 'application/offset+octet-stream',
          'content-length': length,
        },
        (req) => writeFrom(req, source, carry, length),
      );
      if (last.status !== 204) break;
      offset = Number(last.headers['upload-offset']);
    }
    const end = performance.now();
    const used = process.cpuUsage(cpu);
    const mediaId = last?.headers['lightbox-media-id'];
    const ok = last?.status === 204 && typeof mediaId === 'string';
    return {
      status: ok ? 201 : (last?.status ?? 0),
      text: ok ? JSON.stringify({ media_id: mediaId }) : (last?.text ?? ''),
      seconds: (end - start) / 1000,
      sendSeconds: (end - start) / 1000,
      clientCpuSeconds: (used.user + used.system) / 1e6,
    };
  } finally {
    agent.destroy();
  }
}

const failed = (answer: Answer): { status: number; text: string } => ({ status: answer.status, text: answer.text });
