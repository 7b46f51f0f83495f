// docs/api.md §31's routes for the suites that walk every route (test/security.test.ts): an MLS
// profile of the account, and a gallery that uses one.
import assert from 'node:assert/strict';
import { call, type TestAccount, type TestContext } from './test-app.ts';

export async function newMlsProfile(ctx: TestContext, account: TestAccount): Promise<string> {
  const res = await call(ctx, 'POST', '/v1/mls_profiles', { key: account.key, body: { name: 'Bright MLS' } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ id: string }>().id;
}

export function mlsRouteCases(context: () => TestContext, newListing: (account: TestAccount) => Promise<string>) {
  const profile = async (a: TestAccount) => `/v1/mls_profiles/${await newMlsProfile(context(), a)}`;
  const ok = (url: string, status: number, body?: Record<string, unknown>) => ({
    url,
    status,
    ...(body === undefined ? {} : { body }),
  });
  return [
    { method: 'GET', path: '/v1/mls_profiles', prepare: () => Promise.resolve(ok('/v1/mls_profiles', 200)) },
    {
      method: 'POST',
      path: '/v1/mls_profiles',
      prepare: () => Promise.resolve(ok('/v1/mls_profiles', 201, { name: 'Stellar MLS', max_photos: 40 })),
    },
    { method: 'GET', path: '/v1/mls_profiles/:id', prepare: async (a: TestAccount) => ok(await profile(a), 200) },
    {
      method: 'PATCH',
      path: '/v1/mls_profiles/:id',
      prepare: async (a: TestAccount) => ok(await profile(a), 200, { forbid_people: false }),
    },
    { method: 'DELETE', path: '/v1/mls_profiles/:id', prepare: async (a: TestAccount) => ok(await profile(a), 204) },
    {
      method: 'GET',
      path: '/v1/listings/:id/compliance',
      prepare: async (a: TestAccount) => {
        const id = await newMlsProfile(context(), a);
        return ok(`/v1/listings/${await newListing(a)}/compliance?profile_id=${id}`, 200);
      },
    },
  ] as const;
}
