// The client's retries: a test server on 127.0.0.1 answering as scripted (429 with Retry-After,
// 503, 500, a cut connection, 400), and a proxy in front of the real server that cuts the first
// POST's answer, so the retried POST (same Idempotency-Key) is replayed and makes one resource.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import {
  InternalServerError,
  Lightbox,
  NotModified,
  RateLimitError,
  ServiceUnavailableError,
  ValidationError,
} from './node.ts';
import { startClientServer, type ClientServer } from '../../../test/support/client.ts';

interface Seen {
  at: number;
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

type Script = (res: http.ServerResponse, req: http.IncomingMessage) => void;

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Script =>
  (res) => {
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req-${status}`, ...headers });
    res.end(JSON.stringify(body));
  };
const apiError = (status: number, code: string, headers: Record<string, string> = {}): Script =>
  json(status, { error: { code, message: `scripted ${code}`, request_id: `req-${status}` } }, headers);
const cut: Script = (res) => res.socket?.destroy();

/** A server answering each request with the next script (then 200 `{}`), recording what it saw. */
async function scripted(scripts: Script[]): Promise<{ seen: Seen[]; base: string; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push({ at: performance.now(), method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      (scripts.shift() ?? json(200, { id: 'lst_ok' }))(res, req);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  return {
    seen,
    base: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

function client(base: string, options: { maxRetries?: number } = {}): Lightbox {
  const lb = new Lightbox({ apiKey: 'lbx_test', baseUrl: base, ...options });
  lb.http.random = () => 0; // the shortest backoff: 250 ms, 500 ms, ...
  return lb;
}

describe('client: retries', () => {
  test('429 with Retry-After, then 503, then success: waits as told, three attempts', async () => {
    const server = await scripted([
      apiError(429, 'rate_limited', { 'retry-after': '1' }),
      apiError(503, 'unavailable'),
    ]);
    try {
      const got = await client(server.base).listings.get('lst_1');
      assert.equal(got.id, 'lst_ok');
      assert.equal(server.seen.length, 3);
      const [a, b, c] = server.seen as [Seen, Seen, Seen];
      assert.ok(b.at - a.at >= 990, `waited ${b.at - a.at} ms after Retry-After: 1`);
      assert.ok(c.at - b.at >= 240, `backed off ${c.at - b.at} ms after a 503 without Retry-After`);
    } finally {
      await server.close();
    }
  });

  test('bounded: maxRetries + 1 attempts, then the last error (ServiceUnavailableError, InternalServerError)', async () => {
    const server = await scripted([503, 503, 503, 503].map((s) => apiError(s, 'unavailable')));
    try {
      const err = await client(server.base)
        .listings.list()
        .catch((e: unknown) => e);
      assert.ok(err instanceof ServiceUnavailableError);
      assert.equal(err.message, 'scripted unavailable');
      assert.equal(err.requestId, 'req-503');
      assert.equal(server.seen.length, 3);
    } finally {
      await server.close();
    }
    const once500 = await scripted([apiError(500, 'internal_error'), apiError(500, 'internal_error')]);
    try {
      await assert.rejects(client(once500.base, { maxRetries: 1 }).listings.list(), InternalServerError);
      assert.equal(once500.seen.length, 2);
    } finally {
      await once500.close();
    }
    const never = await scripted([apiError(503, 'unavailable')]);
    try {
      await assert.rejects(client(never.base, { maxRetries: 0 }).listings.list(), ServiceUnavailableError);
      assert.equal(never.seen.length, 1);
    } finally {
      await never.close();
    }
  });

  test('a cut connection is retried; a 4xx is not; a Retry-After over a minute is not waited for', async () => {
    const server = await scripted([cut, apiError(400, 'validation_error')]);
    try {
      await assert.rejects(client(server.base).listings.list(), ValidationError);
      assert.equal(server.seen.length, 2);
    } finally {
      await server.close();
    }
    const later = await scripted([apiError(429, 'rate_limited', { 'retry-after': '3600' })]);
    try {
      const err = await client(later.base)
        .listings.list()
        .catch((e: unknown) => e);
      assert.ok(err instanceof RateLimitError);
      assert.equal(err.retryAfter, 3600);
      assert.equal(later.seen.length, 1);
    } finally {
      await later.close();
    }
  });

  test('every attempt of a POST carries the same Idempotency-Key: generated, or the caller’s', async () => {
    const server = await scripted([apiError(503, 'unavailable'), cut]);
    try {
      await client(server.base).listings.create({ address: '1 Road' });
      const keys = server.seen.map((s) => s.headers['idempotency-key']);
      assert.equal(keys.length, 3);
      assert.match(String(keys[0]), /^[0-9a-f-]{36}$/);
      assert.deepEqual(new Set(keys).size, 1);
      server.seen.length = 0;
      await client(server.base).listings.create({ address: '1 Road' }, { idempotencyKey: 'order-42' });
      assert.deepEqual(
        server.seen.map((s) => s.headers['idempotency-key']),
        ['order-42'],
      );
    } finally {
      await server.close();
    }
  });

  test('a 304 to a conditional GET is NotModified with the ETag', async () => {
    const server = await scripted([(res) => res.writeHead(304, { etag: 'W/"7"', 'x-request-id': 'req-304' }).end()]);
    try {
      const got = await client(server.base).listings.get('lst_1', { ifNoneMatch: 'W/"7"' });
      assert.ok(got instanceof NotModified);
      assert.equal(got.etag, 'W/"7"');
      assert.equal(got.lastResponse.requestId, 'req-304');
      assert.equal(server.seen[0]?.headers['if-none-match'], 'W/"7"');
    } finally {
      await server.close();
    }
  });
});

describe('client: a POST retried after a lost answer creates one resource (real server)', () => {
  let s: ClientServer;
  let proxy: net.Server;
  let proxyBase: string;
  let cutsLeft = 1;

  before(async () => {
    s = await startClientServer();
    const target = new URL(s.base);
    // Forwards every connection to the real server; for the first POST, the server's answer is
    // swallowed and the connection cut: the server made the gallery, the client never heard.
    proxy = net.createServer((downstream) => {
      const upstream = net.connect(Number(target.port), target.hostname);
      let request = '';
      let swallow = false;
      downstream.on('data', (chunk: Buffer) => {
        request += chunk.toString('latin1');
        if (cutsLeft > 0 && request.startsWith('POST ')) {
          cutsLeft -= 1;
          swallow = true;
        }
        upstream.write(chunk);
      });
      upstream.on('data', (chunk: Buffer) => {
        if (swallow) {
          downstream.destroy();
          upstream.destroy();
          return;
        }
        downstream.write(chunk);
      });
      upstream.on('end', () => downstream.end());
      downstream.on('error', () => upstream.destroy());
      upstream.on('error', () => downstream.destroy());
      downstream.on('close', () => upstream.destroy());
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    proxyBase = `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
  });
  after(async () => {
    proxy.close();
    await s.close();
  });

  test('the retry is replayed (Idempotent-Replayed) and the account holds one gallery', async () => {
    const lb = s.client({ baseUrl: proxyBase });
    lb.http.random = () => 0;
    const created = await lb.listings.create({ address: '9 Lost Answer Lane' });
    assert.equal(cutsLeft, 0, 'the first answer was cut');
    assert.equal(created.lastResponse.headers.get('idempotent-replayed'), 'true');
    const all = await s.lb.listings.list();
    assert.equal(all.pagination.total, 1);
    assert.equal(all.data[0]?.id, created.id);
  });
});
