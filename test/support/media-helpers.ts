// Helpers for the media suites: uploads through the real HTTP stack, and the stored state
// (media rows, cleanup rows, objects in storage) to check that nothing is kept.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { expectError, call, type Response, type TestAccount, type TestContext } from './test-app.ts';
import { multipart, type Part } from './media-fixtures.ts';
import { variantsHandler } from '../../src/modules/variants/variants.job.ts';
import { createJobRunner } from '../../src/mechanisms/queue/queue.runner.ts';

export interface MediaJson {
  id: string;
  listing_id: string;
  kind: 'photo' | 'video' | 'document';
  filename: string;
  content_type: string;
  size: number;
  sha256: string;
  width: number | null;
  height: number | null;
  position: number;
  caption: string | null;
  hidden: boolean;
  variants: {
    status: 'pending' | 'ready' | 'failed';
    thumb: VariantJson | null;
    large: VariantJson | null;
    mls: VariantJson | null;
  } | null;
  created_at: string;
  content_url: string;
}

export interface VariantJson {
  url: string;
  content_type: string;
  width: number;
  height: number;
  size: number;
}

/** Makes every queued photo's variants now, as the serve process's runner would. */
export async function makeVariantsNow(ctx: TestContext): Promise<void> {
  const runner = createJobRunner(
    ctx.deps,
    { info: () => undefined, warn: () => undefined, error: () => undefined },
    variantsHandler({ ...ctx.deps, writes: ctx.services.writes }, ctx.services.mediaCleanup, {
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
    }),
  );
  await runner.drain();
}

export interface ErrorJson {
  error: { code: string; message: string; details?: { field: string; message: string }[]; request_id: string };
}

export const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

export async function newGallery(ctx: TestContext, account: TestAccount): Promise<string> {
  const res = await call(ctx, 'POST', '/v1/listings', { key: account.key, body: { address: '1 Harbour Road' } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ id: string }>().id;
}

/** POST the parts as multipart/form-data through app.inject. */
export async function upload(
  ctx: TestContext,
  key: string,
  listingId: string,
  parts: Part[],
  headers: Record<string, string> = {},
): Promise<Response> {
  const { body, contentType } = multipart(parts);
  return ctx.app.inject({
    method: 'POST',
    url: `/v1/listings/${listingId}/media`,
    headers: { authorization: `Bearer ${key}`, 'content-type': contentType, ...headers },
    payload: body,
  });
}

/** Uploads and expects 201; returns the created media. */
export async function uploaded(ctx: TestContext, key: string, listingId: string, parts: Part[]): Promise<MediaJson[]> {
  const res = await upload(ctx, key, listingId, parts);
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ data: MediaJson[] }>().data;
}

export const assertError = (res: Response, status: number, code: string): ErrorJson => ({
  error: expectError(res, status, code),
});

export const contentUrl = (media: MediaJson): string => `/v1/listings/${media.listing_id}/media/${media.id}/content`;

export async function getContent(
  ctx: TestContext,
  key: string,
  media: MediaJson,
  headers: Record<string, string> = {},
): Promise<Response> {
  return call(ctx, 'GET', contentUrl(media), { key, headers });
}

/** Every key in the media storage, sorted. */
export async function storedKeys(ctx: TestContext): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of ctx.deps.storage.list('')) keys.push(object.key);
  return keys.sort();
}

export async function mediaRows(ctx: TestContext, listingId?: string) {
  let query = ctx.deps.db.kysely.selectFrom('media').selectAll();
  if (listingId !== undefined) query = query.where('listing_id', '=', listingId);
  return query.orderBy('position').execute();
}

export async function cleanupRows(ctx: TestContext) {
  return ctx.deps.db.kysely.selectFrom('media_cleanup').selectAll().execute();
}

/** The gallery's media_count, as the API reports it. */
export async function mediaCount(ctx: TestContext, key: string, listingId: string): Promise<number> {
  const res = await call(ctx, 'GET', `/v1/listings/${listingId}`, { key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ media_count: number }>().media_count;
}

export interface StoredState {
  keys: string[];
  rows: number;
  cleanup: number;
  count: number;
}

/** What a refused request must leave exactly as it was. */
export async function storedState(ctx: TestContext, key: string, listingId: string): Promise<StoredState> {
  return {
    keys: await storedKeys(ctx),
    rows: (await mediaRows(ctx)).length,
    cleanup: (await cleanupRows(ctx)).length,
    count: await mediaCount(ctx, key, listingId),
  };
}

/** Polls `check` until it passes (it throws while it does not), for at most `timeoutMs`. */
export async function eventually(check: () => Promise<void>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(50);
    }
  }
}
