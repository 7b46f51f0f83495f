// Clients that send slowly, or never, over real loopback sockets (src/http/connections.ts and
// src/http/in-flight.ts): headers, JSON bodies and uploads that stall are answered 408 and closed;
// a body that keeps flowing is not cut off; idle connections are shed in seconds; and one key (or
// one address) holding many such requests open is refused at once past its cap, while other
// clients go on being served, and /healthz and /readyz answer even from an address at its cap. Timeouts here are 1-2 s, so every wait is short.
// node:test's describe() and test() return promises that the runner itself awaits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  call,
  createAccount,
  createKey,
  listeningAccount,
  type TestAccount,
  type TestContext,
} from './support/test-app.ts';
import { jpeg, multipart } from './support/media-fixtures.ts';
import { newGallery } from './support/media-helpers.ts';
import { expectRawError, head, rawClients, sleep, type RawAnswer, type RawClient } from './support/raw-http.ts';

let ctx: TestContext;
let account: TestAccount;
let port = 0;

before(async () => {
  ({ ctx, account, port } = await listeningAccount({
    HTTP_HEADERS_TIMEOUT_SECONDS: '1',
    HTTP_REQUEST_TIMEOUT_SECONDS: '2',
    HTTP_IDLE_TIMEOUT_SECONDS: '1',
    HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: '1',
    HTTP_MAX_IN_FLIGHT_PER_KEY: '3',
    HTTP_MAX_IN_FLIGHT_PER_ADDRESS: '5',
  }));
});

after(async () => {
  destroyAll();
  await ctx.close();
});

const { client, destroyAll } = rawClients(() => port);

/** A JSON POST whose body is announced but only partly sent. */
async function stalledPost(key: string, localAddress?: string): Promise<RawClient> {
  const c = await client(localAddress);
  c.write(
    head('POST', '/v1/listings', {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'content-length': 100,
    }),
  );
  c.write('{"address":');
  return c;
}

const get = async (path: string, headers: Record<string, string>, localAddress?: string): Promise<RawAnswer> => {
  const c = await client(localAddress);
  c.write(head('GET', path, { ...headers, connection: 'close' }));
  return c.answer(5000);
};

describe('bodies that do not arrive', () => {
  test('a JSON body that stops: 408 in the contract shape after the idle timeout, then closed', async () => {
    const c = await stalledPost(account.key);
    const started = Date.now();
    const answer = await c.answer(8000);
    expectRawError(answer, 408, 'request_timeout');
    assert.equal(typeof answer.headers['ratelimit-remaining'], 'string');
    assert.equal(answer.headers.connection, 'close');
    await c.closed(5000);
    // Not before the idle timeout (1 s), allowing for a timer that fires a little early.
    assert.ok(Date.now() - started >= 900, `answered after ${Date.now() - started} ms`);
  });

  test('a JSON body that trickles (never idle) is cut off by the request timeout', async () => {
    const c = await client();
    c.write(
      head('POST', '/v1/listings', {
        authorization: `Bearer ${account.key}`,
        'content-type': 'application/json',
        'content-length': 1000,
      }),
    );
    let answered = false;
    const answer = c.answer(10_000).finally(() => (answered = true));
    for (let i = 0; i < 40 && !answered; i += 1) {
      c.write(' ');
      await sleep(250);
    }
    expectRawError(await answer, 408, 'request_timeout');
  });

  test('an upload whose bytes keep flowing outlasts the request timeout; one that stalls gets 408', async () => {
    const listing = await newGallery(ctx, account);
    const { body, contentType } = multipart([{ filename: 'a.jpg', contentType: 'image/jpeg', data: await jpeg() }]);
    const uploadHead = head('POST', `/v1/listings/${listing}/media`, {
      authorization: `Bearer ${account.key}`,
      'content-type': contentType,
      'content-length': body.length,
    });

    const flowing = await client();
    flowing.write(uploadHead);
    // About 3 s in all, never 1 s without a byte: longer than the 2 s request timeout.
    const pieces = 12;
    const size = Math.ceil(body.length / pieces);
    for (let i = 0; i < pieces; i += 1) {
      flowing.write(body.subarray(i * size, (i + 1) * size));
      await sleep(250);
    }
    const done = await flowing.answer(5000);
    assert.equal(done.status, 201, done.body);

    const stalled = await client();
    stalled.write(uploadHead);
    stalled.write(body.subarray(0, 200));
    expectRawError(await stalled.answer(8000), 408, 'request_timeout');
    await stalled.closed(5000);
  });

  test('a connection that sends no headers, or half of them, is answered 408 and closed', async () => {
    const silent = await client();
    const half = await client();
    half.write('GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n');
    for (const c of [silent, half]) {
      const answer = await c.answer(5000);
      expectRawError(answer, 408, 'request_timeout');
      await c.closed(3000);
    }
  });

  test('an idle kept-alive connection is closed within seconds', async () => {
    const c = await client();
    c.write(head('GET', '/healthz'));
    assert.equal((await c.answer(5000)).status, 200);
    // Keep-alive 1 s (plus Node's 1 s grace): well before the 60-90 s it used to take.
    await c.closed(5000);
  });
});

describe('requests in progress at once', () => {
  test('past the cap for a key: 429 with Retry-After at once; other keys and /healthz go on', async () => {
    const other = await createAccount(ctx, 'Other Studio');
    const held = await Promise.all([1, 2, 3].map(() => stalledPost(account.key)));
    await sleep(200);

    const refused = await get('/v1/listings', { authorization: `Bearer ${account.key}` });
    expectRawError(refused, 429, 'rate_limited');
    assert.equal(refused.headers['retry-after'], '1');
    assert.match(JSON.parse(refused.body).error.message as string, /in progress for this API key/);
    assert.equal(typeof refused.headers['ratelimit-remaining'], 'string');

    assert.equal((await get('/v1/listings', { authorization: `Bearer ${other.key}` })).status, 200);
    assert.equal((await get('/healthz', {})).status, 200);

    // Let go: the places come back as the connections close.
    for (const c of held) c.destroy();
    await sleep(300);
    assert.equal((await get('/v1/listings', { authorization: `Bearer ${account.key}` })).status, 200);
  });

  test('past the cap for an address, whatever the keys: 429, while another address is served', async () => {
    const keys = [
      account.key,
      (await createKey(ctx, account.accountId)).key,
      (await createKey(ctx, account.accountId)).key,
    ];
    const held = await Promise.all([0, 1, 2, 0, 1].map((i) => stalledPost(keys[i]!)));
    await sleep(200);
    const third = (await createKey(ctx, account.accountId)).key;
    const refused = await get('/v1/listings', { authorization: `Bearer ${third}` });
    expectRawError(refused, 429, 'rate_limited');
    assert.match(JSON.parse(refused.body).error.message as string, /in progress for this client address/);
    // Health checks are never limited (docs/api.md §10): a load balancer behind the same address still sees them.
    assert.equal((await get('/healthz', {})).status, 200);
    assert.equal((await get('/readyz', {})).status, 200);

    // Another client (another loopback address) is not affected.
    assert.equal((await get('/healthz', {}, '127.0.0.2')).status, 200);
    assert.equal((await get('/v1/listings', { authorization: `Bearer ${third}` }, '127.0.0.2')).status, 200);
    for (const c of held) c.destroy();
    await sleep(300);
    assert.equal((await get('/healthz', {})).status, 200);
  });

  test('a refused upload is not read: the connection closes after the 429', async () => {
    const listing = await newGallery(ctx, account);
    const held = await Promise.all([1, 2, 3].map(() => stalledPost(account.key)));
    await sleep(200);
    const c = await client();
    c.write(
      head('POST', `/v1/listings/${listing}/media`, {
        authorization: `Bearer ${account.key}`,
        'content-type': 'multipart/form-data; boundary=x',
        'content-length': 1024 * 1024 * 1024,
      }),
    );
    const answer = await c.answer(5000);
    expectRawError(answer, 429, 'rate_limited');
    assert.equal(answer.headers.connection, 'close');
    await c.closed(3000);
    for (const h of held) h.destroy();
    // Nothing stayed held in the test's in-process calls either.
    await sleep(300);
    assert.equal((await call(ctx, 'GET', '/v1/listings', { key: account.key })).statusCode, 200);
  });
});
