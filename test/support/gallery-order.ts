// Helpers for the media order suites (docs/api.md §13): the order writes through the real HTTP stack,
// and one check of the invariant "positions are exactly 1..n, media_count is n", read both from
// the API and from the stored rows.
import assert from 'node:assert/strict';
import { call, type Response, type TestContext } from './test-app.ts';
import { jpeg, pdf, type Part } from './media-fixtures.ts';
import type { MediaJson } from './media-helpers.ts';

export interface MediaPage {
  data: MediaJson[];
  pagination: { page: number; limit: number; total: number; next_cursor: null };
}

export const mediaUrl = (listingId: string, mediaId: string): string => `/v1/listings/${listingId}/media/${mediaId}`;
export const orderUrl = (listingId: string): string => `/v1/listings/${listingId}/media/order`;

export const patchMedia = (ctx: TestContext, key: string, listingId: string, mediaId: string, body: unknown) =>
  call(ctx, 'PATCH', mediaUrl(listingId, mediaId), { key, body });

export const putOrder = (ctx: TestContext, key: string, listingId: string, body: unknown) =>
  call(ctx, 'PUT', orderUrl(listingId), { key, body });

export const patchGallery = (ctx: TestContext, key: string, listingId: string, body: unknown) =>
  call(ctx, 'PATCH', `/v1/listings/${listingId}`, { key, body });

export async function listMedia(ctx: TestContext, key: string, listingId: string): Promise<MediaJson[]> {
  const res = await call(ctx, 'GET', `/v1/listings/${listingId}/media`, { key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<MediaPage>().data;
}

export async function galleryJson(
  ctx: TestContext,
  key: string,
  listingId: string,
): Promise<{ media_count: number; cover_media_id: string | null; address: string; updated_at: string }> {
  const res = await call(ctx, 'GET', `/v1/listings/${listingId}`, { key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** The parts of a small upload: tiny JPEGs and PDFs, built once and named by their order. */
export async function smallFiles(): Promise<(kinds: readonly ('jpeg' | 'pdf')[], tag: string) => Part[]> {
  const photo = await jpeg(12, 9);
  return (kinds, tag) =>
    kinds.map((kind, i) =>
      kind === 'jpeg'
        ? { filename: `${tag}-${i}.jpg`, contentType: 'image/jpeg', data: photo }
        : { filename: `${tag}-${i}.pdf`, contentType: 'application/pdf', data: pdf(`${tag}-${i}`) },
    );
}

/**
 * Asserts the gallery's order invariant and returns its media ids in order:
 * - GET .../media lists items by position, and the positions are exactly 1..n;
 * - its pagination is {page: 1, limit: n, total: n};
 * - the stored rows hold the same ids at the same positions, with no gap and no duplicate;
 * - media_count is n, in the API (GET /v1/listings/:id) and in the stored gallery row;
 * - with `expected`, the order is exactly that.
 */
export async function assertGapless(
  ctx: TestContext,
  key: string,
  listingId: string,
  expected?: readonly string[],
  label = '',
): Promise<string[]> {
  const res = await call(ctx, 'GET', `/v1/listings/${listingId}/media`, { key });
  assert.equal(res.statusCode, 200, res.body);
  const page = res.json<MediaPage>();
  const n = page.data.length;
  const at = label === '' ? '' : ` (${label})`;
  assert.deepEqual(
    page.data.map((m) => m.position),
    Array.from({ length: n }, (_, i) => i + 1),
    `API positions are not 1..n${at}`,
  );
  assert.deepEqual(
    page.pagination,
    { page: 1, limit: n, total: n, total_exact: true, next_cursor: null },
    `pagination${at}`,
  );
  const ids = page.data.map((m) => m.id);

  const rows = await ctx.deps.db.kysely
    .selectFrom('media')
    .select(['id', 'position'])
    .where('listing_id', '=', listingId)
    .orderBy('position')
    .orderBy('id')
    .execute();
  assert.deepEqual(
    rows.map((r) => r.position),
    Array.from({ length: rows.length }, (_, i) => i + 1),
    `stored positions are not 1..n${at}`,
  );
  assert.deepEqual(
    rows.map((r) => r.id),
    ids,
    `stored order differs from the API's${at}`,
  );

  const gallery = await ctx.deps.db.kysely
    .selectFrom('listings')
    .select('media_count')
    .where('id', '=', listingId)
    .executeTakeFirstOrThrow();
  assert.equal(gallery.media_count, n, `stored media_count${at}`);
  assert.equal((await galleryJson(ctx, key, listingId)).media_count, n, `API media_count${at}`);
  if (expected !== undefined) assert.deepEqual(ids, [...expected], `order differs from the model${at}`);
  return ids;
}

/** The ids a 201 upload answered, in upload order. */
export function uploadedIds(res: Response): string[] {
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ data: MediaJson[] }>().data.map((m) => m.id);
}

/**
 * The order operations (docs/api.md §13's PUT .../media/order, §30's suggested order) as the
 * security suite's route table takes them: each prepares a valid request on a photo of its own.
 */
export function mediaOrderRouteCases<A>(newMedia: (account: A) => Promise<{ listingId: string; mediaId: string }>) {
  return [
    {
      method: 'PUT' as const,
      path: '/v1/listings/:id/media/order',
      prepare: async (a: A) => {
        const { listingId, mediaId } = await newMedia(a);
        return { url: orderUrl(listingId), body: { media_ids: [mediaId] }, status: 200 };
      },
    },
    {
      method: 'GET' as const,
      path: '/v1/listings/:id/media/suggested_order',
      prepare: async (a: A) => {
        const { listingId } = await newMedia(a);
        return { url: `/v1/listings/${listingId}/media/suggested_order`, status: 200 };
      },
    },
  ];
}
