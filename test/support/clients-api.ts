// The calls the clients suites (src/modules/clients/clients.*.test.ts) make as one account of one
// test context: create clients and galleries, the client routes, assignment, and the
// notifications an assignment records. `state` is read at each call, so a suite can destructure
// these at its top level and fill in its context and account in before().
import assert from 'node:assert/strict';
import { call, type TestAccount, type TestContext } from './test-app.ts';
import { uniqueEmail } from './notification-helpers.ts';

export function clientsApi(state: () => { ctx: TestContext; me: TestAccount }) {
  const ctx = (): TestContext => state().ctx;
  const myKey = (): string => state().me.key;

  async function createClient(body: Record<string, unknown> = {}, as = myKey()): Promise<any> {
    const res = await call(ctx(), 'POST', '/v1/clients', {
      key: as,
      body: { name: 'Ann Lee', email: uniqueEmail(), ...body },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json();
  }

  async function createListing(as = myKey(), address = '1 Main St'): Promise<any> {
    const res = await call(ctx(), 'POST', '/v1/listings', { key: as, body: { address } });
    assert.equal(res.statusCode, 201, res.body);
    return res.json();
  }

  return {
    createClient,
    createListing,
    post: (body: unknown, as = myKey()) => call(ctx(), 'POST', '/v1/clients', { key: as, body }),
    patch: (id: string, body: unknown, as = myKey()) => call(ctx(), 'PATCH', `/v1/clients/${id}`, { key: as, body }),
    get: (url: string, as = myKey()) => call(ctx(), 'GET', url, { key: as }),
    assign: (clientId: string, listingId: string, as = myKey()) =>
      call(ctx(), 'POST', `/v1/clients/${clientId}/listings/${listingId}`, { key: as }),
    unassign: (clientId: string, listingId: string, as = myKey()) =>
      call(ctx(), 'DELETE', `/v1/clients/${clientId}/listings/${listingId}`, { key: as }),
    /** The notifications recorded for a gallery, oldest first, as stored. */
    notificationsOf: (listingId: string) =>
      ctx()
        .deps.db.kysely.selectFrom('notifications')
        .selectAll()
        .where('listing_id', '=', listingId)
        .orderBy('created_at')
        .orderBy('id')
        .execute(),
  };
}
