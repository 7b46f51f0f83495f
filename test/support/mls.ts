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

/**
 * The analysis docs/api.md §30 would write for a photo, straight into its row: ready and clean
 * (a living room, sharp, level, no text, QR code or person), but for `overrides`. A write that
 * follows (a profile chosen, a photo changed) checks the gallery's compliance again.
 */
export async function writeAnalysis(
  ctx: TestContext,
  mediaId: string,
  overrides: Record<string, unknown> = {},
): Promise<void> {
  await ctx.deps.db.kysely
    .updateTable('media')
    .set({
      analysis_status: 'ready',
      analysis_phash: '0123456789abcdef',
      analysis_sharpness: 0.8,
      analysis_blurry: 0,
      analysis_tilt_degrees: 0.5,
      analysis_similar_group: null,
      analysis_best_in_group: 1,
      analysis_faces: 0,
      analysis_people: 0,
      analysis_text: '[]',
      analysis_qr_codes: '[]',
      analysis_objects: '[]',
      analysis_room: 'Living Room',
      analysis_room_confidence: 0.7,
      ...overrides,
    })
    .where('id', '=', mediaId)
    .execute();
}
