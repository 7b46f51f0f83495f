// HTTP/1.1 over a plain socket, for the suites about what happens below and around the routes:
// requests whose headers or body arrive slowly or never, malformed requests, interim responses.
// Clients connect to 127.0.0.1 (or another loopback address, to be another client) and are
// always bounded: every wait has a deadline, and every socket is destroyed by the test.
import assert from 'node:assert/strict';
import net from 'node:net';

export interface RawAnswer {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
  /** Interim (1xx) status lines received before the answer. */
  interim: number[];
}

export interface RawClient {
  socket: net.Socket;
  write: (text: string | Buffer) => void;
  /** The first final answer; rejects if none comes within `ms`. */
  answer: (ms?: number) => Promise<RawAnswer>;
  /** Resolves when the server closes the connection; rejects if it does not within `ms`. */
  closed: (ms?: number) => Promise<void>;
  /** Interim responses seen so far. */
  interim: () => number[];
  destroy: () => void;
}

function parse(buffer: Buffer): { answer: RawAnswer; rest: Buffer } | undefined {
  const interim: number[] = [];
  let offset = 0;
  for (;;) {
    const end = buffer.indexOf('\r\n\r\n', offset);
    if (end === -1) return undefined;
    const head = buffer.subarray(offset, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head[0] ?? '')?.[1]);
    const headers: Record<string, string> = {};
    for (const line of head.slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    if (status >= 100 && status < 200) {
      interim.push(status);
      offset = end + 4;
      continue;
    }
    const length = Number(headers['content-length'] ?? 0);
    if (buffer.length < end + 4 + length) return undefined;
    const body = buffer.subarray(end + 4, end + 4 + length).toString('utf8');
    return { answer: { status, headers, body, interim }, rest: buffer.subarray(end + 4 + length) };
  }
}

const deadline = <T>(ms: number, what: string, promise: Promise<T>): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });

export async function connect(port: number, localAddress = '127.0.0.1'): Promise<RawClient> {
  const socket = net.connect({ host: '127.0.0.1', port, localAddress });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let received: Buffer = Buffer.alloc(0);
  const waiters: (() => void)[] = [];
  const wake = (): void => {
    for (const w of waiters.splice(0)) w();
  };
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    wake();
  });
  // The server may reset a connection it gave up on: that is what some tests wait for.
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  void closed.then(wake);

  const answer = async (): Promise<RawAnswer> => {
    for (;;) {
      const parsed = parse(received);
      if (parsed !== undefined) {
        received = parsed.rest;
        return parsed.answer;
      }
      if (socket.destroyed) throw new Error(`connection closed without an answer (${received.length} bytes)`);
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return {
    socket,
    write: (text) => {
      if (!socket.destroyed) socket.write(text);
    },
    answer: (ms = 10_000) => deadline(ms, 'answer', answer()),
    closed: (ms = 10_000) => deadline(ms, 'close', closed),
    interim: () => {
      const seen: number[] = [];
      for (const m of received.toString('latin1').matchAll(/HTTP\/1\.1 (1\d\d)/g)) seen.push(Number(m[1]));
      return seen;
    },
    destroy: () => socket.destroy(),
  };
}

/** A request head: the request line, Host, the given headers, and the blank line. */
export const head = (method: string, path: string, headers: Record<string, string | number> = {}): string =>
  `${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Connects clients to `port` and keeps them, so that the suite's after() can destroy them all. */
export function rawClients(port: () => number): {
  client: (localAddress?: string) => Promise<RawClient>;
  destroyAll: () => void;
} {
  const open: RawClient[] = [];
  return {
    client: async (localAddress) => {
      const c = await connect(port(), localAddress);
      open.push(c);
      return c;
    },
    destroyAll: () => {
      for (const c of open) c.destroy();
    },
  };
}

/**
 * Asserts the contract's error body (docs/api.md §2) on a raw answer, and the protective headers every
 * response carries, even those Node or Fastify write below the routes; returns the request id.
 */
export function expectRawError(answer: RawAnswer, status: number, code: string): string {
  assert.equal(answer.status, status, answer.body);
  assert.match(answer.headers['content-type'] ?? '', /^application\/json/);
  const body = JSON.parse(answer.body) as { error: Record<string, string> };
  assert.deepEqual(Object.keys(body), ['error']);
  assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message', 'request_id']);
  assert.equal(body.error.code, code);
  assert.ok((body.error.message ?? '').length > 0);
  assert.match(answer.headers['x-request-id'] ?? '', /^[A-Za-z0-9._:-]{1,128}$/);
  assert.equal(body.error.request_id, answer.headers['x-request-id']);
  for (const [name, value] of [
    ['x-content-type-options', 'nosniff'],
    ['x-frame-options', 'DENY'],
    ['referrer-policy', 'no-referrer'],
    ['content-security-policy', "default-src 'none'; frame-ancestors 'none'"],
    ['cache-control', 'no-store'],
  ] as const) {
    assert.equal(answer.headers[name], value, name);
  }
  return body.error.request_id ?? '';
}
