// Tenant isolation, as one shared suite over every id-bearing /v1 route the app registers (the
// table below is checked against the app's own router, so a new route with an id in its path
// cannot be left out): account B, with a full-access key, calls each of them with account A's
// ids, in every combination of A's and B's own ids. Every call is 404 not_found, exactly as for
// an id that does not exist, and nothing anywhere changes: no row of any table, no stored object.
// The same suite sets a studio's test mode apart from its live mode (docs/api.md §20): the twins
// test/mode-isolation*.test.ts run it with B the studio's own other mode (PAIR below).
// node:test's describe() and test() return promises that the runner itself awaits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { appRoutes, routeKey } from './support/app-routes.ts';
import {
  call,
  createAccount,
  createTestContext,
  expectError,
  testModeOf,
  type TestAccount,
  type TestContext,
} from './support/test-app.ts';
import { jpeg, multipart, pdf } from './support/media-fixtures.ts';
import { takeSnapshot } from './support/snapshot.ts';
import { makeVariantsNow } from './support/media-helpers.ts';
import { newInvoice, newProduct } from './support/invoices.ts';

/** One account's resources: a gallery with media, a client, an assignment and its notification. */
interface Holdings {
  /** An unfinished resumable upload (docs/api.md §16) of `listing`. */
  upload: string;
  endpoint: string;
  delivery: string;
  event: string;
  listing: string;
  media: string;
  client: string;
  /** A gallery assigned to `assignedClient`. */
  assignedListing: string;
  assignedClient: string;
  notification: string;
  /** A share link (docs/api.md §28) of `listing`, emailed to someone. */
  shareLink: string;
  /** A product, a draft invoice and an open one of `assignedListing` (docs/api.md §29). */
  product: string;
  invoice: string;
  openInvoice: string;
  /** An MLS profile, the gallery `listing`'s (docs/api.md §31). */
  profile: string;
}

interface Request {
  url: string;
  body?: string;
  headers?: Record<string, string>;
}

/** A well-formed id that no account has. */
const MISSING = { lst: 'lst_0000000000000000000000ZZZZ', cli: 'cli_0000000000000000000000ZZZZ' } as const;

/** Who B is: another studio, or A's studio in the other mode (a test key at live ids, or the reverse). */
const PAIR = process.env.LIGHTBOX_ISOLATION_PAIR ?? 'studios';

let ctx: TestContext;
let a: TestAccount;
let b: TestAccount;
let ofA: Holdings;
let ofB: Holdings;
let photo: Buffer;

async function json(account: TestAccount, method: string, url: string, body?: unknown): Promise<{ id: string }> {
  const res = await call(ctx, method, url, { key: account.key, ...(body === undefined ? {} : { body }) });
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json<{ id: string }>();
}

const TUS = { 'tus-resumable': '1.0.0' };
/** A tus PATCH of a few bytes at offset 0. */
const chunk = (): Pick<Request, 'body' | 'headers'> => ({
  body: 'intruder',
  headers: { ...TUS, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
});

function upload(): { body: string; headers: Record<string, string> } {
  const { body, contentType } = multipart([{ filename: 'intruder.pdf', contentType: 'application/pdf', data: pdf() }]);
  return { body: body.toString('latin1'), headers: { 'content-type': contentType } };
}

async function hold(account: TestAccount): Promise<Holdings> {
  const listing = (await json(account, 'POST', '/v1/listings', { address: '1 Private Lane', beds: 2 })).id;
  const { body, contentType } = multipart([{ filename: 'a.jpg', contentType: 'image/jpeg', data: photo }]);
  const uploaded = await ctx.app.inject({
    method: 'POST',
    url: `/v1/listings/${listing}/media`,
    headers: { authorization: `Bearer ${account.key}`, 'content-type': contentType },
    payload: body,
  });
  assert.equal(uploaded.statusCode, 201, uploaded.body);
  const media = uploaded.json<{ data: { id: string }[] }>().data[0]?.id ?? '';
  const email = () => `c.${randomBytes(4).toString('hex')}@example.test`;
  const client = (await json(account, 'POST', '/v1/clients', { name: 'Private Client', email: email() })).id;
  const assignedClient = (await json(account, 'POST', '/v1/clients', { name: 'Assigned', email: email() })).id;
  const assignedListing = (await json(account, 'POST', '/v1/listings', { address: '2 Private Lane' })).id;
  await json(account, 'POST', `/v1/clients/${assignedClient}/listings/${assignedListing}`);
  const notification = await ctx.deps.db.kysely
    .selectFrom('notifications')
    .select('id')
    .where('account_id', '=', account.accountId)
    .where('listing_id', '=', assignedListing)
    .executeTakeFirstOrThrow();
  const endpoint = (await json(account, 'POST', '/v1/webhook_endpoints', { url: 'https://hooks.example.test/in' })).id;
  const delivery = (await json(account, 'POST', `/v1/webhook_endpoints/${endpoint}/test`)).id;
  const event = await ctx.deps.db.kysely
    .selectFrom('events')
    .select('id')
    .where('account_id', '=', account.accountId)
    .where('listed', '=', 1)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  const created = await ctx.app.inject({
    method: 'POST',
    url: `/v1/listings/${listing}/uploads`,
    headers: { authorization: `Bearer ${account.key}`, ...TUS, 'upload-length': '1000' },
  });
  assert.equal(created.statusCode, 201, created.body);
  const upload = String(created.headers.location).split('/').pop() ?? '';
  const shareLink = (
    await json(account, 'POST', `/v1/listings/${listing}/share_links`, { label: 'Agent team', email: email() })
  ).id;
  const product = await newProduct(ctx, account);
  const invoice = await newInvoice(ctx, account, assignedListing);
  const openInvoice = await newInvoice(ctx, account, assignedListing, { open: true });
  const profile = (await json(account, 'POST', '/v1/mls_profiles', { name: 'Private MLS' })).id;
  await json(account, 'PATCH', `/v1/listings/${listing}`, { mls_profile_id: profile });
  return {
    profile,
    shareLink,
    product,
    invoice,
    openInvoice,
    upload,
    listing,
    media,
    client,
    assignedListing,
    assignedClient,
    notification: notification.id,
    endpoint,
    delivery,
    event: event.id,
  };
}

/**
 * Every id-bearing route, with B's requests at A's data: each request a caller could make with
 * those ids (A's own, A's and B's mixed, and A's pairs that really go together).
 */
const CASES: Record<string, () => Request[]> = {
  'GET /v1/listings/:id': () => [{ url: `/v1/listings/${ofA.listing}` }],
  'PATCH /v1/listings/:id': () => [
    { url: `/v1/listings/${ofA.listing}`, body: JSON.stringify({ status: 'archived', address: 'Taken over' }) },
  ],
  'DELETE /v1/listings/:id': () => [
    { url: `/v1/listings/${ofA.listing}` },
    { url: `/v1/listings/${ofA.assignedListing}` },
  ],
  'GET /v1/listings/:id/media': () => [{ url: `/v1/listings/${ofA.listing}/media` }],
  'POST /v1/listings/:id/media': () => [{ url: `/v1/listings/${ofA.listing}/media`, ...upload() }],
  'POST /v1/listings/:id/uploads': () => [
    { url: `/v1/listings/${ofA.listing}/uploads`, headers: { ...TUS, 'upload-length': '8' } },
    {
      url: `/v1/listings/${ofA.listing}/uploads`,
      body: 'intruder',
      headers: { ...TUS, 'upload-length': '8', 'content-type': 'application/offset+octet-stream' },
    },
  ],
  'PATCH /v1/listings/:id/uploads/:upload_id': () => [
    { url: `/v1/listings/${ofA.listing}/uploads/${ofA.upload}`, ...chunk() },
    { url: `/v1/listings/${ofB.listing}/uploads/${ofA.upload}`, ...chunk() },
    { url: `/v1/listings/${ofA.listing}/uploads/${ofB.upload}`, ...chunk() },
  ],
  'DELETE /v1/listings/:id/uploads/:upload_id': () => [
    { url: `/v1/listings/${ofA.listing}/uploads/${ofA.upload}`, headers: TUS },
    { url: `/v1/listings/${ofB.listing}/uploads/${ofA.upload}`, headers: TUS },
    { url: `/v1/listings/${ofA.listing}/uploads/${ofB.upload}`, headers: TUS },
  ],
  'GET /v1/listings/:id/media/:media_id': () => [
    { url: `/v1/listings/${ofA.listing}/media/${ofA.media}` },
    { url: `/v1/listings/${ofB.listing}/media/${ofA.media}` },
    { url: `/v1/listings/${ofA.listing}/media/${ofB.media}` },
  ],
  'GET /v1/listings/:id/media/:media_id/content': () => [
    { url: `/v1/listings/${ofA.listing}/media/${ofA.media}/content` },
    { url: `/v1/listings/${ofB.listing}/media/${ofA.media}/content` },
    { url: `/v1/listings/${ofA.listing}/media/${ofA.media}/content`, headers: { range: 'bytes=0-9' } },
  ],
  'PATCH /v1/listings/:id/media/:media_id': () => [
    { url: `/v1/listings/${ofA.listing}/media/${ofA.media}`, body: JSON.stringify({ caption: 'mine', hidden: true }) },
    { url: `/v1/listings/${ofB.listing}/media/${ofA.media}`, body: JSON.stringify({ position: 1 }) },
  ],
  'PUT /v1/listings/:id/media/order': () => [
    { url: `/v1/listings/${ofA.listing}/media/order`, body: JSON.stringify({ media_ids: [ofA.media] }) },
    { url: `/v1/listings/${ofA.listing}/media/order`, body: JSON.stringify({ media_ids: [ofB.media] }) },
  ],
  'GET /v1/listings/:id/media/suggested_order': () => [{ url: `/v1/listings/${ofA.listing}/media/suggested_order` }],
  'GET /v1/listings/:id/media/:media_id/variants/:name': () => [
    { url: `/v1/listings/${ofA.listing}/media/${ofA.media}/variants/thumb` },
    { url: `/v1/listings/${ofB.listing}/media/${ofA.media}/variants/large` },
    { url: `/v1/listings/${ofA.listing}/media/${ofA.media}/variants/mls`, headers: { range: 'bytes=0-9' } },
  ],
  // docs/api.md §32: another studio's gallery has no kit to read, build or download.
  'GET /v1/listings/:id/kit': () => [{ url: `/v1/listings/${ofA.listing}/kit` }],
  'POST /v1/listings/:id/kit': () => [{ url: `/v1/listings/${ofA.listing}/kit` }],
  'GET /v1/listings/:id/kit/:name': () => [
    { url: `/v1/listings/${ofA.listing}/kit/flyer` },
    { url: `/v1/listings/${ofA.listing}/kit/mls_zip`, headers: { range: 'bytes=0-9' } },
  ],
  'DELETE /v1/listings/:id/media/:media_id': () => [
    { url: `/v1/listings/${ofA.listing}/media/${ofA.media}` },
    { url: `/v1/listings/${ofB.listing}/media/${ofA.media}` },
  ],
  'GET /v1/clients/:id': () => [{ url: `/v1/clients/${ofA.client}` }, { url: `/v1/clients/${ofA.assignedClient}` }],
  'PATCH /v1/clients/:id': () => [
    { url: `/v1/clients/${ofA.client}`, body: JSON.stringify({ email: 'hijacked@example.test', notes: 'mine now' }) },
  ],
  'DELETE /v1/clients/:id': () => [{ url: `/v1/clients/${ofA.client}` }, { url: `/v1/clients/${ofA.assignedClient}` }],
  'GET /v1/clients/:id/listings': () => [{ url: `/v1/clients/${ofA.assignedClient}/listings` }],
  'POST /v1/clients/:id/listings/:listing_id': () => [
    { url: `/v1/clients/${ofA.client}/listings/${ofA.listing}` },
    { url: `/v1/clients/${ofB.client}/listings/${ofA.listing}` },
    { url: `/v1/clients/${ofA.client}/listings/${ofB.listing}` },
  ],
  'DELETE /v1/clients/:id/listings/:listing_id': () => [
    { url: `/v1/clients/${ofA.assignedClient}/listings/${ofA.assignedListing}` },
    { url: `/v1/clients/${ofB.assignedClient}/listings/${ofA.assignedListing}` },
    { url: `/v1/clients/${ofA.assignedClient}/listings/${ofB.assignedListing}` },
  ],
  'GET /v1/notifications/:id': () => [{ url: `/v1/notifications/${ofA.notification}` }],
  'GET /v1/webhook_endpoints/:id': () => [{ url: `/v1/webhook_endpoints/${ofA.endpoint}` }],
  'PATCH /v1/webhook_endpoints/:id': () => [
    { url: `/v1/webhook_endpoints/${ofA.endpoint}`, body: JSON.stringify({ url: 'https://evil.example.test/x' }) },
  ],
  'DELETE /v1/webhook_endpoints/:id': () => [{ url: `/v1/webhook_endpoints/${ofA.endpoint}` }],
  'POST /v1/webhook_endpoints/:id/rotate_secret': () => [
    { url: `/v1/webhook_endpoints/${ofA.endpoint}/rotate_secret` },
  ],
  'POST /v1/webhook_endpoints/:id/test': () => [{ url: `/v1/webhook_endpoints/${ofA.endpoint}/test` }],
  'GET /v1/webhook_endpoints/:id/deliveries': () => [{ url: `/v1/webhook_endpoints/${ofA.endpoint}/deliveries` }],
  'POST /v1/webhook_endpoints/:id/deliveries/:delivery_id/retry': () => [
    { url: `/v1/webhook_endpoints/${ofA.endpoint}/deliveries/${ofA.delivery}/retry` },
    { url: `/v1/webhook_endpoints/${ofB.endpoint}/deliveries/${ofA.delivery}/retry` },
    { url: `/v1/webhook_endpoints/${ofA.endpoint}/deliveries/${ofB.delivery}/retry` },
  ],
  'GET /v1/events/:id': () => [{ url: `/v1/events/${ofA.event}` }],
  'POST /v1/listings/:id/client_link': () => [{ url: `/v1/listings/${ofA.assignedListing}/client_link` }],
  'GET /v1/listings/:id/favorites': () => [{ url: `/v1/listings/${ofA.assignedListing}/favorites` }],
  'PUT /v1/listings/:id/property_page': () => [{ url: `/v1/listings/${ofA.listing}/property_page` }],
  'DELETE /v1/listings/:id/property_page': () => [{ url: `/v1/listings/${ofA.listing}/property_page` }],
  'PATCH /v1/listings/:id/client_link': () => [
    {
      url: `/v1/listings/${ofA.assignedListing}/client_link`,
      body: JSON.stringify({ downloads_enabled: false, password: 'intruder password' }),
    },
  ],
  'POST /v1/clients/:id/portal/rotate': () => [{ url: `/v1/clients/${ofA.client}/portal/rotate` }],
  'GET /v1/listings/:id/share_links': () => [{ url: `/v1/listings/${ofA.listing}/share_links` }],
  'POST /v1/listings/:id/share_links': () => [
    { url: `/v1/listings/${ofA.listing}/share_links`, body: JSON.stringify({ label: 'Intruder' }) },
  ],
  'GET /v1/listings/:id/share_links/:share_link_id': () => [
    { url: `/v1/listings/${ofA.listing}/share_links/${ofA.shareLink}` },
    { url: `/v1/listings/${ofB.listing}/share_links/${ofA.shareLink}` },
    { url: `/v1/listings/${ofA.listing}/share_links/${ofB.shareLink}` },
  ],
  'PATCH /v1/listings/:id/share_links/:share_link_id': () => [
    {
      url: `/v1/listings/${ofA.listing}/share_links/${ofA.shareLink}`,
      body: JSON.stringify({ label: 'Taken over', password: 'intruder password' }),
    },
    { url: `/v1/listings/${ofB.listing}/share_links/${ofA.shareLink}`, body: JSON.stringify({ label: 'Taken over' }) },
  ],
  'DELETE /v1/listings/:id/share_links/:share_link_id': () => [
    { url: `/v1/listings/${ofA.listing}/share_links/${ofA.shareLink}` },
    { url: `/v1/listings/${ofB.listing}/share_links/${ofA.shareLink}` },
  ],
  'POST /v1/listings/:id/share_links/:share_link_id/rotate': () => [
    { url: `/v1/listings/${ofA.listing}/share_links/${ofA.shareLink}/rotate` },
    { url: `/v1/listings/${ofB.listing}/share_links/${ofA.shareLink}/rotate` },
  ],
  'POST /v1/listings/:id/share_links/:share_link_id/notify': () => [
    { url: `/v1/listings/${ofA.listing}/share_links/${ofA.shareLink}/notify` },
    { url: `/v1/listings/${ofB.listing}/share_links/${ofA.shareLink}/notify` },
  ],
  'GET /v1/listings/:id/share_links/:share_link_id/favorites': () => [
    { url: `/v1/listings/${ofA.listing}/share_links/${ofA.shareLink}/favorites` },
    { url: `/v1/listings/${ofB.listing}/share_links/${ofA.shareLink}/favorites` },
  ],
  'GET /v1/products/:id': () => [{ url: `/v1/products/${ofA.product}` }],
  'PATCH /v1/products/:id': () => [
    { url: `/v1/products/${ofA.product}`, body: JSON.stringify({ name: 'Taken over', unit_amount: 1 }) },
  ],
  'DELETE /v1/products/:id': () => [{ url: `/v1/products/${ofA.product}` }],
  'GET /v1/invoices/:id': () => [{ url: `/v1/invoices/${ofA.invoice}` }, { url: `/v1/invoices/${ofA.openInvoice}` }],
  'PATCH /v1/invoices/:id': () => [
    { url: `/v1/invoices/${ofA.invoice}`, body: JSON.stringify({ discount: 0, note: 'Taken over' }) },
  ],
  'DELETE /v1/invoices/:id': () => [{ url: `/v1/invoices/${ofA.invoice}` }],
  'POST /v1/invoices/:id/issue': () => [{ url: `/v1/invoices/${ofA.invoice}/issue` }],
  'POST /v1/invoices/:id/void': () => [{ url: `/v1/invoices/${ofA.openInvoice}/void` }],
  'POST /v1/invoices/:id/payments': () => [
    { url: `/v1/invoices/${ofA.openInvoice}/payments`, body: JSON.stringify({ amount: 100, method: 'cash' }) },
  ],
  'GET /v1/invoices/:id/payments': () => [{ url: `/v1/invoices/${ofA.openInvoice}/payments` }],
  'GET /v1/invoices/:id/pdf': () => [{ url: `/v1/invoices/${ofA.invoice}/pdf` }],
  'GET /v1/mls_profiles/:id': () => [{ url: `/v1/mls_profiles/${ofA.profile}` }],
  'PATCH /v1/mls_profiles/:id': () => [
    { url: `/v1/mls_profiles/${ofA.profile}`, body: JSON.stringify({ name: 'Taken over', max_photos: 1 }) },
  ],
  'DELETE /v1/mls_profiles/:id': () => [{ url: `/v1/mls_profiles/${ofA.profile}` }],
  // Another studio's profile named by ?profile_id= is 400, as an unknown one is (mls.compliance.test.ts).
  'GET /v1/listings/:id/compliance': () => [{ url: `/v1/listings/${ofA.listing}/compliance` }],
  'POST /v1/clients/:id/listings/:listing_id/notify': () => [
    { url: `/v1/clients/${ofA.assignedClient}/listings/${ofA.assignedListing}/notify` },
    { url: `/v1/clients/${ofB.assignedClient}/listings/${ofA.assignedListing}/notify` },
    { url: `/v1/clients/${ofA.assignedClient}/listings/${ofB.assignedListing}/notify` },
  ],
};

/** The same request with A's ids swapped for ids no account has: what B must not tell apart. */
const withMissingIds = (url: string): string =>
  url
    .replaceAll(ofA.listing, MISSING.lst)
    .replaceAll(ofA.assignedListing, MISSING.lst)
    .replaceAll(ofA.client, MISSING.cli)
    .replaceAll(ofA.assignedClient, MISSING.cli)
    .replaceAll(ofA.media, 'med_0000000000000000000000ZZZZ')
    .replaceAll(ofA.upload, 'upl_0000000000000000000000ZZZZ')
    .replaceAll(ofA.notification, 'ntf_0000000000000000000000ZZZZ')
    .replaceAll(ofA.endpoint, 'whe_0000000000000000000000ZZZZ')
    .replaceAll(ofA.delivery, 'whd_0000000000000000000000ZZZZ')
    .replaceAll(ofA.event, 'evt_0000000000000000000000ZZZZ')
    .replaceAll(ofA.shareLink, 'shl_0000000000000000000000ZZZZ')
    .replaceAll(ofA.product, 'prd_0000000000000000000000ZZZZ')
    .replaceAll(ofA.profile, 'mlp_0000000000000000000000ZZZZ')
    .replaceAll(ofA.openInvoice, 'ivc_0000000000000000000000ZZZY')
    .replaceAll(ofA.invoice, 'ivc_0000000000000000000000ZZZZ');

function withoutRequestId(body: string): unknown {
  const { error } = JSON.parse(body) as { error: Record<string, unknown> };
  return { ...error, request_id: undefined };
}

before(async () => {
  ctx = await createTestContext({ RATE_LIMIT_PER_MINUTE: '1000000000' });
  photo = await jpeg();
  if (PAIR === 'studios') {
    a = await createAccount(ctx, 'Studio A');
    b = await createAccount(ctx, 'Studio B');
  } else {
    const live = await createAccount(ctx, 'Studio A');
    const test = await testModeOf(ctx, live);
    [a, b] = PAIR === 'test-key-on-live' ? [live, test] : [test, live];
  }
  ofA = await hold(a);
  ofB = await hold(b);
  // The photos' variants are made before any snapshot, so the variant route has bytes to refuse.
  await makeVariantsNow(ctx);
});

after(async () => {
  await ctx.close();
});

describe(PAIR === 'studios' ? 'tenant isolation' : `mode isolation (${PAIR})`, () => {
  test('the suite covers every id-bearing /v1 route the app registered', () => {
    const idRoutes = appRoutes(ctx.app)
      // OPTIONS of the uploads (docs/api.md §16) needs no key and reads nothing: it is the same for any id.
      .filter((r) => r.url.startsWith('/v1/') && r.url.includes('/:') && r.method !== 'HEAD' && r.method !== 'OPTIONS')
      .map(routeKey)
      .sort();
    assert.deepEqual(Object.keys(CASES).sort(), idRoutes);
  });

  for (const [route, requests] of Object.entries(CASES)) {
    const [method = ''] = route.split(' ');
    test(`${route}: B's key on A's ids is 404, like a missing id; nothing changes`, async () => {
      const before = await takeSnapshot(ctx);
      for (const request of requests()) {
        const options = {
          key: b.key,
          ...(request.body === undefined ? {} : { body: request.body }),
          ...(request.headers === undefined ? {} : { headers: request.headers }),
        };
        const res = await call(ctx, method, request.url, options);
        expectError(res, 404, 'not_found');
        assert.deepEqual(await takeSnapshot(ctx), before, `${method} ${request.url} changed something`);
        // Indistinguishable from an id that does not exist, message included.
        const missing = await call(ctx, method, withMissingIds(request.url), options);
        assert.deepEqual(withoutRequestId(res.body), withoutRequestId(missing.body), request.url);
      }
      assert.deepEqual(await takeSnapshot(ctx), before);
    });
  }

  test("A still sees all of its data as it was, and B's lists hold none of it", async () => {
    const gallery = await call(ctx, 'GET', `/v1/listings/${ofA.listing}`, { key: a.key });
    assert.equal(gallery.statusCode, 200);
    assert.deepEqual(
      [gallery.json<{ address: string }>().address, gallery.json<{ status: string }>().status],
      ['1 Private Lane', 'draft'],
    );
    const content = await call(ctx, 'GET', `/v1/listings/${ofA.listing}/media/${ofA.media}/content`, { key: a.key });
    assert.equal(content.statusCode, 200);
    assert.deepEqual(content.rawPayload, photo);
    const assigned = await call(ctx, 'GET', `/v1/clients/${ofA.assignedClient}/listings`, { key: a.key });
    assert.deepEqual(
      assigned.json<{ data: { id: string }[] }>().data.map((g) => g.id),
      [ofA.assignedListing],
    );
    const aIds = new Set(Object.values(ofA));
    for (const url of [
      '/v1/listings?limit=100',
      '/v1/clients?limit=100',
      '/v1/notifications?limit=100',
      '/v1/webhook_endpoints?limit=100',
      '/v1/events?limit=100',
      '/v1/products?limit=100',
      '/v1/invoices?limit=100',
      '/v1/mls_profiles?limit=100',
    ]) {
      const res = await call(ctx, 'GET', url, { key: b.key });
      assert.equal(res.statusCode, 200);
      for (const item of res.json<{ data: { id: string }[] }>().data) assert.ok(!aIds.has(item.id), url);
    }
  });
});
