// Helpers for the share link suites (docs/api.md §28): the API calls, the page's forms, the events,
// and galleries whose every public URL a link serves.
import assert from 'node:assert/strict';
import { call, type TestAccount, type TestContext } from './test-app.ts';
import { jpeg, mp4, pdf } from './media-fixtures.ts';
import { makeVariantsNow, uploaded } from './media-helpers.ts';
import { newGallery } from './notification-helpers.ts';

export const DAY = 24 * 60 * 60 * 1000;

export interface ShareLinkJson {
  id: string;
  listing_id: string;
  label: string;
  email: string | null;
  url: string;
  expires_at: string | null;
  password_protected: boolean;
  downloads_enabled: boolean;
  favorites_enabled: boolean;
  selection_min: number | null;
  selection_max: number | null;
  views: number;
  downloads: number;
  favorites_count: number;
  first_viewed_at: string | null;
  last_viewed_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface FavoritesJson {
  media_ids: string[];
  note: string | null;
  comments: { media_id: string; text: string; updated_at: string }[];
  submitted_at: string | null;
  updated_at: string | null;
}

/** The helpers of one suite's context and studio. */
export function shareLinkHelpers(ctx: TestContext, owner: TestAccount) {
  const base = (listingId: string) => `/v1/listings/${listingId}/share_links`;
  const create = (listingId: string, body: Record<string, unknown>, key = owner.key) =>
    call(ctx, 'POST', base(listingId), { key, body });
  const patch = (listingId: string, id: string, body: Record<string, unknown>) =>
    call(ctx, 'PATCH', `${base(listingId)}/${id}`, { key: owner.key, body });
  const get = async (listingId: string, id: string): Promise<ShareLinkJson> => {
    const res = await call(ctx, 'GET', `${base(listingId)}/${id}`, { key: owner.key });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<ShareLinkJson>();
  };
  async function shareLink(listingId: string, body: Record<string, unknown> = {}) {
    const res = await create(listingId, { label: 'Agent team', ...body });
    assert.equal(res.statusCode, 201, res.body);
    const link = res.json<ShareLinkJson>();
    return { link, path: new URL(link.url).pathname };
  }
  const form = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    ctx.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: new URLSearchParams(fields).toString(),
      remoteAddress: '127.0.0.1',
    });
  const events = async (type: string) => {
    const res = await call(ctx, 'GET', '/v1/events', { key: owner.key, query: { type, limit: '100' } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ data: { type: string; data: { object: Record<string, unknown> } }[] }>().data;
  };

  /** A gallery with a photo, a video and a document, variants made; every URL a link serves of it. */
  async function galleryWithFiles() {
    const listing = await newGallery(ctx, owner, { status: 'active' });
    const [photo, video, doc] = await uploaded(ctx, owner.key, listing.id, [
      { filename: 'porch.jpg', contentType: 'image/jpeg', data: await jpeg(40, 30) },
      { filename: 'walk.mp4', contentType: 'video/mp4', data: mp4() },
      { filename: 'plan.pdf', contentType: 'application/pdf', data: pdf('plan') },
    ]);
    await makeVariantsNow(ctx);
    const urls = (p: string) => ({
      pages: [p, `${p}/photo/${photo!.id}`],
      images: [`${p}/thumb/${photo!.id}`, `${p}/large/${photo!.id}`, `${p}/cover.jpg`, `${p}/media/${video!.id}/play`],
      downloads: [
        `${p}/media/${photo!.id}/download`,
        `${p}/media/${video!.id}/download`,
        `${p}/media/${doc!.id}/download`,
        `${p}/download.zip`,
      ],
    });
    return { listingId: listing.id, photo: photo!, video: video!, doc: doc!, urls };
  }

  async function galleryWithPhotos(n = 3) {
    const listing = await newGallery(ctx, owner, { status: 'active' });
    const photos = await uploaded(
      ctx,
      owner.key,
      listing.id,
      await Promise.all(
        Array.from({ length: n }, async (_, i) => ({
          filename: `p${i + 1}.jpg`,
          contentType: 'image/jpeg',
          data: await jpeg(40 + i, 30),
        })),
      ),
    );
    await makeVariantsNow(ctx);
    return { listingId: listing.id, ids: photos.map((p) => p.id) };
  }

  return { base, create, patch, get, shareLink, form, events, galleryWithFiles, galleryWithPhotos };
}

/**
 * The share link operations (docs/api.md §28) as the security suite's route table takes them: each
 * prepares a valid request in the account, on a gallery (and a link, emailed to someone) of its own.
 */
export function shareLinkRouteCases(context: () => TestContext, newListing: (account: TestAccount) => Promise<string>) {
  let serial = 0;
  async function newShareLink(account: TestAccount): Promise<string> {
    const listingId = await newListing(account);
    serial += 1;
    const res = await call(context(), 'POST', `/v1/listings/${listingId}/share_links`, {
      key: account.key,
      body: { label: 'Buyer agent', email: `agent${serial}@example.test` },
    });
    assert.equal(res.statusCode, 201, res.body);
    return `/v1/listings/${listingId}/share_links/${res.json<{ id: string }>().id}`;
  }
  const path = '/v1/listings/:id/share_links/:share_link_id';
  const at = (suffix: string, status: number, body?: Record<string, unknown>) => async (a: TestAccount) => ({
    url: `${await newShareLink(a)}${suffix}`,
    status,
    ...(body === undefined ? {} : { body }),
  });
  const list = async (a: TestAccount) => `/v1/listings/${await newListing(a)}/share_links`;
  return [
    {
      method: 'GET',
      path: '/v1/listings/:id/share_links',
      prepare: async (a: TestAccount) => ({ url: await list(a), status: 200 }),
    },
    {
      method: 'POST',
      path: '/v1/listings/:id/share_links',
      prepare: async (a: TestAccount) => ({ url: await list(a), body: { label: 'Buyer agent' }, status: 201 }),
    },
    { method: 'GET', path, prepare: at('', 200) },
    { method: 'PATCH', path, prepare: at('', 200, { downloads_enabled: false }) },
    { method: 'DELETE', path, prepare: at('', 204) },
    { method: 'POST', path: `${path}/rotate`, prepare: at('/rotate', 200) },
    { method: 'POST', path: `${path}/notify`, prepare: at('/notify', 202) },
    { method: 'GET', path: `${path}/favorites`, prepare: at('/favorites', 200) },
  ] as const;
}
