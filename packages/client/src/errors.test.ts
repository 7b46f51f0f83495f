// Each error class of the client, from the real server's answers (and, for failures with no
// answer, from a closed port and a server that never answers): the class, status, code, the
// server's own message and details, and the request id.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import type net from 'node:net';
import {
  AuthenticationError,
  ConflictError,
  ConnectionError,
  Lightbox,
  LightboxError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionError,
  RangeNotSatisfiableError,
  RateLimitError,
  TimeoutError,
  UnsupportedMediaTypeError,
  ValidationError,
} from './node.ts';
import { createKey } from '../../../test/support/test-app.ts';
import { startClientServer, type ClientServer } from '../../../test/support/client.ts';
import { closedPort } from '../../../test/support/loopback-receivers.ts';
import { jpeg } from '../../../test/support/media-fixtures.ts';

/** Awaits `promise`'s rejection and returns the error, which must be a `Class`. */
async function failure<E extends Error>(
  promise: Promise<unknown>,
  Class: abstract new (...args: never[]) => E,
): Promise<E> {
  const err = await promise.then(
    () => assert.fail('expected a rejection'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof Class, `expected ${Class.name}, got ${String(err)}`);
  assert.ok(err instanceof Error);
  return err;
}

describe('client: typed errors', () => {
  let s: ClientServer;
  before(async () => {
    s = await startClientServer();
  });
  after(() => s.close());

  test('ValidationError keeps the server message, details and request id', async () => {
    const err = await failure(s.lb.listings.create({ address: 'x', beds: -1 }), ValidationError);
    assert.ok(err instanceof LightboxError);
    assert.equal(err.status, 400);
    assert.equal(err.code, 'validation_error');
    assert.match(err.message, /beds/);
    assert.equal(err.details[0]?.field, 'beds');
    assert.match(err.requestId ?? '', /.+/);
    assert.equal(err.requestId, err.headers?.get('x-request-id'));
  });

  test('invalid_json is a ValidationError with its own code', async () => {
    const err = await failure(
      s.lb.http.send({
        method: 'POST',
        path: '/v1/listings',
        body: '{',
        headers: { 'content-type': 'application/json' },
      }),
      ValidationError,
    );
    assert.equal(err.code, 'invalid_json');
  });

  test('AuthenticationError, PermissionError', async () => {
    const stranger = s.client({ apiKey: 'lbx_' + 'x'.repeat(40) });
    const auth = await failure(stranger.listings.list(), AuthenticationError);
    assert.deepEqual([auth.status, auth.code], [401, 'unauthorized']);
    const { key } = await createKey(s.ctx, s.account.accountId, { scope: 'read_only' });
    const reader = s.client({ apiKey: key });
    await reader.listings.list();
    const denied = await failure(reader.listings.create({ address: '1 Road' }), PermissionError);
    assert.deepEqual([denied.status, denied.code], [403, 'forbidden']);
  });

  test('NotFoundError, MethodNotAllowedError, ConflictError', async () => {
    const missing = await failure(s.lb.listings.get('lst_nope'), NotFoundError);
    assert.deepEqual([missing.status, missing.code], [404, 'not_found']);
    const wrong = await failure(s.lb.http.send({ method: 'PUT', path: '/v1/listings' }), MethodNotAllowedError);
    assert.equal(wrong.status, 405);
    await s.lb.clients.create({ name: 'Bo', email: 'bo@example.test' });
    const dup = await failure(s.lb.clients.create({ name: 'Bo', email: 'BO@example.test' }), ConflictError);
    assert.deepEqual([dup.status, dup.code], [409, 'conflict']);
  });

  test('PayloadTooLargeError, UnsupportedMediaTypeError, RangeNotSatisfiableError', async () => {
    const big = await failure(
      s.lb.http.send({ method: 'POST', path: '/v1/listings', json: { address: 'x'.repeat(1_100_000) } }),
      PayloadTooLargeError,
    );
    assert.equal(big.status, 413);
    const g = await s.lb.listings.create({ address: '3 Mill Lane' });
    const text = await failure(
      s.lb.media.upload(g.id, { data: new TextEncoder().encode('just text'), filename: 'a.txt' }),
      UnsupportedMediaTypeError,
    );
    assert.deepEqual([text.status, text.code], [415, 'unsupported_media_type']);
    const [m] = (await s.lb.media.upload(g.id, new Blob([new Uint8Array(await jpeg())]))).data;
    const range = await failure(s.lb.media.download(g.id, m!.id, { range: 'bytes=999999-' }), RangeNotSatisfiableError);
    assert.equal(range.status, 416);
  });

  test('ConnectionError when nothing listens; TimeoutError when nothing answers; the caller’s abort as is', async () => {
    const port = await closedPort();
    const down = new Lightbox({ apiKey: 'k', baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 });
    const conn = await failure(down.listings.list(), ConnectionError);
    assert.deepEqual([conn.status, conn.code], [null, 'connection_error']);

    const sockets: net.Socket[] = [];
    const silent = http.createServer(() => undefined).listen(0, '127.0.0.1');
    silent.on('connection', (socket: net.Socket) => sockets.push(socket));
    await once(silent, 'listening');
    const address = silent.address() as net.AddressInfo;
    try {
      const slow = new Lightbox({
        apiKey: 'k',
        baseUrl: `http://127.0.0.1:${address.port}`,
        maxRetries: 0,
        timeout: 200,
      });
      const timeout = await failure(slow.listings.list(), TimeoutError);
      assert.equal(timeout.code, 'timeout');
      const controller = new AbortController();
      const pending = slow.listings.list({}, { signal: controller.signal, timeout: 60_000 });
      controller.abort(new Error('the caller gave up'));
      await assert.rejects(pending, /the caller gave up/);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  test('RateLimitError after the retries, with retryAfter', async () => {
    const limited = await startClientServer({ RATE_LIMIT_PER_MINUTE: '2' });
    try {
      const lb = limited.client({ maxRetries: 0 });
      // Windows are fixed minutes (decisions/0004): across a boundary up to twice the limit
      // pass, so the fifth request at 2 a minute is refused whenever the test runs.
      let refused: unknown;
      for (let i = 0; i < 5 && refused === undefined; i += 1) {
        refused = await lb.listings.list().then(
          () => undefined,
          (e: unknown) => e,
        );
      }
      assert.ok(refused instanceof RateLimitError, `expected RateLimitError, got ${String(refused)}`);
      const err = refused;
      assert.deepEqual([err.status, err.code], [429, 'rate_limited']);
      assert.ok((err.retryAfter ?? 0) > 0);
    } finally {
      await limited.close();
    }
  });
});
