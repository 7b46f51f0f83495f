// oEmbed 1.0 for the property pages (docs/api.md §25): GET /oembed?url=<a property page URL>&format=json,
// no key. A `rich` answer whose html is an iframe of the page's embeddable view (/p/<token>/embed,
// the one page other sites may frame). A URL that is not a live property page is 404; a format
// other than json is 501, as the oEmbed specification says. The unbranded page's answer names
// no one (no author, no provider).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import { escapeHtml } from '../lib/html-escape.ts';
import type { RateLimiter } from '../http/rate-limit.ts';
import type { App } from '../http/types.ts';
import type { Services } from '../services.ts';
import { loadProperty } from './property.load.ts';
import { summaryOf } from './views/page.ts';

/** The iframe's size unless the consumer asks for less (maxwidth, maxheight). */
const DEFAULT_WIDTH = 640;
const DEFAULT_HEIGHT = 560;

interface OEmbedQuery {
  url?: string;
  format?: string;
  maxwidth?: string;
  maxheight?: string;
}

/** The token of a property page URL of this deployment (the page or its embeddable view), or undefined. */
export function propertyTokenOf(publicUrl: string, url: string): string | undefined {
  const bare = url.split(/[?#]/, 1)[0] ?? '';
  const prefix = `${publicUrl}/p/`;
  if (!bare.startsWith(prefix)) return undefined;
  const match = /^([A-Za-z0-9_-]{32})(?:\/|\/embed\/?)?$/.exec(bare.slice(prefix.length));
  return match?.[1];
}

const limitOf = (value: string | undefined, fallback: number): number => {
  if (value === undefined || !/^\d{1,6}$/.test(value)) return fallback;
  return Math.max(200, Math.min(fallback, Number(value)));
};

export function registerOEmbed(
  app: App,
  { services, publicUrl, limiter }: { services: Services; publicUrl: string; limiter: RateLimiter },
): void {
  app.get('/oembed', { schema: { hide: true } }, async (request: FastifyRequest, reply: FastifyReply) => {
    const charged = limiter.chargeGallery(request.ip, reply);
    if (charged !== undefined) await charged;
    const query = (request.query ?? {}) as OEmbedQuery;
    if (typeof query.url !== 'string' || query.url === '') {
      throw new AppError('validation_error', 'url is required', [{ field: 'url', message: 'is required' }]);
    }
    const format = query.format ?? 'json';
    if (format !== 'json') {
      return reply.code(501).send({
        error: {
          code: 'not_implemented',
          message: 'Only format=json is answered',
          request_id: request.id,
        },
      });
    }
    const token = propertyTokenOf(publicUrl, query.url);
    const view = token === undefined ? undefined : await loadProperty(services, token);
    if (token === undefined || view === undefined) throw new AppError('not_found', 'Not a published property page');
    const width = limitOf(query.maxwidth, DEFAULT_WIDTH);
    const height = limitOf(query.maxheight, DEFAULT_HEIGHT);
    const src = `${publicUrl}/p/${token}/embed`;
    const title = view.listing.address;
    const large = view.cover?.variants.find((v) => v.name === 'large');
    return reply
      .header('access-control-allow-origin', '*')
      .header('cache-control', 'no-cache')
      .send({
        version: '1.0',
        type: 'rich',
        title,
        ...(view.studioName === null ? {} : { author_name: view.studioName }),
        html:
          `<iframe src="${escapeHtml(src)}" width="${width}" height="${height}" title="${escapeHtml(title)}" ` +
          'loading="lazy" referrerpolicy="no-referrer" style="border:0;max-width:100%" allowfullscreen></iframe>',
        width,
        height,
        ...(large === undefined
          ? {}
          : {
              thumbnail_url: `${publicUrl}/p/${token}/cover.jpg`,
              thumbnail_width: large.width,
              thumbnail_height: large.height,
            }),
        description: summaryOf(view),
      });
  });
}
