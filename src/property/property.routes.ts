// The routes of a property page (docs/api.md §25), the same under the branded and the unbranded
// token. Every one resolves the token first: an unknown token, a page taken down, a hidden item,
// another gallery's media: all the same plain 404. No route serves an original to download or a
// ZIP, and no route of the unbranded page serves an original at all.
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { App } from '../http/types.ts';
import type { Services } from '../services.ts';
import { loadProperty, type PropertyView } from './property.load.ts';
import { embedView, photoPage, propertyPage } from './views/page.ts';
import { allowFraming } from '../public/headers.ts';
import { LONG_CACHE, registerPageImages, sendPlayback } from '../public/page-media.ts';
import { HIDDEN, type ItemParams, type TokenParams } from '../public/public-scope.ts';
import { viewablePhotos, visibleItem } from '../public/views/photo.ts';
import { toursFor, tourFrames } from '../public/views/tours.ts';
import type { PreviewMedia } from '../modules/invoices/invoices.lock.ts';
import { sendStoredBytes } from '../http/send-bytes.ts';
import { pageKit } from './property.kit.ts';

export function registerPropertyRoutes(
  app: App,
  { services, publicUrl }: { services: Services; publicUrl: string },
): void {
  async function property(request: FastifyRequest<{ Params: TokenParams }>): Promise<PropertyView> {
    const view = await loadProperty(services, request.params.token);
    if (view === undefined) throw new AppError('not_found', 'This property page is not available');
    return view;
  }

  async function item(request: FastifyRequest<{ Params: ItemParams }>) {
    const view = await property(request);
    const found = visibleItem(view, request.params.media_id);
    if (found === undefined) throw new AppError('not_found', 'No such file on this page');
    return found;
  }

  /** Page loads (GET, not HEAD) of either page and the embeddable view are the page's views. */
  const countView = async (view: PropertyView, request: FastifyRequest): Promise<void> => {
    if (request.method !== 'GET') return;
    await services.propertyPages.countView(view.page).catch((err: unknown) => {
      request.log.warn({ err }, 'could not count a property page view');
    });
  };

  app.get<{ Params: TokenParams }>('/:token', { schema: HIDDEN }, async (request, reply) => {
    const view = await property(request);
    await countView(view, request);
    // docs/api.md §28: the unbranded page shows (and frames) only the tours marked unbranded.
    tourFrames(reply, toursFor(view.listing.tours, view.studioName === null), "'none'");
    const kit = await pageKit(services, view);
    return reply.type('text/html; charset=utf-8').send(propertyPage(view, { publicUrl }, kit).toString());
  });

  /** The embeddable view: the one page another site may frame (the oEmbed iframe). */
  app.get<{ Params: TokenParams }>('/:token/embed', { schema: HIDDEN }, async (request, reply) => {
    const view = await property(request);
    await countView(view, request);
    allowFraming(reply, "'none'");
    return reply.type('text/html; charset=utf-8').send(embedView(view, { publicUrl }).toString());
  });

  /** One photo at its large size as a page (what a photo opens without JavaScript). */
  app.get<{ Params: ItemParams }>('/:token/photo/:media_id', { schema: HIDDEN }, async (request, reply) => {
    const view = await property(request);
    const photos = viewablePhotos(view);
    const index = photos.findIndex((m) => m.row.id === request.params.media_id);
    if (index === -1) throw new AppError('not_found', 'No such photo on this page');
    return reply.type('text/html; charset=utf-8').send(photoPage(view, photos, index).toString());
  });

  // Thumb, large, poster and cover.jpg (the Open Graph image, the oEmbed thumbnail; the WordPress
  // plugin uses these URLs too).
  // The pages are public: any cache may keep a variant at its versioned URL for a year.
  registerPageImages(app, services.media, {
    item: async (request) => {
      const found = await item(request);
      const preparing = (found as Partial<PreviewMedia>).preparing === true;
      return { found, longCache: `public, ${LONG_CACHE}`, preparing };
    },
    cover: async (request) => (await property(request)).cover,
  });

  /**
   * A video, played in the page (Range); not a download. The branded page plays it as the client
   * gallery does (the web rendition, else the original). The unbranded page never plays the
   * original, whose tags (title, artist, comment, ...) may name the studio: the web rendition or
   * the stripped copy, else 404 until one is made (docs/api.md §25).
   */
  app.get<{ Params: ItemParams }>('/:token/media/:media_id/play', { schema: HIDDEN }, async (request, reply) => {
    const view = await property(request);
    const found = visibleItem(view, request.params.media_id);
    if (found === undefined) throw new AppError('not_found', 'No such file on this page');
    if (!view.branded) return sendPlayback(request, reply, services.media, found, 'stripped');
    // The media's id, not its file name, as the unbranded page names everything.
    const name = `${found.row.id}.${found.row.content_type.split('/')[1] ?? 'bin'}`;
    return sendPlayback(request, reply, services.media, found, { original: name });
  });

  /**
   * docs/api.md §32: an item of the listing kit that the page offers (property.kit.ts), as an
   * attachment (ETag, one Range); anything else, and everything while the gallery waits for
   * payment or the kit is not ready, 404.
   */
  app.get<{ Params: TokenParams & { name: string } }>(
    '/:token/kit/:name',
    { schema: HIDDEN },
    async (request, reply) => {
      const view = await property(request);
      const offered = (await pageKit(services, view)).find((i) => i.name === request.params.name);
      if (offered === undefined) throw new AppError('not_found', 'No such file on this page');
      const file = await services.kit.file(view.page.account_id, view.page.listing_id, offered.name);
      const sent = await sendStoredBytes(request, reply, file);
      return sent.reply;
    },
  );
}
