// The routes of a property page (docs/api.md §25), the same under the branded and the unbranded
// token. Every one resolves the token first: an unknown token, a page taken down, a hidden item,
// another gallery's media: all the same plain 404. No route serves an original or a ZIP.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import { sendStoredBytes } from '../http/send-bytes.ts';
import type { App } from '../http/types.ts';
import type { Services } from '../services.ts';
import { loadProperty, visibleItem, type PropertyView } from './property.load.ts';
import { allowFraming } from './property.headers.ts';
import { embedView, photoPage, propertyPage, viewablePhotos } from './views/page.ts';
import { sendPageImage, sendPlayback, type PageImage } from '../gallery/page-media.ts';

interface TokenParams {
  token: string;
}
interface ItemParams extends TokenParams {
  media_id: string;
}

const HIDDEN = { hide: true } as const;

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
    return reply.type('text/html; charset=utf-8').send(propertyPage(view, { publicUrl }).toString());
  });

  /** The embeddable view: the one page another site may frame (the oEmbed iframe). */
  app.get<{ Params: TokenParams }>('/:token/embed', { schema: HIDDEN }, async (request, reply) => {
    const view = await property(request);
    await countView(view, request);
    allowFraming(reply);
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

  /** A photo's thumb or large variant or a video's poster, inline (the WordPress plugin uses these URLs too). */
  const image = (name: PageImage) => async (request: FastifyRequest<{ Params: ItemParams }>, reply: FastifyReply) =>
    sendPageImage(request, reply, services.media, await item(request), name);
  app.get<{ Params: ItemParams }>('/:token/thumb/:media_id', { schema: HIDDEN }, image('thumb'));
  app.get<{ Params: ItemParams }>('/:token/large/:media_id', { schema: HIDDEN }, image('large'));
  app.get<{ Params: ItemParams }>('/:token/poster/:media_id', { schema: HIDDEN }, image('poster'));

  /** The cover's large variant: the Open Graph image and the oEmbed thumbnail. */
  app.get<{ Params: TokenParams }>('/:token/cover.jpg', { schema: HIDDEN }, async (request, reply) => {
    const view = await property(request);
    const variant = view.cover?.variants.find((v) => v.name === 'large');
    if (variant === undefined) throw new AppError('not_found', 'This property has no cover photo yet');
    const sent = await sendStoredBytes(request, reply, {
      etag: `"${variant.media_id}-cover-${Date.parse(variant.created_at).toString(36)}"`,
      size: variant.size,
      contentType: variant.content_type,
      filename: 'cover.jpg',
      disposition: 'inline',
      open: (range) => services.media.openVariant(variant, range),
    });
    return sent.reply;
  });

  /** A video, played in the page (Range), as the client gallery plays it; not a download. */
  app.get<{ Params: ItemParams }>('/:token/media/:media_id/play', { schema: HIDDEN }, async (request, reply) => {
    const found = await item(request);
    // The media's id, not its filename: a name could carry the studio's onto the unbranded page.
    const name = `${found.row.id}.${found.row.content_type.split('/')[1] ?? 'bin'}`;
    return sendPlayback(request, reply, services.media, found, { originalName: name, original: true });
  });
}
