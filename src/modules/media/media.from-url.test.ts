// Media from a URL (docs/api.md §21), fetched from servers on 127.0.0.1 (WEBHOOK_ALLOW_PRIVATE
// lets the fetch reach loopback, as it lets webhooks): answered as a multipart upload of that one
// file (201, sniffed, checksummed, evented, variants queued, Idempotency-Key replayed), its name
// from `filename`, Content-Disposition or the path; redirects followed up to 5; a non-2xx, a cut
// or an oversize file keeps nothing. Refusals under the default address rules connect nowhere.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type http from 'node:http';
import { after, before, describe, test } from 'node:test';
import {
  call,
  createAccount,
  createTestContext,
  expectError,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { jpeg, pdf } from '../../../test/support/media-fixtures.ts';
import { openUrl } from './media.from-url.ts';
import { cleanupRows, mediaRows, storedKeys, type MediaJson } from '../../../test/support/media-helpers.ts';
import {
  blockedConnections,
  startReceiver,
  systemLookups,
  type Receiver,
} from '../../../test/support/loopback-receivers.ts';

const MAX = 64 * 1024;
let ctx: TestContext;
let me: TestAccount;
let server: Receiver;
let photo: Buffer;
const doc = pdf('from a url');
let hits = 0;

const big = Buffer.concat([pdf('big'), Buffer.alloc(MAX + 10, 0x20)]);

function answer(req: http.IncomingMessage, res: http.ServerResponse): void {
  hits += 1;
  const url = new URL(req.url ?? '/', 'http://x');
  const hop = Number(url.searchParams.get('hop') ?? '0');
  switch (url.pathname) {
    case '/files/plan.pdf':
      res.writeHead(200, { 'content-type': 'application/pdf' }).end(doc);
      return;
    case '/download':
      res.writeHead(200, { 'content-disposition': 'attachment; filename="Front view.jpg"' }).end(photo);
      return;
    case '/redirect':
      res.writeHead(302, { location: hop >= 4 ? '/files/plan.pdf' : `/redirect?hop=${hop + 1}` }).end();
      return;
    case '/bad-redirect':
      // A Location that does not parse as a URL (the test names it in `to`).
      res.writeHead(302, { location: url.searchParams.get('to') ?? '' }).end();
      return;
    case '/loop':
      res.writeHead(302, { location: `/loop?hop=${hop + 1}` }).end();
      return;
    case '/missing':
      res.writeHead(404).end('no');
      return;
    case '/big-declared':
      res.writeHead(200, { 'content-length': String(big.length) }).end(big);
      return;
    case '/big-chunked':
      res.writeHead(200, { 'transfer-encoding': 'chunked' });
      res.write(big.subarray(0, MAX / 2));
      res.end(big.subarray(MAX / 2));
      return;
    case '/text':
      res.writeHead(200).end('just some text, not a photo, video or document');
      return;
    case '/stall-headers':
      // Answers nothing for 2 s (the stall test gives up after 300 ms), then a file.
      setTimeout(() => res.writeHead(200).end(doc), 2000);
      return;
    case '/stall-body':
      res.writeHead(200, { 'content-length': String(doc.length) });
      res.write(doc.subarray(0, 10));
      setTimeout(() => res.end(doc.subarray(10)), 2000);
      return;
    case '/cut':
      res.writeHead(200, { 'content-length': String(doc.length * 4) });
      res.write(doc);
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    default:
      res.writeHead(404).end();
  }
}

before(async () => {
  photo = await jpeg(40, 30);
  ctx = await createTestContext({ WEBHOOK_ALLOW_PRIVATE: 'true', MEDIA_MAX_FILE_BYTES: String(MAX) });
  me = await createAccount(ctx);
  server = await startReceiver((req, res) => answer(req, res));
});
after(async () => {
  await server.close();
  await ctx.close();
  assert.deepEqual(systemLookups, []);
});

async function gallery(): Promise<string> {
  const res = await call(ctx, 'POST', '/v1/listings', { key: me.key, body: { address: '3 Fetch Lane' } });
  return res.json<{ id: string }>().id;
}

const fromUrl = (listingId: string, body: unknown, headers: Record<string, string> = {}) =>
  call(ctx, 'POST', `/v1/listings/${listingId}/media`, { key: me.key, body, headers });

const at = (path: string): string => new URL(path, server.url()).toString();

/** Nothing of a failed fetch is kept: no media row, no stored byte, no lease left. */
async function nothingKept(listingId: string, keysBefore: string[]): Promise<void> {
  assert.deepEqual(await mediaRows(ctx, listingId), []);
  assert.deepEqual(await storedKeys(ctx), keysBefore);
  assert.deepEqual(await cleanupRows(ctx), []);
}

describe('POST /v1/listings/:id/media with {"url"}', () => {
  test('answers as a multipart upload of the file: 201, sniffed, checksummed, named by the path', async () => {
    const id = await gallery();
    const res = await fromUrl(id, { url: at('/files/plan.pdf') });
    assert.equal(res.statusCode, 201, res.body);
    const [media] = res.json<{ data: MediaJson[] }>().data;
    assert.equal(media?.kind, 'document');
    assert.equal(media?.filename, 'plan.pdf');
    assert.equal(media?.content_type, 'application/pdf');
    assert.equal(media?.size, doc.length);
    assert.equal(media?.sha256, createHash('sha256').update(doc).digest('hex'));
    assert.equal(media?.position, 1);
    const content = await call(ctx, 'GET', `/v1/listings/${id}/media/${media.id}/content`, { key: me.key });
    assert.deepEqual(content.rawPayload, doc);
    const stored = await call(ctx, 'GET', `/v1/listings/${id}`, { key: me.key });
    assert.equal(stored.json<{ media_count: number }>().media_count, 1);
    const events = await call(ctx, 'GET', '/v1/events', { key: me.key, query: { type: 'media.created' } });
    assert.ok(
      events.json<{ data: { data: { object: { id: string } } }[] }>().data.some((e) => e.data.object.id === media.id),
    );
  });

  test('a photo: named by Content-Disposition, its variants queued; `filename` wins when given', async () => {
    const id = await gallery();
    const res = await fromUrl(id, { url: at('/download') });
    assert.equal(res.statusCode, 201, res.body);
    const [media] = res.json<{ data: (MediaJson & { variants: { status: string } | null })[] }>().data;
    assert.equal(media?.kind, 'photo');
    assert.equal(media?.filename, 'Front view.jpg');
    assert.equal(media?.width, 40);
    assert.equal(media?.variants?.status, 'pending');
    const jobs = await ctx.deps.db.kysely
      .selectFrom('jobs')
      .select('kind')
      .where('subject_id', '=', media.id)
      .execute();
    assert.ok(jobs.length > 0, 'variants are queued');
    const named = await fromUrl(id, { url: at('/download'), filename: 'mine.jpg' });
    assert.equal(named.json<{ data: MediaJson[] }>().data[0]?.filename, 'mine.jpg');
  });

  test('redirects: up to 5 are followed; a sixth is 422 fetch_failed', async () => {
    const id = await gallery();
    const ok = await fromUrl(id, { url: at('/redirect') });
    assert.equal(ok.statusCode, 201, ok.body);
    assert.equal(ok.json<{ data: MediaJson[] }>().data[0]?.filename, 'plan.pdf');
    const keys = await storedKeys(ctx);
    const loop = await fromUrl(id, { url: at('/loop') });
    assert.equal(loop.statusCode, 422, loop.body);
    assert.equal(loop.json<{ error: { code: string } }>().error.code, 'fetch_failed');
    assert.match(loop.json<{ error: { message: string } }>().error.message, /redirects/);
    assert.deepEqual(await storedKeys(ctx), keys);
  });

  test('a redirect to a Location that does not parse is 422 fetch_failed, logged as no error', async () => {
    const id = await gallery();
    const keys = await storedKeys(ctx);
    for (const to of ['http://[::1', 'http://a:99999/', 'http://exa mple.com/', 'https://[1:2:3]/x']) {
      const res = await fromUrl(id, { url: at(`/bad-redirect?to=${encodeURIComponent(to)}`) });
      const error = expectError(res, 422, 'fetch_failed');
      await nothingKept(id, keys);
      const lines = ctx
        .logs()
        .split('\n')
        .filter((line) => line.includes(error.request_id));
      assert.ok(lines.length > 0);
      assert.ok(!lines.some((line) => line.includes('"level":50')), to);
    }
  });

  test('failures keep nothing: a 404 (422), a cut (422), over the limit declared or streamed (413), not media (415)', async () => {
    const id = await gallery();
    const keys = await storedKeys(ctx);
    const cases: [string, number, string, RegExp?][] = [
      ['/missing', 422, 'fetch_failed', /404/],
      ['/cut', 422, 'fetch_failed', /cut/],
      ['/big-declared', 413, 'payload_too_large'],
      ['/big-chunked', 413, 'payload_too_large'],
      ['/text', 415, 'unsupported_media_type'],
    ];
    for (const [path, status, code, message] of cases) {
      const res = await fromUrl(id, { url: at(path) });
      assert.equal(res.statusCode, status, `${path}: ${res.body}`);
      const error = res.json<{ error: { code: string; message: string } }>().error;
      assert.equal(error.code, code, path);
      if (message !== undefined) assert.match(error.message, message, path);
      await nothingKept(id, keys);
    }
  });

  test('an Idempotency-Key replays the first answer; the file is fetched once', async () => {
    const id = await gallery();
    const before = hits;
    const headers = { 'idempotency-key': `from-url-${id}` };
    const first = await fromUrl(id, { url: at('/files/plan.pdf') }, headers);
    const again = await fromUrl(id, { url: at('/files/plan.pdf') }, headers);
    assert.equal(first.statusCode, 201);
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
    assert.equal(hits - before, 1);
    assert.equal((await mediaRows(ctx, id)).length, 1);
  });

  test('an Idempotency-Key used with another URL is 409 conflict; nothing is fetched or kept', async () => {
    const id = await gallery();
    const headers = { 'idempotency-key': `other-url-${id}` };
    const first = await fromUrl(id, { url: at('/files/plan.pdf') }, headers);
    assert.equal(first.statusCode, 201, first.body);
    const before = hits;
    const other = await fromUrl(id, { url: at('/download') }, headers);
    expectError(other, 409, 'conflict');
    const renamed = await fromUrl(id, { url: at('/files/plan.pdf'), filename: 'other.pdf' }, headers);
    expectError(renamed, 409, 'conflict');
    assert.equal(hits - before, 0);
    assert.equal((await mediaRows(ctx, id)).length, 1);
  });

  test("a bad body is 400 naming the field; another account's gallery is 404 and fetches nothing", async () => {
    const id = await gallery();
    const before = hits;
    for (const [body, field] of [
      [{}, 'url'],
      [{ url: 42 }, 'url'],
      [{ url: 'x'.repeat(2049) }, 'url'],
      [{ url: at('/files/plan.pdf'), filename: 7 }, 'filename'],
      [{ url: at('/files/plan.pdf'), extra: true }, 'extra'],
      [{ url: 'ftp://example.test/file.pdf' }, 'url'],
      [{ url: 'not a url' }, 'url'],
    ] as const) {
      const res = await fromUrl(id, body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.ok(
        res.json<{ error: { details?: { field: string }[] } }>().error.details?.some((d) => d.field === field),
        `${JSON.stringify(body)}: ${res.body}`,
      );
    }
    const other = await createAccount(ctx);
    const theirs = await call(ctx, 'POST', `/v1/listings/${id}/media`, {
      key: other.key,
      body: { url: at('/files/plan.pdf') },
    });
    assert.equal(theirs.statusCode, 404);
    assert.equal(hits, before);
  });
});

describe('the address rules of docs/api.md §15 (WEBHOOK_ALLOW_PRIVATE=false)', () => {
  let strict: TestContext;
  let account: TestAccount;
  before(async () => {
    strict = await createTestContext();
    account = await createAccount(strict);
  });
  after(() => strict.close());

  test('loopback, private and link-local addresses and localhost are 400 naming url; nothing connects', async () => {
    const id = (await call(strict, 'POST', '/v1/listings', { key: account.key, body: { address: 'x' } })).json<{
      id: string;
    }>().id;
    const before = hits;
    for (const url of [
      at('/files/plan.pdf'),
      'http://10.0.0.1/a.pdf',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/a.pdf',
      'http://localhost/a.pdf',
      'http://2130706433/a.pdf',
      'http://0x7f.1/a.pdf',
      'http://[::ffff:127.0.0.1]/a.pdf',
    ]) {
      const res = await call(strict, 'POST', `/v1/listings/${id}/media`, { key: account.key, body: { url } });
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      assert.deepEqual(
        res.json<{ error: { details: { field: string }[] } }>().error.details.map((d) => d.field),
        ['url'],
        url,
      );
    }
    assert.equal(hits, before, 'the loopback server was never reached');
    assert.deepEqual(blockedConnections, []);
  });
});

describe('a stalled fetch (docs/api.md §21: 30 s without a byte, here 300 ms)', () => {
  const options = {
    account: 'acct_stall',
    allowPrivate: true,
    maxBytes: MAX,
    stallMs: 300,
    resolve: (): never => {
      throw new Error('an IP literal is not looked up');
    },
  };
  const read = async (stream: NodeJS.ReadableStream): Promise<Buffer> => {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };

  test('no answer within the stall time is fetch_failed', async () => {
    const started = Date.now();
    await assert.rejects(
      openUrl(at('/stall-headers'), undefined, options),
      (err: { code?: string; message: string }) => {
        assert.equal(err.code, 'fetch_failed');
        assert.match(err.message, /no answer within 0.3 s/);
        return true;
      },
    );
    assert.ok(Date.now() - started < 1900, 'gave up before the server answered');
  });

  test('a body that stops for the stall time fails its stream with fetch_failed', async () => {
    const file = await openUrl(at('/stall-body'), undefined, options);
    await assert.rejects(read(file.stream), (err: { code?: string; message: string }) => {
      assert.equal(err.code, 'fetch_failed');
      assert.match(err.message, /no byte for 0.3 s/);
      return true;
    });
  });

  test('a body that keeps coming within the stall time is whole', async () => {
    const file = await openUrl(at('/files/plan.pdf'), undefined, options);
    assert.deepEqual(await read(file.stream), doc);
  });
});
