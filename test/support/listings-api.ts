// The calls the galleries suites (src/modules/listings/listings.*.test.ts) make with one key of one
// test context. `state` is read at each call, so a suite can destructure these at its top level
// and fill in its context and key in before().
import assert from 'node:assert/strict';
import { call, type TestContext } from './test-app.ts';

export function listingsApi(state: () => { ctx: TestContext; key: string }) {
  const ctx = (): TestContext => state().ctx;
  const myKey = (): string => state().key;

  /** A new gallery (address '1 Main St' unless `body` says otherwise); asserts the 201. */
  async function createListing(body: Record<string, unknown> = {}, as = myKey()): Promise<any> {
    const res = await call(ctx(), 'POST', '/v1/listings', { key: as, body: { address: '1 Main St', ...body } });
    assert.equal(res.statusCode, 201, res.body);
    return res.json();
  }

  return {
    createListing,
    post: (body: unknown, as = myKey()) => call(ctx(), 'POST', '/v1/listings', { key: as, body }),
    patch: (id: string, body: unknown, as = myKey()) => call(ctx(), 'PATCH', `/v1/listings/${id}`, { key: as, body }),
  };
}
