// What happens where Node, not a route, has the request, over real loopback sockets
// (src/http/connections.ts, src/http/error-handler.ts): requests Node cannot read are answered in
// the contract's error body with a request id and the protective headers; a client that hangs up
// mid-body is its own affair, logged as such and never as a server fault; and `Expect:
// 100-continue` is answered only once the key, scope, limits and Idempotency-Key have passed.
// node:test's describe() and test() return promises that the runner itself awaits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  call,
  createAccount,
  createKey,
  createTestContext,
  listeningAccount,
  type TestAccount,
  type TestContext,
} from './support/test-app.ts';
import { jpeg, multipart } from './support/media-fixtures.ts';
import { newGallery } from './support/media-helpers.ts';
import { expectRawError, head, rawClients, sleep } from './support/raw-http.ts';

let ctx: TestContext;
let account: TestAccount;
let port = 0;

before(async () => {
  ({ ctx, account, port } = await listeningAccount());
});

after(async () => {
  destroyAll();
  await ctx.close();
});

const { client, destroyAll } = rawClients(() => port);

interface LogLine {
  level: number;
  msg: string;
  request_id?: string;
  status?: number;
}

const logLines = (): LogLine[] =>
  ctx
    .logs()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as LogLine);

describe('requests Node cannot read', () => {
  const cases: [string, string, number, string][] = [
    [
      'a URL over 16 KiB',
      `GET /v1/listings?x=${'a'.repeat(20_000)} HTTP/1.1\r\nhost: x\r\n\r\n`,
      431,
      'headers_too_large',
    ],
    [
      'headers over 16 KiB',
      `GET /healthz HTTP/1.1\r\nhost: x\r\nx-big: ${'b'.repeat(20_000)}\r\n\r\n`,
      431,
      'headers_too_large',
    ],
    ['a malformed request line', 'GARBAGE\r\n\r\n', 400, 'validation_error'],
    [
      'a malformed Content-Length',
      'POST /v1/listings HTTP/1.1\r\nhost: x\r\ncontent-length: abc\r\n\r\n',
      400,
      'validation_error',
    ],
    [
      'two Content-Lengths',
      'POST /v1/listings HTTP/1.1\r\nhost: x\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\n',
      400,
      'validation_error',
    ],
  ];
  for (const [what, request, status, code] of cases) {
    test(`${what}: ${status} in the contract's error body, with a request id and the protective headers`, async () => {
      const c = await client();
      c.write(request);
      const id = expectRawError(await c.answer(5000), status, code);
      await c.closed(3000);
      // The operator can find it by the id the client was given.
      const line = logLines().find((l) => l.request_id === id);
      assert.ok(line !== undefined, `no log line for ${id}`);
      assert.equal(line.status, status);
      assert.ok(line.level < 50);
    });
  }
});

test('a chunked body that breaks its encoding mid-request: 400 through the request, then closed', async () => {
  const c = await client();
  c.write(
    head('POST', '/v1/listings', {
      authorization: `Bearer ${account.key}`,
      'content-type': 'application/json',
      'transfer-encoding': 'chunked',
    }),
  );
  c.write('5\r\n{"add\r\nZZ-not-a-size\r\n');
  const answer = await c.answer(5000);
  expectRawError(answer, 400, 'validation_error');
  assert.equal(answer.headers.connection, 'close');
  assert.equal(typeof answer.headers['ratelimit-remaining'], 'string');
  await c.closed(3000);
});

describe('a client that hangs up mid-body', () => {
  async function hangUp(
    path: string,
    headers: Record<string, string | number>,
    part: string | Buffer,
  ): Promise<string> {
    const id = `hang-up-${Math.random().toString(36).slice(2)}`;
    const c = await client();
    c.write(head('POST', path, { ...headers, 'x-request-id': id, authorization: `Bearer ${account.key}` }));
    c.write(part);
    await sleep(150);
    c.destroy();
    // The request's one log line is written once the server has noticed.
    for (let i = 0; i < 100 && !logLines().some((l) => l.request_id === id && l.msg === 'request'); i += 1) {
      await sleep(50);
    }
    return id;
  }

  test('is logged at info as the client closing, never as a failure or an unavailable database', async () => {
    const listing = await newGallery(ctx, account);
    const { body, contentType } = multipart([{ filename: 'a.jpg', contentType: 'image/jpeg', data: await jpeg() }]);
    const ids = [
      await hangUp('/v1/listings', { 'content-type': 'application/json', 'content-length': 1000 }, '{"address":'),
      await hangUp(
        `/v1/listings/${listing}/media`,
        { 'content-type': contentType, 'content-length': body.length + 10_000 },
        body.subarray(0, 300),
      ),
    ];
    for (const id of ids) {
      const mine = logLines().filter((l) => l.request_id === id);
      assert.ok(
        mine.some((l) => l.msg === 'request'),
        `${id}: no request line in ${JSON.stringify(mine)}`,
      );
      assert.deepEqual(
        mine.filter((l) => l.level >= 50),
        [],
        `${id} was logged as a fault`,
      );
      const request = mine.find((l) => l.msg === 'request');
      assert.ok(request !== undefined && request.status !== undefined && request.status < 500, JSON.stringify(request));
      assert.ok(
        mine.some((l) => l.level === 30 && /client closed/.test(l.msg)),
        JSON.stringify(mine),
      );
    }
    // The gallery got nothing from the abandoned upload.
    const media = await call(ctx, 'GET', `/v1/listings/${listing}/media`, { key: account.key });
    assert.equal(media.json<{ pagination: { total: number } }>().pagination.total, 0);
  });
});

describe('Expect: 100-continue', () => {
  async function expectUpload(key: string, listing: string, headers: Record<string, string> = {}) {
    const { body, contentType } = multipart([{ filename: 'a.jpg', contentType: 'image/jpeg', data: await jpeg() }]);
    const c = await client();
    c.write(
      head('POST', `/v1/listings/${listing}/media`, {
        authorization: `Bearer ${key}`,
        'content-type': contentType,
        'content-length': body.length,
        expect: '100-continue',
        ...headers,
      }),
    );
    return { c, body };
  }

  test('a refused upload gets its final status and no 100: read-only key, Idempotency-Key conflict', async () => {
    const listing = await newGallery(ctx, account);
    const other = await newGallery(ctx, account);
    const readOnly = (await createKey(ctx, account.accountId, { scope: 'read_only' })).key;
    const { c: refused } = await expectUpload(readOnly, listing);
    const answer = await refused.answer(5000);
    assert.equal(answer.status, 403, answer.body);
    assert.deepEqual(answer.interim, []);
    await refused.closed(3000);

    // The key's first use (on another gallery) completes; reusing it here is a conflict.
    const first = await expectUpload(account.key, other, { 'idempotency-key': 'continue-once' });
    for (let i = 0; i < 100 && !first.c.interim().includes(100); i += 1) await sleep(20);
    first.c.write(first.body);
    assert.equal((await first.c.answer(5000)).status, 201);
    const { c: conflict } = await expectUpload(account.key, listing, { 'idempotency-key': 'continue-once' });
    const conflicted = await conflict.answer(5000);
    assert.equal(conflicted.status, 409, conflicted.body);
    assert.deepEqual(conflicted.interim, []);
  });

  test('an accepted upload gets its 100 once the hooks pass, then sends, then 201', async () => {
    const listing = await newGallery(ctx, account);
    const { c, body } = await expectUpload(account.key, listing);
    for (let i = 0; i < 100 && !c.interim().includes(100); i += 1) await sleep(20);
    assert.deepEqual(c.interim(), [100]);
    c.write(body);
    const answer = await c.answer(5000);
    assert.equal(answer.status, 201, answer.body);
  });

  test('a JSON request gets its 100 after the key check; without a valid key, a 401 and no 100', async () => {
    const json = JSON.stringify({ address: '100 Continue Road' });
    const headers = { 'content-type': 'application/json', 'content-length': json.length, expect: '100-continue' };
    const anonymous = await client();
    anonymous.write(head('POST', '/v1/listings', headers));
    const refused = await anonymous.answer(5000);
    assert.equal(refused.status, 401, refused.body);
    assert.deepEqual(refused.interim, []);

    const keyed = await client();
    keyed.write(head('POST', '/v1/listings', { ...headers, authorization: `Bearer ${account.key}` }));
    for (let i = 0; i < 100 && !keyed.interim().includes(100); i += 1) await sleep(20);
    keyed.write(json);
    const created = await keyed.answer(5000);
    assert.equal(created.status, 201, created.body);
    assert.deepEqual(created.interim, [100]);
  });
});

test('at trace level too, no log line holds the API key (the multipart parser logs its headers)', async () => {
  const traced = await createTestContext({ LOG_LEVEL: 'trace' });
  try {
    const owner = await createAccount(traced);
    const listing = (
      await call(traced, 'POST', '/v1/listings', { key: owner.key, body: { address: '1 Trace' } })
    ).json<{
      id: string;
    }>().id;
    const { body, contentType } = multipart([{ filename: 'a.jpg', contentType: 'image/jpeg', data: await jpeg() }]);
    const res = await traced.app.inject({
      method: 'POST',
      url: `/v1/listings/${listing}/media`,
      headers: { authorization: `Bearer ${owner.key}`, 'content-type': contentType, cookie: 'session=secret-cookie' },
      payload: body,
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.match(traced.logs(), /busboyOptions/);
    assert.ok(!traced.logs().includes(owner.key), 'the key is in a log line');
    assert.ok(!traced.logs().includes('secret-cookie'), 'the cookie is in a log line');
  } finally {
    await traced.close();
  }
});
