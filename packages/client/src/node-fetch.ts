// The fetch the Node client uses. Node's built-in fetch (undici) reads a streamed request body
// faster than the socket drains it: uploading 300 MB held about 230 MB in memory (measured here on
// Node 24, against a server in another process). So a request whose body is a stream, a Blob or a
// FormData goes through node:http(s) instead, written with backpressure; a NodeMultipart's files
// are read into one reused buffer. Every other request goes to the given fetch (global by default).
import { open } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { NodeMultipart, type FileRange } from './node-multipart.ts';

const BUFFER_BYTES = 256 * 1024;

function write(out: Writable, chunk: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    out.write(chunk, (err) => (err === null || err === undefined ? resolve() : reject(err)));
  });
}

/** Writes a file range through one buffer, reused once each write is flushed. */
async function writeFile(out: Writable, range: FileRange, buffer: Buffer): Promise<void> {
  const file = await open(range.path, 'r');
  try {
    for (let at = range.start; at < range.end;) {
      const { bytesRead } = await file.read(buffer, 0, Math.min(buffer.length, range.end - at), at);
      if (bytesRead === 0) throw new Error(`${range.path} ended at byte ${at} of ${range.end}`);
      await write(out, buffer.subarray(0, bytesRead));
      at += bytesRead;
    }
  } finally {
    await file.close();
  }
}

async function writeMultipart(out: Writable, body: NodeMultipart): Promise<void> {
  const buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  for (const segment of body.segments) {
    if (segment instanceof Uint8Array) await write(out, segment);
    else if (NodeMultipart.isFileRange(segment)) await writeFile(out, segment, buffer);
    else {
      const stream = segment instanceof Blob ? segment.stream() : segment;
      for await (const chunk of stream as AsyncIterable<Uint8Array>) await write(out, chunk);
    }
  }
  await new Promise<void>((resolve) => out.end(resolve));
}

type Fetch = typeof fetch;

function streamed(body: unknown): body is Blob | FormData | ReadableStream<Uint8Array> {
  return body instanceof Blob || body instanceof FormData || body instanceof ReadableStream;
}

const NULL_BODY = new Set([101, 204, 205, 304]);

/** A fetch that sends streamed bodies over node:http(s) with backpressure, and the rest through `base`. */
export function nodeFetch(base: Fetch = (input, init) => globalThis.fetch(input, init)): Fetch {
  return async (input, init) => {
    if (!streamed(init?.body) || input instanceof Request) return base(input, init);
    const body = init.body;
    const url = new URL(String(input));
    const headers = new Headers(init.headers);
    let source: ReadableStream<Uint8Array> | null = null;
    if (body instanceof NodeMultipart) {
      if (body.length !== null) headers.set('content-length', String(body.length));
    } else if (body instanceof FormData) {
      // The FormData's own encoding (boundary, escaping), read part by part as it is sent.
      const encoded = new Response(body);
      headers.set('content-type', encoded.headers.get('content-type') ?? 'multipart/form-data');
      source = encoded.body as ReadableStream<Uint8Array>;
    } else if (body instanceof Blob) {
      headers.set('content-length', String(body.size));
      source = body.stream();
    } else {
      source = body;
    }
    const signal = init.signal ?? undefined;
    signal?.throwIfAborted();
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(url, { method: init.method ?? 'POST', headers: Object.fromEntries(headers) });
    const abort = (): void => {
      req.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    signal?.addEventListener('abort', abort, { once: true });
    const answered = new Promise<http.IncomingMessage>((resolve, reject) => {
      req.once('response', resolve);
      req.once('error', reject);
    });
    // A server may answer (413, 415) before reading the whole body: the answer wins.
    const sending =
      source === null
        ? writeMultipart(req, body as NodeMultipart)
        : pipeline(Readable.fromWeb(source as import('node:stream/web').ReadableStream), req);
    const sent = sending.catch((err: unknown) => {
      req.destroy(err instanceof Error ? err : new Error(String(err)));
    });
    try {
      const res = await answered;
      const responseHeaders = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        for (const v of Array.isArray(value) ? value : [value ?? '']) responseHeaders.append(name, v);
      }
      const status = res.statusCode ?? 0;
      const nullBody = NULL_BODY.has(status) || init.method === 'HEAD';
      if (nullBody) res.resume();
      void sent.finally(() => signal?.removeEventListener('abort', abort));
      return new Response(nullBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
        status,
        statusText: res.statusMessage ?? '',
        headers: responseHeaders,
      });
    } catch (err) {
      signal?.removeEventListener('abort', abort);
      if (signal?.aborted === true) throw signal.reason;
      throw new TypeError('fetch failed', { cause: err });
    }
  };
}
