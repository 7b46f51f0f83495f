// The bytes a public page shows inline, for the client gallery (/g), the property pages (/p) and
// the public pages to come: a photo's thumb or large variant, a video's poster, the cover, and a
// video to play (its web rendition when it has one, else the original or the stripped copy as the
// page says: docs/api.md §25). Never a download.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import { sendStoredBytes } from '../http/send-bytes.ts';
import type { Services } from '../services.ts';
import type { VisibleMedia } from '../modules/media/media.service.ts';
import type { App } from '../http/types.ts';
import { HIDDEN, type ItemParams, type TokenParams } from './public-scope.ts';
import { variantVersion } from './views/images.ts';

type PageImage = 'thumb' | 'medium' | 'large' | 'poster';

/** A year, and never revalidated: for bytes at a URL that names them (src/public/views/images.ts). */
export const LONG_CACHE = 'max-age=31536000, immutable';

/**
 * One of the item's image variants, inline; 404 while it is not made yet. Asked for at its
 * versioned URL (`?v=` the current version), it is sent with `longCache` when the page gives one
 * (`public, ...` or `private, ...`); any other URL of it keeps `private, no-cache`, since its
 * bytes change when the variant is made again.
 */
async function sendPageImage(
  request: FastifyRequest,
  reply: FastifyReply,
  media: Services['media'],
  { found, longCache, preparing }: PageItem,
  name: PageImage,
): Promise<FastifyReply> {
  const variant = found.variants.find((v) => v.name === name);
  if (variant === undefined && preparing === true && (name === 'thumb' || name === 'large')) {
    // docs/api.md §29: a locked gallery's preview not made yet. Never drawn here, per request: its
    // job is queued (src/modules/invoices/invoices.lock.ts), and the browser asks again.
    throw new AppError('unavailable', 'This preview is being prepared; try again in a few seconds', undefined, {
      'retry-after': '5',
    });
  }
  if (variant === undefined) throw new AppError('not_found', 'This image is not ready');
  const asked = (request.query as { v?: unknown } | undefined)?.v;
  const versioned = longCache !== undefined && asked === variantVersion(variant);
  const sent = await sendStoredBytes(request, reply, {
    ...(versioned ? { cacheControl: longCache } : {}),
    // The stored file's version: a locked gallery's preview (served under the same name) never
    // shares its photo's tag, so no If-None-Match crosses a lock or an unlock (docs/api.md §29).
    etag: `"${variant.media_id}-${name}-${variantVersion(variant)}"`,
    size: variant.size,
    contentType: variant.content_type,
    filename: `${found.row.id}-${name}.${variant.content_type === 'image/webp' ? 'webp' : 'jpg'}`,
    disposition: 'inline',
    open: (range) => media.openVariant(variant, range),
  });
  return sent.reply;
}

/**
 * What a page plays of a video when it has no web rendition: the original, under that name (the client
 * gallery, the branded property page); the `stripped` copy, so that nothing of the original's tags
 * reaches the page (the unbranded property page, docs/api.md §25); or nothing (a gallery link
 * with downloads off: playing the original would hand out the file the link does not offer).
 */
export type WithoutWeb = { original: string } | 'stripped' | 'nothing';

/**
 * The rendition the unbranded page plays: one that keeps none of the original's tags, the web
 * rendition or else the stripped copy; undefined until one is made.
 */
export const untaggedRendition = (found: VisibleMedia): VisibleMedia['variants'][number] | undefined =>
  found.variants.find((v) => v.name === 'web') ?? found.variants.find((v) => v.name === 'stripped');

/**
 * A video to play in the page (Range): its web rendition when it has one, else what `withoutWeb`
 * says; 404 when that is nothing yet. A rendition is named by the media's id (never its file name).
 */
export async function sendPlayback(
  request: FastifyRequest,
  reply: FastifyReply,
  media: Services['media'],
  found: VisibleMedia,
  withoutWeb: WithoutWeb,
): Promise<FastifyReply> {
  if (found.row.kind !== 'video') throw new AppError('not_found', 'Only videos play in the page');
  const rendition = withoutWeb === 'stripped' ? untaggedRendition(found) : found.variants.find((v) => v.name === 'web');
  if (rendition === undefined) {
    if (typeof withoutWeb !== 'object') throw new AppError('not_found', 'This video has no rendition to play here yet');
    const original = await sendStoredBytes(request, reply, {
      etag: `"${found.row.sha256}"`,
      size: found.row.size,
      contentType: found.row.content_type,
      filename: withoutWeb.original,
      disposition: 'inline',
      open: (range) => media.open(found.row, range),
    });
    return original.reply;
  }
  const sent = await sendStoredBytes(request, reply, {
    etag: `"${rendition.media_id}-${rendition.name}-${Date.parse(rendition.created_at).toString(36)}"`,
    size: rendition.size,
    contentType: rendition.content_type,
    filename: `${found.row.id}-${rendition.name}.mp4`,
    disposition: 'inline',
    open: (range) => media.openVariant(rendition, range),
  });
  return sent.reply;
}

/**
 * A visible item of a page, and how long a browser (`private`) or any cache (`public`) may keep
 * its variants' bytes at their versioned URLs: undefined where they must be asked for each time
 * (a gallery behind a password or with an end date: its bytes must not outlive the lock).
 */
interface PageItem {
  found: VisibleMedia;
  longCache: string | undefined;
  /** A locked gallery's photo whose preview is not made yet (docs/api.md §29): 503, not 404. */
  preparing?: boolean;
}

/** What a public page's image routes need of it: the visible item a URL names, and the cover. */
export interface PageImages {
  item(request: FastifyRequest<{ Params: ItemParams }>): Promise<PageItem>;
  cover(request: FastifyRequest<{ Params: TokenParams }>): Promise<VisibleMedia | undefined>;
}

/**
 * The image routes of every public page, inline: an item's thumb, large and poster, and the
 * cover's large variant as cover.jpg (an email's image, the Open Graph image, the oEmbed thumbnail).
 */
export function registerPageImages(app: App, media: Services['media'], page: PageImages): void {
  const image = (name: PageImage) => async (request: FastifyRequest<{ Params: ItemParams }>, reply: FastifyReply) =>
    sendPageImage(request, reply, media, await page.item(request), name);
  app.get<{ Params: ItemParams }>('/:token/thumb/:media_id', { schema: HIDDEN }, image('thumb'));
  app.get<{ Params: ItemParams }>('/:token/medium/:media_id', { schema: HIDDEN }, image('medium'));
  app.get<{ Params: ItemParams }>('/:token/large/:media_id', { schema: HIDDEN }, image('large'));
  app.get<{ Params: ItemParams }>('/:token/poster/:media_id', { schema: HIDDEN }, image('poster'));

  app.get<{ Params: TokenParams }>('/:token/cover.jpg', { schema: HIDDEN }, async (request, reply) => {
    const variant = (await page.cover(request))?.variants.find((v) => v.name === 'large');
    if (variant === undefined) throw new AppError('not_found', 'There is no cover photo yet');
    const sent = await sendStoredBytes(request, reply, {
      etag: `"${variant.media_id}-cover-${variantVersion(variant)}"`,
      size: variant.size,
      contentType: variant.content_type,
      filename: 'cover.jpg',
      disposition: 'inline',
      open: (range) => media.openVariant(variant, range),
    });
    return sent.reply;
  });
}
