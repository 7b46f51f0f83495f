// The one security suite, run against every authenticated /v1 route: missing, malformed, unknown,
// revoked and expired keys; read-only scope; another account's key. The route table is checked
// against the routes the app registered, so a new route cannot be left out.
// node:test's describe() and test() return promises that the runner itself awaits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { buildApp } from '../src/app.ts';
import { createDeps } from '../src/deps.ts';
import type { App } from '../src/http/types.ts';
import { appRoutes, routeKey } from './support/app-routes.ts';
import { jpeg, multipart, pdf } from './support/media-fixtures.ts';
import { makeVariantsNow } from './support/media-helpers.ts';
import { mediaOrderRouteCases } from './support/gallery-order.ts';
import { propertyPageRouteCases } from './support/property.ts';
import { invoiceRouteCases } from './support/invoices.ts';
import { mlsRouteCases } from './support/mls.ts';
import { shareLinkRouteCases } from './support/share-links.ts';
import { kitRouteCases } from './support/kit.ts';
import { takeSnapshot, type Snapshot } from './support/snapshot.ts';
import { errorWithoutRequestId, missingId, wellFormedUnknownKey, withMissingIds } from './support/refusals.ts';
import {
  expectError,
  call,
  createAccount,
  createKey,
  createTestContext,
  type CallOptions,
  type Response,
  type TestAccount,
  type TestContext,
} from './support/test-app.ts';
import { clockOf, systemClock, type Clock } from '../src/lib/clock.ts';

/** /v1 routes that need no key (docs/api.md §3 and §16), with the status each answers. Everything else is in ROUTES. */
const PUBLIC_V1 = new Map([
  ['GET /v1/openapi.json', { url: '/v1/openapi.json', status: 200 }],
  ['OPTIONS /v1/listings/:id/uploads', { url: '/v1/listings/lst_0000000000000000000000ZZZZ/uploads', status: 204 }],
]);

let ctx: TestContext;
let owner: TestAccount;
let other: TestAccount;

before(async () => {
  ctx = await createTestContext();
  owner = await createAccount(ctx, 'Owner studio');
  other = await createAccount(ctx, 'Other studio');
});

after(async () => {
  await ctx.close();
});

// ---- fixtures, made over HTTP with the account's own full key --------------------------------

let serial = 0;

async function newListing(account: TestAccount, status = 'draft'): Promise<string> {
  const res = await call(ctx, 'POST', '/v1/listings', {
    key: account.key,
    body: { address: '1 Harbour Road', status },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ id: string }>().id;
}

async function newClient(account: TestAccount): Promise<string> {
  serial += 1;
  const body = { name: 'Ada Client', email: `client${serial}.${randomBytes(3).toString('hex')}@example.test` };
  const res = await call(ctx, 'POST', '/v1/clients', { key: account.key, body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ id: string }>().id;
}

async function assignedPair(account: TestAccount): Promise<{ clientId: string; listingId: string }> {
  const [clientId, listingId] = [await newClient(account), await newListing(account)];
  const res = await call(ctx, 'POST', `/v1/clients/${clientId}/listings/${listingId}`, { key: account.key });
  assert.equal(res.statusCode, 200, res.body);
  return { clientId, listingId };
}

/** An upload body as a string (the file is an all-ASCII PDF), with its content type. */
function uploadBody(): { body: string; headers: Record<string, string> } {
  serial += 1;
  const { body, contentType } = multipart([{ filename: `doc${serial}.pdf`, data: pdf(`document ${serial}`) }]);
  return { body: body.toString('ascii'), headers: { 'content-type': contentType } };
}

const TUS = { 'tus-resumable': '1.0.0' };

/** A resumable upload (docs/api.md §16) of a small PDF in a new gallery, nothing sent yet. */
async function newUpload(account: TestAccount): Promise<{ url: string; data: string }> {
  serial += 1;
  const data = pdf(`resumable ${serial}`).toString('ascii');
  const listingId = await newListing(account);
  const res = await call(ctx, 'POST', `/v1/listings/${listingId}/uploads`, {
    key: account.key,
    headers: { ...TUS, 'upload-length': String(data.length) },
  });
  assert.equal(res.statusCode, 201, res.body);
  return { url: String(res.headers.location), data };
}

async function newMedia(account: TestAccount): Promise<{ listingId: string; mediaId: string }> {
  const listingId = await newListing(account);
  const { body, headers } = uploadBody();
  const res = await call(ctx, 'POST', `/v1/listings/${listingId}/media`, { key: account.key, body, headers });
  assert.equal(res.statusCode, 201, res.body);
  return { listingId, mediaId: res.json<{ data: { id: string }[] }>().data[0]?.id ?? '' };
}

/** A photo of the account with its variants made. */
async function newPhoto(account: TestAccount): Promise<{ listingId: string; mediaId: string }> {
  const listingId = await newListing(account);
  const { body, contentType } = multipart([{ filename: 'front.jpg', data: await jpeg() }]);
  const res = await ctx.app.inject({
    method: 'POST',
    url: `/v1/listings/${listingId}/media`,
    headers: { authorization: `Bearer ${account.key}`, 'content-type': contentType },
    payload: body,
  });
  assert.equal(res.statusCode, 201, res.body);
  const [media] = res.json<{ data: { id: string }[] }>().data;
  assert.ok(media !== undefined);
  await makeVariantsNow(ctx);
  return { listingId, mediaId: media.id };
}

/** A webhook endpoint of the account (a name no resolver knows: accepted, never delivered to). */
async function newEndpoint(account: TestAccount): Promise<string> {
  serial += 1;
  const res = await call(ctx, 'POST', '/v1/webhook_endpoints', {
    key: account.key,
    body: { url: `https://hooks${serial}.example.test/in` },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ id: string }>().id;
}

/** A delivery of the account: its endpoint's test event. */
async function newDelivery(account: TestAccount): Promise<{ endpointId: string; deliveryId: string }> {
  const endpointId = await newEndpoint(account);
  const res = await call(ctx, 'POST', `/v1/webhook_endpoints/${endpointId}/test`, { key: account.key });
  assert.equal(res.statusCode, 202, res.body);
  return { endpointId, deliveryId: res.json<{ id: string }>().id };
}

/** An event of the account: the one its new gallery records. */
async function newEvent(account: TestAccount): Promise<string> {
  const listingId = await newListing(account);
  const row = await ctx.deps.db.kysely
    .selectFrom('events')
    .select(['id', 'data'])
    .where('account_id', '=', account.accountId)
    .where('type', '=', 'listing.created')
    .orderBy('id', 'desc')
    .limit(20)
    .execute();
  const event = row.find((r) => r.data.includes(listingId));
  assert.ok(event !== undefined);
  return event.id;
}

/** A notification of the account: the one its new assignment records. */
async function newNotification(account: TestAccount): Promise<string> {
  const { listingId } = await assignedPair(account);
  const row = await ctx.deps.db.kysely
    .selectFrom('notifications')
    .select('id')
    .where('account_id', '=', account.accountId)
    .where('listing_id', '=', listingId)
    .executeTakeFirstOrThrow();
  return row.id;
}

// ---- the route table ----------------------------------------------------------------------------

interface Prepared {
  url: string;
  /** JSON (an object) or a ready-made payload (a string, e.g. multipart with its content-type header). */
  body?: unknown;
  headers?: Record<string, string>;
  /** Status of this request with the owner's full key. */
  status: number;
}

interface RouteCase {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Fastify's path, as registered. */
  path: string;
  /** Creates what the request needs in `account` and returns a valid request. */
  prepare: (account: TestAccount) => Promise<Prepared>;
}

const ROUTES: RouteCase[] = [
  { method: 'GET', path: '/v1/account', prepare: () => Promise.resolve({ url: '/v1/account', status: 200 }) },
  // docs/api.md §20: only a full test key deletes test data (src/modules/test-data/test-mode.test.ts);
  // the owner's live key, this suite's baseline, is refused with 403, and every refusal below holds.
  {
    method: 'DELETE',
    path: '/v1/test_data',
    prepare: () => Promise.resolve({ url: '/v1/test_data', status: 403 }),
  },
  { method: 'GET', path: '/v1/listings', prepare: () => Promise.resolve({ url: '/v1/listings', status: 200 }) },
  {
    method: 'POST',
    path: '/v1/listings',
    prepare: () => Promise.resolve({ url: '/v1/listings', body: { address: '2 Quay Street' }, status: 201 }),
  },
  {
    method: 'GET',
    path: '/v1/listings/:id',
    prepare: async (a) => ({ url: `/v1/listings/${await newListing(a)}`, status: 200 }),
  },
  {
    method: 'PATCH',
    path: '/v1/listings/:id',
    prepare: async (a) => ({ url: `/v1/listings/${await newListing(a)}`, body: { status: 'active' }, status: 200 }),
  },
  {
    method: 'DELETE',
    path: '/v1/listings/:id',
    prepare: async (a) => ({ url: `/v1/listings/${await newListing(a)}`, status: 204 }),
  },
  { method: 'GET', path: '/v1/clients', prepare: () => Promise.resolve({ url: '/v1/clients', status: 200 }) },
  {
    method: 'POST',
    path: '/v1/clients',
    prepare: () => {
      serial += 1;
      const body = { name: 'New Client', email: `new${serial}.${randomBytes(3).toString('hex')}@example.test` };
      return Promise.resolve({ url: '/v1/clients', body, status: 201 });
    },
  },
  {
    method: 'GET',
    path: '/v1/clients/:id',
    prepare: async (a) => ({ url: `/v1/clients/${await newClient(a)}`, status: 200 }),
  },
  {
    method: 'PATCH',
    path: '/v1/clients/:id',
    prepare: async (a) => ({ url: `/v1/clients/${await newClient(a)}`, body: { company: 'Acme' }, status: 200 }),
  },
  {
    method: 'DELETE',
    path: '/v1/clients/:id',
    prepare: async (a) => ({ url: `/v1/clients/${await newClient(a)}`, status: 204 }),
  },
  {
    method: 'GET',
    path: '/v1/clients/:id/listings',
    prepare: async (a) => ({ url: `/v1/clients/${(await assignedPair(a)).clientId}/listings`, status: 200 }),
  },
  {
    method: 'POST',
    path: '/v1/clients/:id/listings/:listing_id',
    prepare: async (a) => ({ url: `/v1/clients/${await newClient(a)}/listings/${await newListing(a)}`, status: 200 }),
  },
  {
    method: 'DELETE',
    path: '/v1/clients/:id/listings/:listing_id',
    prepare: async (a) => {
      const { clientId, listingId } = await assignedPair(a);
      return { url: `/v1/clients/${clientId}/listings/${listingId}`, status: 204 };
    },
  },
  {
    method: 'POST',
    path: '/v1/listings/:id/media',
    prepare: async (a) => ({ url: `/v1/listings/${await newListing(a)}/media`, ...uploadBody(), status: 201 }),
  },
  {
    method: 'GET',
    path: '/v1/listings/:id/media',
    prepare: async (a) => ({ url: `/v1/listings/${(await newMedia(a)).listingId}/media`, status: 200 }),
  },
  {
    method: 'POST',
    path: '/v1/listings/:id/uploads',
    prepare: async (a) => ({
      url: `/v1/listings/${await newListing(a)}/uploads`,
      headers: { ...TUS, 'upload-length': '1000' },
      status: 201,
    }),
  },
  {
    method: 'PATCH',
    path: '/v1/listings/:id/uploads/:upload_id',
    prepare: async (a) => {
      const { url, data } = await newUpload(a);
      const headers = { ...TUS, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' };
      return { url, body: data, headers, status: 204 };
    },
  },
  {
    method: 'DELETE',
    path: '/v1/listings/:id/uploads/:upload_id',
    prepare: async (a) => ({ url: (await newUpload(a)).url, headers: TUS, status: 204 }),
  },
  {
    method: 'GET',
    path: '/v1/listings/:id/media/:media_id',
    prepare: async (a) => {
      const { listingId, mediaId } = await newMedia(a);
      return { url: `/v1/listings/${listingId}/media/${mediaId}`, status: 200 };
    },
  },
  {
    method: 'GET',
    path: '/v1/listings/:id/media/:media_id/content',
    prepare: async (a) => {
      const { listingId, mediaId } = await newMedia(a);
      return { url: `/v1/listings/${listingId}/media/${mediaId}/content`, status: 200 };
    },
  },
  {
    method: 'GET',
    path: '/v1/notifications',
    prepare: () => Promise.resolve({ url: '/v1/notifications', status: 200 }),
  },
  {
    method: 'GET',
    path: '/v1/notifications/:id',
    prepare: async (a) => ({ url: `/v1/notifications/${await newNotification(a)}`, status: 200 }),
  },
  {
    method: 'DELETE',
    path: '/v1/listings/:id/media/:media_id',
    prepare: async (a) => {
      const { listingId, mediaId } = await newMedia(a);
      return { url: `/v1/listings/${listingId}/media/${mediaId}`, status: 204 };
    },
  },
  {
    method: 'POST',
    path: '/v1/webhook_endpoints',
    prepare: () =>
      Promise.resolve({ url: '/v1/webhook_endpoints', body: { url: 'https://hooks.example.test/a' }, status: 201 }),
  },
  {
    method: 'GET',
    path: '/v1/webhook_endpoints',
    prepare: () => Promise.resolve({ url: '/v1/webhook_endpoints', status: 200 }),
  },
  {
    method: 'GET',
    path: '/v1/webhook_endpoints/:id',
    prepare: async (a) => ({ url: `/v1/webhook_endpoints/${await newEndpoint(a)}`, status: 200 }),
  },
  {
    method: 'PATCH',
    path: '/v1/webhook_endpoints/:id',
    prepare: async (a) => ({
      url: `/v1/webhook_endpoints/${await newEndpoint(a)}`,
      body: { enabled: false },
      status: 200,
    }),
  },
  {
    method: 'DELETE',
    path: '/v1/webhook_endpoints/:id',
    prepare: async (a) => ({ url: `/v1/webhook_endpoints/${await newEndpoint(a)}`, status: 204 }),
  },
  {
    method: 'POST',
    path: '/v1/webhook_endpoints/:id/rotate_secret',
    prepare: async (a) => ({ url: `/v1/webhook_endpoints/${await newEndpoint(a)}/rotate_secret`, status: 200 }),
  },
  {
    method: 'POST',
    path: '/v1/webhook_endpoints/:id/test',
    prepare: async (a) => ({ url: `/v1/webhook_endpoints/${await newEndpoint(a)}/test`, status: 202 }),
  },
  {
    method: 'GET',
    path: '/v1/webhook_endpoints/:id/deliveries',
    prepare: async (a) => ({
      url: `/v1/webhook_endpoints/${(await newDelivery(a)).endpointId}/deliveries`,
      status: 200,
    }),
  },
  {
    method: 'POST',
    path: '/v1/webhook_endpoints/:id/deliveries/:delivery_id/retry',
    prepare: async (a) => {
      const { endpointId, deliveryId } = await newDelivery(a);
      return { url: `/v1/webhook_endpoints/${endpointId}/deliveries/${deliveryId}/retry`, status: 202 };
    },
  },
  { method: 'GET', path: '/v1/events', prepare: () => Promise.resolve({ url: '/v1/events', status: 200 }) },
  {
    method: 'GET',
    path: '/v1/events/:id',
    prepare: async (a) => ({ url: `/v1/events/${await newEvent(a)}`, status: 200 }),
  },
  {
    method: 'POST',
    path: '/v1/listings/:id/client_link',
    prepare: async (a) => ({ url: `/v1/listings/${(await assignedPair(a)).listingId}/client_link`, status: 200 }),
  },
  {
    method: 'GET',
    path: '/v1/listings/:id/favorites',
    prepare: async (a) => ({ url: `/v1/listings/${(await assignedPair(a)).listingId}/favorites`, status: 200 }),
  },
  {
    method: 'PATCH',
    path: '/v1/listings/:id/client_link',
    prepare: async (a) => ({
      url: `/v1/listings/${(await assignedPair(a)).listingId}/client_link`,
      body: { downloads_enabled: false },
      status: 200,
    }),
  },
  ...propertyPageRouteCases((a, status) => newListing(a, status)),
  {
    method: 'POST',
    path: '/v1/clients/:id/listings/:listing_id/notify',
    prepare: async (a) => {
      const { clientId, listingId } = await assignedPair(a);
      return { url: `/v1/clients/${clientId}/listings/${listingId}/notify`, status: 202 };
    },
  },
  {
    method: 'PATCH',
    path: '/v1/listings/:id/media/:media_id',
    prepare: async (a) => {
      const { listingId, mediaId } = await newMedia(a);
      return { url: `/v1/listings/${listingId}/media/${mediaId}`, body: { caption: 'Front' }, status: 200 };
    },
  },
  ...mediaOrderRouteCases(newMedia),
  {
    method: 'POST',
    path: '/v1/clients/:id/portal/rotate',
    prepare: async (a) => ({ url: `/v1/clients/${await newClient(a)}/portal/rotate`, status: 200 }),
  },
  ...shareLinkRouteCases(() => ctx, newListing),
  ...invoiceRouteCases(() => ctx, assignedPair),
  ...mlsRouteCases(() => ctx, newListing),
  { method: 'GET', path: '/v1/reso/Media', prepare: () => Promise.resolve({ url: '/v1/reso/Media', status: 200 }) },
  ...kitRouteCases(newListing),
  {
    method: 'GET',
    path: '/v1/listings/:id/media/:media_id/variants/:name',
    prepare: async (a) => {
      const { listingId, mediaId } = await newPhoto(a);
      return { url: `/v1/listings/${listingId}/media/${mediaId}/variants/thumb`, status: 200 };
    },
  },
];

// ---- helpers ------------------------------------------------------------------------------------

/** A prepared request with its route's method. */
type Ready = Prepared & { method: string };

async function prepareFor(route: RouteCase, account: TestAccount): Promise<Ready> {
  return { ...(await route.prepare(account)), method: route.method };
}

const send = (request: Ready, options: CallOptions): Promise<Response> =>
  call(ctx, request.method, request.url, {
    ...(request.body === undefined ? {} : { body: request.body }),
    ...options,
    headers: { ...request.headers, ...options.headers },
  });

/** Every row of every table and every stored object (test/support/snapshot.ts). */
const snapshot = (): Promise<Snapshot> => takeSnapshot(ctx);

const assertError = expectError;

function assertUnauthorized(res: Response): void {
  assertError(res, 401, 'unauthorized');
  assert.equal(res.headers['www-authenticate'], 'Bearer');
}

const hasId = (route: RouteCase): boolean => route.path.includes('/:');

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Another node on the same database, with its own key cache and a clock the test moves. */
async function otherNode(clock: Clock): Promise<App> {
  const deps = createDeps(ctx.config, { db: ctx.deps.db, clock });
  const discard = new Writable({ write: (_chunk, _encoding, done) => done() });
  const { app } = await buildApp(deps, { logStream: discard });
  await app.ready();
  return app;
}

const onNode = (app: App): TestContext => ({ ...ctx, app });

// ---- the suite ------------------------------------------------------------------------------------

describe('the route table', () => {
  test('covers every authenticated /v1 route the app registered, and nothing else', () => {
    const registered = appRoutes(ctx.app)
      .filter((r) => r.url.startsWith('/v1/') && r.method !== 'HEAD')
      .map(routeKey)
      .filter((key) => !PUBLIC_V1.has(key));
    const table = ROUTES.map((r) => `${r.method} ${r.path}`);
    assert.equal(new Set(table).size, table.length, 'a route is in the table twice');
    assert.deepEqual([...table].sort(), [...registered].sort());
  });

  test('the public /v1 routes answer without a key', async () => {
    for (const [key, { url, status }] of PUBLIC_V1) {
      const [method = ''] = key.split(' ');
      const res = await call(ctx, method, url);
      assert.equal(res.statusCode, status, `${key}: ${res.body}`);
    }
  });
});

for (const route of ROUTES) {
  const name = `${route.method} ${route.path}`;
  const writes = route.method !== 'GET';

  describe(name, () => {
    test('a valid request with a full key succeeds (the baseline for every refusal below)', async () => {
      const request = await prepareFor(route, owner);
      const res = await send(request, { key: owner.key });
      assert.equal(res.statusCode, request.status, res.body);
    });

    test('no Authorization header: 401 unauthorized with WWW-Authenticate: Bearer, nothing changed', async () => {
      const request = await prepareFor(route, owner);
      const before = await snapshot();
      assertUnauthorized(await send(request, {}));
      assert.deepEqual(await snapshot(), before);
    });

    test('a malformed Authorization header: 401', async () => {
      const request = await prepareFor(route, owner);
      const before = await snapshot();
      for (const header of [
        'Basic x',
        `Basic ${Buffer.from(`user:${owner.key}`).toString('base64')}`,
        'Bearer',
        'Bearer ',
        'Bearer lbx_short',
        `Bearer ${owner.key.slice(0, -1)}!`,
        `Bearer ${owner.key} ${owner.key}`,
        `Token ${owner.key}`,
        owner.key,
      ]) {
        const res = await send(request, { headers: { authorization: header } });
        assertUnauthorized(res);
      }
      assert.deepEqual(await snapshot(), before);
    });

    test('an unknown, well-formed key: 401', async () => {
      const request = await prepareFor(route, owner);
      const before = await snapshot();
      assertUnauthorized(await send(request, { key: wellFormedUnknownKey() }));
      assert.deepEqual(await snapshot(), before);
    });

    test('a revoked key is refused on the very next request', async () => {
      const request = await prepareFor(route, owner);
      const { key, keyId } = await createKey(ctx, owner.accountId);
      // Used once, so this node has it cached when it is revoked.
      assert.equal((await call(ctx, 'GET', '/v1/listings', { key })).statusCode, 200);
      await ctx.services.apiKeys.revoke(keyId, owner.accountId);
      const before = await snapshot();
      assertUnauthorized(await send(request, { key }));
      assert.deepEqual(await snapshot(), before);
    });

    test('an expired key: 401', async () => {
      const request = await prepareFor(route, owner);
      const { key, keyId } = await createKey(ctx, owner.accountId, { expiresInDays: 30 });
      // Expired before its first use, so no cache holds the old expiry.
      await ctx.deps.db.kysely
        .updateTable('api_keys')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where('id', '=', keyId)
        .execute();
      const before = await snapshot();
      assertUnauthorized(await send(request, { key }));
      assert.deepEqual(await snapshot(), before);
    });

    if (writes) {
      test('a read-only key: 403 forbidden, and nothing changed', async () => {
        const request = await prepareFor(route, owner);
        const { key } = await createKey(ctx, owner.accountId, { scope: 'read_only' });
        const before = await snapshot();
        assertError(await send(request, { key }), 403, 'forbidden');
        assert.deepEqual(await snapshot(), before);
      });
    } else {
      test('a read-only key may read', async () => {
        const request = await prepareFor(route, owner);
        const { key } = await createKey(ctx, owner.accountId, { scope: 'read_only' });
        const res = await send(request, { key });
        assert.equal(res.statusCode, request.status, res.body);
      });
    }

    if (hasId(route)) {
      test("another account's key: 404 exactly as for a missing id, and the owner's data unchanged", async () => {
        const request = await prepareFor(route, owner);
        const before = await snapshot();
        const res = await send(request, { key: other.key });
        assertError(res, 404, 'not_found');
        assert.deepEqual(await snapshot(), before);

        const missing = { ...request, url: withMissingIds(request.url) };
        assert.notEqual(missing.url, request.url);
        const asOther = await send(missing, { key: other.key });
        const asOwner = await send(missing, { key: owner.key });
        assert.deepEqual(errorWithoutRequestId(res), errorWithoutRequestId(asOther));
        assert.deepEqual(errorWithoutRequestId(res), errorWithoutRequestId(asOwner));
        assert.deepEqual(await snapshot(), before);

        // The owner still sees it as before.
        const again = await send(request, { key: owner.key });
        assert.equal(again.statusCode, request.status, again.body);
      });
    }
  });
}

describe('tenancy', () => {
  test("lists show only the caller's own galleries, clients and notifications", async () => {
    const listingId = await newListing(owner);
    const clientId = await newClient(owner);
    const notificationId = await newNotification(owner);
    for (const url of ['/v1/listings?limit=100', '/v1/clients?limit=100', '/v1/notifications?limit=100']) {
      const res = await call(ctx, 'GET', url, { key: other.key });
      assert.equal(res.statusCode, 200);
      const ids = res.json<{ data: { id: string }[] }>().data.map((item) => item.id);
      assert.ok(!ids.includes(listingId) && !ids.includes(clientId) && !ids.includes(notificationId), url);
    }
    const own = await call(ctx, 'GET', '/v1/notifications?limit=100', { key: owner.key });
    assert.ok(own.json<{ data: { id: string }[] }>().data.some((n) => n.id === notificationId));
  });

  test("a client of one account cannot be given another account's gallery, nor the reverse", async () => {
    const ownerListing = await newListing(owner);
    const ownerClient = await newClient(owner);
    const otherListing = await newListing(other);
    const otherClient = await newClient(other);
    const before = await snapshot();
    for (const method of ['POST', 'DELETE']) {
      const ownClientForeignListing = await call(ctx, method, `/v1/clients/${otherClient}/listings/${ownerListing}`, {
        key: other.key,
      });
      const ownClientMissingListing = await call(
        ctx,
        method,
        `/v1/clients/${otherClient}/listings/${missingId('lst')}`,
        {
          key: other.key,
        },
      );
      assertError(ownClientForeignListing, 404, 'not_found');
      assert.deepEqual(errorWithoutRequestId(ownClientForeignListing), errorWithoutRequestId(ownClientMissingListing));

      const foreignClientOwnListing = await call(ctx, method, `/v1/clients/${ownerClient}/listings/${otherListing}`, {
        key: other.key,
      });
      assertError(foreignClientOwnListing, 404, 'not_found');
    }
    assert.deepEqual(await snapshot(), before);
  });
});

describe('API keys', () => {
  test('a key is lbx_ and at least 32 base62 characters; only its SHA-256 and a short prefix are stored', async () => {
    const { key, keyId } = await createKey(ctx, owner.accountId);
    assert.match(key, /^lbx_[0-9A-Za-z]{32,}$/);
    const row = await ctx.deps.db.kysely
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', keyId)
      .executeTakeFirstOrThrow();
    assert.match(row.key_hash, /^[0-9a-f]{64}$/);
    assert.equal(row.key_hash, sha256(key));
    assert.ok(row.prefix.length <= 12, `prefix ${row.prefix} is too long to be non-secret`);
    assert.ok(key.startsWith(row.prefix));
    // No column holds the key, or any 8 characters of its secret part beyond the prefix.
    const secret = key.slice(row.prefix.length);
    for (const [column, value] of Object.entries(row)) {
      const text = String(value);
      for (let i = 0; i + 8 <= secret.length; i += 1) {
        assert.ok(!text.includes(secret.slice(i, i + 8)), `api_keys.${column} holds part of the key`);
      }
    }
    const listed = await ctx.services.apiKeys.list(owner.accountId);
    assert.ok(!JSON.stringify(listed).includes(secret) && !JSON.stringify(listed).includes(row.key_hash));
  });

  test('two keys are different', async () => {
    const a = await createKey(ctx, owner.accountId);
    const b = await createKey(ctx, owner.accountId);
    assert.notEqual(a.key, b.key);
  });

  test('last_used_at is set on first use and not rewritten within a minute, on any node', async () => {
    const { key, keyId } = await createKey(ctx, owner.accountId);
    const lastUsed = async (): Promise<string | null> =>
      (
        await ctx.deps.db.kysely
          .selectFrom('api_keys')
          .select('last_used_at')
          .where('id', '=', keyId)
          .executeTakeFirstOrThrow()
      ).last_used_at;

    assert.equal(await lastUsed(), null);
    const start = Date.now();
    assert.equal((await call(ctx, 'GET', '/v1/listings', { key })).statusCode, 200);
    const first = await lastUsed();
    assert.ok(first !== null);
    assert.match(first, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(Math.abs(Date.parse(first) - start) < 5000);

    assert.equal((await call(ctx, 'GET', '/v1/listings', { key })).statusCode, 200);
    assert.equal(await lastUsed(), first);

    // A second node, 30 s later, does not write it again; 61 s after the first use it does.
    let now = Date.parse(first) + 30_000;
    const node = await otherNode(clockOf(() => now));
    try {
      assert.equal((await call(onNode(node), 'GET', '/v1/listings', { key })).statusCode, 200);
      assert.equal(await lastUsed(), first);
      now = Date.parse(first) + 61_000;
      assert.equal((await call(onNode(node), 'GET', '/v1/listings', { key })).statusCode, 200);
      assert.equal(await lastUsed(), new Date(now).toISOString());
    } finally {
      await node.close();
    }
  });

  test('a key revoked on one node is refused by another node within 5 seconds', async () => {
    const { key, keyId } = await createKey(ctx, owner.accountId);
    let now = Date.now();
    const node = await otherNode(clockOf(() => now));
    try {
      assert.equal((await call(onNode(node), 'GET', '/v1/listings', { key })).statusCode, 200);
      await ctx.services.apiKeys.revoke(keyId, owner.accountId);
      assertUnauthorized(await call(ctx, 'GET', '/v1/listings', { key }));
      now += 5000;
      assertUnauthorized(await call(onNode(node), 'GET', '/v1/listings', { key }));
    } finally {
      await node.close();
    }
  });

  test('a key that expires while cached is refused from its expiry on', async () => {
    const { key, keyId } = await createKey(ctx, owner.accountId, { expiresInDays: 1 });
    const { expires_at: expiresAt } = await ctx.deps.db.kysely
      .selectFrom('api_keys')
      .select('expires_at')
      .where('id', '=', keyId)
      .executeTakeFirstOrThrow();
    assert.ok(expiresAt !== null);
    let now = Date.parse(expiresAt) - 1000;
    const node = await otherNode(clockOf(() => now));
    try {
      assert.equal((await call(onNode(node), 'GET', '/v1/listings', { key })).statusCode, 200);
      now = Date.parse(expiresAt);
      assertUnauthorized(await call(onNode(node), 'GET', '/v1/listings', { key }));
    } finally {
      await node.close();
    }
  });

  test('a key of a deleted account is refused', async () => {
    const gone = await createAccount(ctx, 'Closing studio');
    assert.equal((await call(ctx, 'GET', '/v1/listings', { key: gone.key })).statusCode, 200);
    await ctx.deps.db.kysely.deleteFrom('accounts').where('id', '=', gone.accountId).execute();
    // Another node has no cache entry, so it reads the (cascaded) deletion at once.
    const node = await otherNode(systemClock);
    try {
      assertUnauthorized(await call(onNode(node), 'GET', '/v1/listings', { key: gone.key }));
    } finally {
      await node.close();
    }
  });
});
