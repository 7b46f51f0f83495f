// Conditional requests (docs/api.md §17), on every JSON read the app registers under /v1: the table
// below is checked against the app's own router, so a new GET route without a case fails. Each
// answers 200 with a weak ETag; If-None-Match naming it (alone, in a list, strong or weak, or `*`)
// answers 304 with no body and the same ETag, on GET and HEAD; another tag answers 200. Tags
// differ between URLs and between accounts; errors carry none; refusals come before the 304.
// The OpenAPI document has its own tag and documents the protocol on every such operation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { appRoutes } from '../../test/support/app-routes.ts';
import {
  call,
  createAccount,
  createKey,
  createTestContext,
  expectError,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';
import { multipart, pdf } from '../../test/support/media-fixtures.ts';
import { ifNoneMatch, parseIfNoneMatch } from './conditional.ts';
import { matchesAny } from './send-bytes.ts';
import { readVersions } from '../mechanisms/versions/versions.repository.ts';

let ctx: TestContext;
let owner: TestAccount;
let other: TestAccount;
/** One of each of the owner's resources, made over HTTP. */
const ids: Record<string, string> = {};

async function made(method: string, url: string, body?: unknown, headers?: Record<string, string>) {
  const res = await call(ctx, method, url, { key: owner.key, ...(body === undefined ? {} : { body }), headers });
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json<{ id: string; data?: { id: string }[] }>();
}

before(async () => {
  ctx = await createTestContext();
  owner = await createAccount(ctx, 'Owner studio');
  other = await createAccount(ctx, 'Other studio');
  ids.listing = (await made('POST', '/v1/listings', { address: '1 Harbour Road' })).id;
  ids.client = (
    await made('POST', '/v1/clients', { name: 'Ada', email: `ada.${randomBytes(3).toString('hex')}@x.test` })
  ).id;
  await made('POST', `/v1/clients/${ids.client}/listings/${ids.listing}`);
  const { body, contentType } = multipart([{ filename: 'plan.pdf', data: pdf('plan') }]);
  const uploaded = await made('POST', `/v1/listings/${ids.listing}/media`, body.toString('latin1'), {
    'content-type': contentType,
  });
  ids.media = uploaded.data?.[0]?.id ?? '';
  ids.share = (await made('POST', `/v1/listings/${ids.listing}/share_links`, { label: 'Stager' })).id;
  ids.product = (await made('POST', '/v1/products', { name: 'Photos', unit_amount: 25_000 })).id;
  ids.invoice = (
    await made('POST', '/v1/invoices', { listing_id: ids.listing, items: [{ product_id: ids.product }] })
  ).id;
  ids.profile = (await made('POST', '/v1/mls_profiles', { name: 'Bright MLS' })).id;
  await made('PATCH', `/v1/listings/${ids.listing}`, { mls_profile_id: ids.profile });
  ids.endpoint = (await made('POST', '/v1/webhook_endpoints', { url: 'https://hooks.example.test/in' })).id;
  ids.delivery = (await made('POST', `/v1/webhook_endpoints/${ids.endpoint}/test`)).id;
  const rows = await ctx.deps.db.kysely
    .selectFrom('events')
    .select('id')
    .where('account_id', '=', owner.accountId)
    .where('listed', '=', 1)
    .execute();
  ids.event = rows[0]?.id ?? '';
  const notification = await ctx.deps.db.kysely
    .selectFrom('notifications')
    .select('id')
    .where('account_id', '=', owner.accountId)
    .executeTakeFirstOrThrow();
  ids.notification = notification.id;
});

after(async () => {
  await ctx.close();
});

/** Every JSON read under /v1, with a URL of the owner's that answers 200. */
const READS: Record<string, () => string> = {
  '/v1/listings': () => '/v1/listings?status=draft&limit=5',
  '/v1/listings/:id': () => `/v1/listings/${ids.listing}`,
  '/v1/listings/:id/media': () => `/v1/listings/${ids.listing}/media`,
  '/v1/listings/:id/favorites': () => `/v1/listings/${ids.listing}/favorites`,
  '/v1/listings/:id/share_links': () => `/v1/listings/${ids.listing}/share_links`,
  '/v1/listings/:id/share_links/:share_link_id': () => `/v1/listings/${ids.listing}/share_links/${ids.share}`,
  '/v1/listings/:id/share_links/:share_link_id/favorites': () =>
    `/v1/listings/${ids.listing}/share_links/${ids.share}/favorites`,
  '/v1/listings/:id/media/:media_id': () => `/v1/listings/${ids.listing}/media/${ids.media}`,
  '/v1/clients': () => '/v1/clients?search=ada',
  '/v1/clients/:id': () => `/v1/clients/${ids.client}`,
  '/v1/clients/:id/listings': () => `/v1/clients/${ids.client}/listings`,
  '/v1/notifications': () => '/v1/notifications',
  '/v1/notifications/:id': () => `/v1/notifications/${ids.notification}`,
  '/v1/webhook_endpoints': () => '/v1/webhook_endpoints',
  '/v1/webhook_endpoints/:id': () => `/v1/webhook_endpoints/${ids.endpoint}`,
  '/v1/webhook_endpoints/:id/deliveries': () => `/v1/webhook_endpoints/${ids.endpoint}/deliveries`,
  '/v1/events': () => '/v1/events?type=listing.created',
  '/v1/events/:id': () => `/v1/events/${ids.event}`,
  '/v1/products': () => '/v1/products',
  '/v1/products/:id': () => `/v1/products/${ids.product}`,
  '/v1/invoices': () => `/v1/invoices?listing_id=${ids.listing}`,
  '/v1/invoices/:id': () => `/v1/invoices/${ids.invoice}`,
  '/v1/invoices/:id/payments': () => `/v1/invoices/${ids.invoice}/payments`,
  '/v1/mls_profiles': () => '/v1/mls_profiles',
  '/v1/mls_profiles/:id': () => `/v1/mls_profiles/${ids.profile}`,
  '/v1/listings/:id/compliance': () => `/v1/listings/${ids.listing}/compliance`,
  '/v1/reso/Media': () => '/v1/reso/Media',
  '/v1/listings/:id/kit': () => `/v1/listings/${ids.listing}/kit`,
};
/** Stored bytes: their own strong ETag (sha256 or the variant's), declared with their own 304. */
const BYTES = new Set([
  '/v1/listings/:id/media/:media_id/content',
  '/v1/listings/:id/media/:media_id/variants/:name',
  // The same invoice renders the same bytes: a strong tag of them (src/modules/invoices/invoices.test.ts).
  '/v1/invoices/:id/pdf',
  // A kit item's stored bytes (src/modules/kit/kit.test.ts: ETag, 304, Range).
  '/v1/listings/:id/kit/:name',
]);
const DOCUMENT = '/v1/openapi.json';
/** Differs per key under one URL: tags its own body (src/modules/accounts/account.test.ts). */
// The suggested order follows the studio's room order, a setting no account version follows.
// The RESO feed's links are the day's (docs/api.md §33): its tag is the version and the day.
const OWN_TAG = new Set(['/v1/account', '/v1/listings/:id/media/suggested_order', '/v1/reso/Media']);

/** The account's version, then the views version and the events version (`e`) where the read shows them. */
const WEAK_TAG = /^W\/"\d+(\.\d+)?(\.e\d+)?-[A-Za-z0-9_-]{16}"$/;
/** The reads whose 200 shows a gallery's page counters (`views`), and the event log's (decisions/0014). */
const SHOW_VIEWS = new Set([
  '/v1/listings/:id',
  '/v1/listings/:id/share_links',
  '/v1/listings/:id/share_links/:share_link_id',
]);
const SHOW_EVENTS = new Set(['/v1/events', '/v1/events/:id', '/v1/webhook_endpoints/:id/deliveries']);

describe('every JSON read under /v1 answers If-None-Match', () => {
  test('the table covers every GET route the app registered', () => {
    const gets = appRoutes(ctx.app)
      .filter((r) => r.method === 'GET' && r.url.startsWith('/v1/'))
      .map((r) => r.url);
    const known = new Set([...Object.keys(READS), ...BYTES, ...OWN_TAG, DOCUMENT]);
    assert.deepEqual(
      gets.filter((url) => !known.has(url)),
      [],
      'a GET route without a case here',
    );
    assert.deepEqual(
      [...known].filter((url) => !gets.includes(url)),
      [],
      'a case without a route',
    );
  });

  for (const [route, urlOf] of Object.entries(READS)) {
    test(route, async () => {
      const url = urlOf();
      const first = await call(ctx, 'GET', url, { key: owner.key });
      assert.equal(first.statusCode, 200, first.body);
      const etag = String(first.headers.etag);
      assert.match(etag, WEAK_TAG);

      // Nothing changed: the same tag, the same body.
      const again = await call(ctx, 'GET', url, { key: owner.key });
      assert.equal(again.headers.etag, etag);
      assert.equal(again.body, first.body);

      const opaque = etag.slice(2);
      for (const header of [etag, opaque, `"nope", ${etag}`, `W/"1-x" ,${opaque} , "z"`, '*']) {
        for (const method of ['GET', 'HEAD']) {
          const res = await call(ctx, method, url, { key: owner.key, headers: { 'if-none-match': header } });
          assert.equal(res.statusCode, 304, `${method} If-None-Match: ${header}`);
          assert.equal(res.body, '', header);
          assert.equal(res.headers.etag, etag, header);
          assert.equal(res.headers['content-length'], undefined, header);
          assert.equal(res.headers['content-type'], undefined, header);
        }
      }
      for (const header of [
        '"nope"',
        'W/"0-AAAAAAAAAAAAAAAA"',
        etag.replace(/"(\d+)([.-])/, (_m, v: string, after: string) => `"${Number(v) + 1}${after}`),
        'garbage',
        `"a" "b" ${etag}`,
      ]) {
        const res = await call(ctx, 'GET', url, { key: owner.key, headers: { 'if-none-match': header } });
        assert.equal(res.statusCode, 200, `If-None-Match: ${header}`);
        assert.equal(res.headers.etag, etag);
        assert.equal(res.body, first.body);
      }

      // Another account never gets this tag for this URL (a 404 for an item: no tag at all).
      const theirs = await call(ctx, 'GET', url, { key: other.key, headers: { 'if-none-match': etag } });
      assert.notEqual(theirs.statusCode, 304);
      assert.notEqual(theirs.headers.etag, etag);
      if (theirs.statusCode !== 200) assert.equal(theirs.headers.etag, undefined);
    });
  }
});

describe('what the tag depends on, and what comes first', () => {
  test('a read is tagged with the views and events versions only where its body shows them', async () => {
    for (const [route, urlOf] of Object.entries(READS)) {
      const res = await call(ctx, 'GET', urlOf(), { key: owner.key });
      const [, views, events] = /^W\/"\d+(\.\d+)?(\.e\d+)?-/.exec(String(res.headers.etag)) ?? [];
      assert.equal(views !== undefined, SHOW_VIEWS.has(route), `${route}: the views version`);
      assert.equal(events !== undefined, SHOW_EVENTS.has(route), `${route}: the events version`);
    }
  });

  test('different URLs (another query) have different tags; a read-only key sees the same tags', async () => {
    const readOnly = await createKey(ctx, owner.accountId, { scope: 'read_only' });
    const tags = new Set<string>();
    for (const url of ['/v1/listings', '/v1/listings?page=1', '/v1/listings?limit=5', '/v1/clients']) {
      const res = await call(ctx, 'GET', url, { key: owner.key });
      const viaReadOnly = await call(ctx, 'GET', url, { key: readOnly.key });
      assert.equal(viaReadOnly.headers.etag, res.headers.etag);
      tags.add(String(res.headers.etag));
    }
    assert.equal(tags.size, 4);
  });

  test('reads of several accounts at once share a version read, each tag naming its own account version', async () => {
    const versionOf = async (accountId: string): Promise<number> =>
      (
        await ctx.deps.db.kysely
          .selectFrom('account_versions')
          .select('version')
          .where('account_id', '=', accountId)
          .executeTakeFirst()
      )?.version ?? 0;
    // Their versions differ: the owner has written more than the other account.
    const mine = await versionOf(owner.accountId);
    const theirs = await versionOf(other.accountId);
    assert.notEqual(mine, theirs);
    // The read a turn's requests share: one statement for every account in it.
    const together = await readVersions(ctx.deps.db.kysely, [owner.accountId, other.accountId, 'acc_never_wrote']);
    assert.deepEqual(
      [...together.entries()].map(([id, v]) => [id, v.version]).sort(),
      [
        [owner.accountId, mine],
        [other.accountId, theirs],
        ['acc_never_wrote', 0],
      ].sort(),
    );
    // Started in one turn, so their versions are read together (src/lib/coalesce.ts).
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => {
        const who = i % 2 === 0 ? owner : other;
        return call(ctx, 'GET', '/v1/listings?limit=3', { key: who.key }).then((res) => ({ who, res }));
      }),
    );
    for (const { who, res } of answers) {
      assert.equal(res.statusCode, 200, res.body);
      const expected = who === owner ? mine : theirs;
      assert.match(String(res.headers.etag), new RegExp(`^W/"${expected}-`));
    }
  });

  test('errors carry no tag, and If-None-Match: * never turns a 404 into a 304', async () => {
    const url = '/v1/listings/lst_0000000000000000000000ZZZZ';
    const res = await call(ctx, 'GET', url, { key: owner.key, headers: { 'if-none-match': '*' } });
    expectError(res, 404, 'not_found');
    assert.equal(res.headers.etag, undefined);
    const bad = await call(ctx, 'GET', '/v1/listings?limit=1000', {
      key: owner.key,
      headers: { 'if-none-match': '*' },
    });
    expectError(bad, 400, 'validation_error');
    assert.equal(bad.headers.etag, undefined);
  });

  test('a refused request is refused whatever its If-None-Match (key, validation, Idempotency-Key)', async () => {
    const ok = await call(ctx, 'GET', '/v1/listings', { key: owner.key });
    const etag = String(ok.headers.etag);
    expectError(await call(ctx, 'GET', '/v1/listings', { headers: { 'if-none-match': etag } }), 401, 'unauthorized');
    const used = `etag-${randomBytes(4).toString('hex')}`;
    await made('POST', '/v1/listings', { address: 'Idempotent Lane' }, { 'idempotency-key': used });
    const now = String((await call(ctx, 'GET', '/v1/listings', { key: owner.key })).headers.etag);
    const conflict = await call(ctx, 'GET', '/v1/listings', {
      key: owner.key,
      headers: { 'if-none-match': now, 'idempotency-key': used },
    });
    expectError(conflict, 409, 'conflict');
  });

  test('the OpenAPI document: a strong tag of its bytes, 304 on a match, without a key', async () => {
    const first = await call(ctx, 'GET', DOCUMENT);
    assert.equal(first.statusCode, 200);
    const etag = String(first.headers.etag);
    assert.match(etag, /^"[A-Za-z0-9_-]{32}"$/);
    for (const header of [etag, `W/${etag}`, `"x", ${etag}`, '*']) {
      const res = await call(ctx, 'GET', DOCUMENT, { headers: { 'if-none-match': header } });
      assert.equal(res.statusCode, 304, header);
      assert.equal(res.body, '');
      assert.equal(res.headers.etag, etag);
    }
    const miss = await call(ctx, 'GET', DOCUMENT, { headers: { 'if-none-match': '"other"' } });
    assert.equal(miss.statusCode, 200);
    assert.equal(miss.body, first.body);
  });

  test('the document states the protocol on every JSON read: ETag, If-None-Match, 304', async () => {
    const doc = (await call(ctx, 'GET', DOCUMENT)).json();
    for (const route of [...Object.keys(READS), DOCUMENT]) {
      const path = route.replace(/:([a-z_]+)/g, '{$1}');
      const operation = doc.paths[path]?.get;
      assert.ok(operation !== undefined, path);
      assert.ok(operation.responses['304'] !== undefined, `${path} documents 304`);
      assert.ok(operation.responses['200'].headers.ETag !== undefined, `${path} 200 documents ETag`);
      assert.ok(operation.responses['304'].headers.ETag !== undefined, `${path} 304 documents ETag`);
      const names = (operation.parameters as { $ref?: string; name?: string }[]).map((p) =>
        p.$ref === undefined ? String(p.name).toLowerCase() : (p.$ref.split('/').pop() ?? ''),
      );
      assert.ok(names.includes('IfNoneMatch') || names.includes('if-none-match'), `${path} takes If-None-Match`);
    }
  });
});

describe('If-None-Match parsing (RFC 9110 13.1.2, weak comparison)', () => {
  test('lists, weak and strong tags, *, and malformed values', () => {
    assert.deepEqual(parseIfNoneMatch('"a", W/"b",,"c,d"'), ['"a"', '"b"', '"c,d"']);
    assert.equal(parseIfNoneMatch(' * '), '*');
    assert.deepEqual(parseIfNoneMatch(''), []);
    for (const bad of ['a', '"a', '"a" "b"', 'W/a', '"a b"', '"a"x', 'w/"a"'])
      assert.equal(parseIfNoneMatch(bad), null, bad);
    assert.equal(ifNoneMatch('"x", W/"1-abc"', 'W/"1-abc"'), 'match');
    assert.equal(ifNoneMatch('"1-abc"', 'W/"1-abc"'), 'match');
    assert.equal(ifNoneMatch('W/"1-ab"', 'W/"1-abc"'), 'none');
    assert.equal(ifNoneMatch('*', 'W/"1-abc"'), 'any');
    assert.equal(ifNoneMatch(undefined, 'W/"1-abc"'), 'none');
    assert.equal(ifNoneMatch('"1-abc" junk', 'W/"1-abc"'), 'none');
  });

  test('a value over 8192 characters is ignored, whatever it names', () => {
    const long = `${'"x", '.repeat(1700)}"1-abc"`;
    assert.ok(long.length > 8192);
    assert.equal(parseIfNoneMatch(long), null);
    assert.equal(ifNoneMatch(long, 'W/"1-abc"'), 'none');
    assert.equal(ifNoneMatch(` "1-abc"${' '.repeat(8184)}`, 'W/"1-abc"'), 'match', '8192 is still read');
  });

  test('stored bytes parse If-None-Match the same way: a quoted comma is part of its tag', () => {
    assert.equal(matchesAny('"a,b"', '"a,b"'), true);
    assert.equal(matchesAny('"a,b"', '"a"'), false, 'not split at the comma inside the quotes');
    assert.equal(matchesAny('W/"sha"', '"sha"'), true, 'weak comparison');
    assert.equal(matchesAny('*', '"sha"'), true);
    assert.equal(matchesAny('sha', '"sha"'), false, 'malformed: ignored');
    assert.equal(matchesAny(undefined, '"sha"'), false);
  });
});
