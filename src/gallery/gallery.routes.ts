// The routes of the client gallery. Every one resolves the token first: an unknown or revoked
// link, a hidden item, another gallery's media: all the same plain 404.
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import { matchesAny, requestedRange, sendStoredBytes } from '../http/send-bytes.ts';
import type { App } from '../http/types.ts';
import { galleryUrl } from '../modules/listings/listings.serializer.ts';
import { zipOfGallery, type GalleryZip } from './gallery.zip.ts';
import { loadGallery, type GalleryView } from './gallery.load.ts';
import type { Config } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import type { Services } from '../services.ts';
import { galleryPage, tooMany, type PageNotice } from './views/page.ts';
import { COMMENT_MAX } from '../modules/client-links/share-links.schemas.ts';
import { LONG_CACHE, registerPageImages, sendPlayback } from '../public/page-media.ts';
import { HIDDEN, type ItemParams, type TokenParams } from '../public/public-scope.ts';
import { viewablePhotos, visibleItem } from '../public/views/photo.ts';
import { photoPage } from './views/photo.ts';
import { addressBucket } from '../http/rate-limit.ts';
import { verifyPassword } from '../lib/password.ts';
import { formOf } from '../dashboard/form.ts';
import {
  isExpired,
  LinkExpired,
  PASSWORD_ATTEMPTS,
  PASSWORD_WINDOW_MS,
  PasswordNeeded,
  rememberCookie,
  remembered,
} from './gallery.gate.ts';
import { passwordPage } from './views/gate.ts';
import { downloadsOn } from './views/parts.ts';
import type { PreviewMedia } from '../modules/invoices/invoices.lock.ts';
import { tourFrames } from '../public/views/tours.ts';
import { variantVersion } from '../public/views/images.ts';

/** A download counts when its response starts at byte 0 (HEAD and continuations do not). */
const startsAtZero = (request: FastifyRequest, range: { start: number } | undefined): boolean =>
  request.method === 'GET' && (range === undefined || range.start === 0);

/** What the client gallery's routes are built from (src/gallery/gallery.plugin.ts passes it in). */
export interface GalleryContext {
  services: Services;
  config: Config;
  clock: Clock;
}

export function registerGalleryRoutes(
  app: App,
  { services, clock, secureCookies }: Pick<GalleryContext, 'services' | 'clock'> & { secureCookies: boolean },
): void {
  /** The link's gallery, before its gate: unknown and revoked links are the same 404. */
  async function behindGate(request: FastifyRequest<{ Params: TokenParams }>): Promise<GalleryView> {
    const view = await loadGallery(services, request.params.token);
    // A RESO feed's link (docs/api.md §33) opens its gallery's mls variants alone (below).
    if (view === undefined || view.link.kind === 'feed') {
      throw new AppError('not_found', 'This gallery is no longer available');
    }
    if (isExpired(view.link, clock.now())) throw new LinkExpired(view.studioName, view.link.expires_at ?? '');
    return view;
  }

  /** docs/api.md §25: no byte of the gallery (page, image, file, ZIP) passes an expired or locked link. */
  async function gallery(request: FastifyRequest<{ Params: TokenParams }>): Promise<GalleryView> {
    const view = await behindGate(request);
    if (!remembered(request, view.link, clock.now())) {
      throw new PasswordNeeded(view.studioName, view.listing.address, view.link.token);
    }
    return view;
  }

  /** With favorites off (docs/api.md §28), marking, commenting and sending are not there (404). */
  const favoritesOn = (view: GalleryView): void => {
    if (view.link.favorites_enabled === 0) throw new AppError('not_found', 'Favorites are off for this link');
  };

  /** The page as it is now, for this link (a refusal re-renders it with its message and the note kept). */
  /** The page, its headers allowing the frames of the tours it embeds (docs/api.md §28). */
  async function renderPage(reply: FastifyReply, view: GalleryView, notice: PageNotice) {
    tourFrames(reply, view.listing.tours, "'self'");
    const [favorites, comments] = await Promise.all([
      services.clientLinks.favoriteIds(view.link),
      services.clientLinks.comments(view.link),
    ]);
    return galleryPage(view, galleryUrl('', view.link.token), {
      favorites: new Set(favorites),
      comments: new Map(comments.map((c) => [c.media_id, c.text])),
      notice,
    }).toString();
  }

  /** With downloads off, or while an invoice locks the gallery (docs/api.md §29), originals and the ZIP are not there (404). */
  const downloadable = (view: GalleryView): void => {
    if (!downloadsOn(view)) throw new AppError('not_found', 'Downloads are off for this gallery');
  };

  async function item(request: FastifyRequest<{ Params: ItemParams }>) {
    const view = await gallery(request);
    const found = visibleItem(view, request.params.media_id);
    if (found === undefined) throw new AppError('not_found', 'No such file in this gallery');
    return { view, found };
  }

  const countDownload = async (view: GalleryView, request: FastifyRequest): Promise<void> => {
    try {
      await services.clientLinks.countDownload(view.link);
    } catch (err) {
      // The download goes on: a counter is not worth failing the client's request for.
      request.log.warn({ err }, 'could not count a gallery download');
    }
  };

  app.get<{ Params: TokenParams }>('/:token', { schema: HIDDEN }, async (request, reply) => {
    const view = await gallery(request);
    if (request.method === 'GET') {
      await services.clientLinks.countView(view.link).catch((err: unknown) => {
        request.log.warn({ err }, 'could not count a gallery view');
      });
    }
    const query = request.query as { sent?: string; refused?: string } | undefined;
    const notice: PageNotice =
      query?.sent === '1' ? { sent: true } : query?.refused === 'max' ? { refused: 'too_many' } : {};
    return reply.type('text/html; charset=utf-8').send(await renderPage(reply, view, notice));
  });

  /** One photo at its large size as a page (what a thumbnail opens without JavaScript). */
  app.get<{ Params: ItemParams }>('/:token/photo/:media_id', { schema: HIDDEN }, async (request, reply) => {
    const view = await gallery(request);
    const photos = viewablePhotos(view);
    const index = photos.findIndex((m) => m.row.id === request.params.media_id);
    if (index === -1) throw new AppError('not_found', 'No such photo in this gallery');
    const base = galleryUrl('', view.link.token);
    return reply.type('text/html; charset=utf-8').send(photoPage(view, base, photos, index).toString());
  });

  // Thumb, large, poster, and the cover as a JPEG (the email shows it: every mail client reads JPEG).
  // An open link's variants may stay in the client's browser (`private`: no shared cache) for a
  // year at their versioned URLs; a link behind a password or with an end date keeps today's
  // `private, no-cache`, so no byte of it outlives the lock or the date (docs/api.md §25).
  registerPageImages(app, services.media, {
    item: async (request) => {
      const { view, found } = await item(request);
      const open = view.link.password_hash === null && view.link.expires_at === null;
      const preparing = (found as Partial<PreviewMedia>).preparing === true;
      return { found, longCache: open ? `private, ${LONG_CACHE}` : undefined, preparing };
    },
    cover: async (request) => (await gallery(request)).cover,
  });

  /**
   * docs/api.md §29: the PDF of the open invoice that locks this gallery, and of no other invoice
   * (404 when none locks it). Inline: the page links to it.
   */
  app.get<{ Params: TokenParams }>('/:token/invoice.pdf', { schema: HIDDEN }, async (request, reply) => {
    const view = await gallery(request);
    if (view.lock === undefined) throw new AppError('not_found', 'No invoice is waiting for payment');
    const pdf = await services.payLocks.pdf(view.link.account_id, view.lock);
    return reply
      .header('cache-control', 'private, no-store')
      .header('content-disposition', `inline; filename="${pdf.number ?? 'invoice'}.pdf"`)
      .type('application/pdf')
      .send(pdf.bytes);
  });

  /**
   * docs/api.md §33: a photo's mls variant at a RESO feed's link (the feed's MediaURL), until the
   * link's end (then the expired page, 410); a hidden photo is not there. The link is public, so
   * while the gallery waits for payment (docs/api.md §29: no `mls` byte through any public path)
   * it answers 404, and the same URL opens once the invoice is paid or void.
   */
  app.get<{ Params: ItemParams }>('/:token/mls/:media_id', { schema: HIDDEN }, async (request, reply) => {
    const gone = () => new AppError('not_found', 'This gallery is no longer available');
    const link = await services.clientLinks.resolve(request.params.token);
    if (link?.kind !== 'feed') throw gone();
    if (isExpired(link, clock.now())) {
      const studio = await services.accounts.get(link.account_id).catch(() => undefined);
      throw new LinkExpired(studio?.name ?? '', link.expires_at ?? '');
    }
    const [visible, lock] = await Promise.all([
      services.media.visible(link.account_id, link.listing_id),
      services.payLocks.of(link.account_id, link.listing_id),
    ]);
    if (lock !== undefined) throw new AppError('not_found', 'This gallery is waiting for payment');
    const found = visible.find((m) => m.row.id === request.params.media_id && m.row.kind === 'photo');
    const variant = found?.variants.find((v) => v.name === 'mls');
    if (found === undefined || variant === undefined) throw new AppError('not_found', 'No such photo in this gallery');
    const sent = await sendStoredBytes(request, reply, {
      etag: `"${variant.media_id}-mls-${variantVersion(variant)}"`,
      size: variant.size,
      contentType: variant.content_type,
      filename: `${found.row.id}-mls.jpg`,
      disposition: 'inline',
      open: (range) => services.media.openVariant(variant, range),
    });
    return sent.reply;
  });

  /** An original, as a download (counted from byte 0). */
  app.get<{ Params: ItemParams }>('/:token/media/:media_id/download', { schema: HIDDEN }, async (request, reply) => {
    const { view, found } = await item(request);
    downloadable(view);
    const sent = await sendStoredBytes(request, reply, {
      etag: `"${found.row.sha256}"`,
      size: found.row.size,
      contentType: found.row.content_type,
      filename: found.row.filename,
      open: (range) => services.media.open(found.row, range),
      // Counted before the first byte goes, as the ZIP is: whoever has the file sees the count.
      beforeSend: async (range) => {
        if (startsAtZero(request, range)) await countDownload(view, request);
      },
    });
    return sent.reply;
  });

  /** A video, played in the page (Range); not a download. With downloads off, its web rendition only. */
  app.get<{ Params: ItemParams }>('/:token/media/:media_id/play', { schema: HIDDEN }, async (request, reply) => {
    const { view, found } = await item(request);
    // docs/api.md §29: a locked gallery plays nothing (its videos have no variant while locked).
    if (view.lock !== undefined) throw new AppError('not_found', 'This gallery is waiting for payment');
    const withoutWeb = view.link.downloads_enabled !== 0 ? { original: found.row.filename } : 'nothing';
    return sendPlayback(request, reply, services.media, found, withoutWeb);
  });

  /** A ZIP as a download: Content-Length known, resumable (Range, If-Range), counted from byte 0. */
  async function sendZip(request: FastifyRequest, reply: FastifyReply, view: GalleryView, zip: GalleryZip | undefined) {
    if (zip === undefined) {
      throw new AppError('unavailable', 'The download is being prepared; try again in a minute', undefined, {
        'retry-after': '60',
      });
    }
    void reply.header('etag', zip.etag);
    if (matchesAny(request.headers['if-none-match'], zip.etag)) return reply.code(304).send(null);
    const range = requestedRange(request, zip.size, zip.etag);
    void reply.header('accept-ranges', 'bytes').header('content-disposition', zip.disposition).type('application/zip');
    if (range !== undefined) {
      void reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${zip.size}`);
    }
    void reply.header('content-length', range === undefined ? zip.size : range.end - range.start + 1);
    if (startsAtZero(request, range)) await countDownload(view, request);
    // HEAD: the headers only. Fastify answers HEAD with the GET route and drains the body it is
    // given (a null body makes it throw, a string would replace our Content-Length): an empty stream.
    return reply.send(request.method === 'HEAD' ? Readable.from([]) : zip.stream(range));
  }

  /** Every visible original in one ZIP. */
  app.get<{ Params: TokenParams }>('/:token/download.zip', { schema: HIDDEN }, async (request, reply) => {
    const view = await gallery(request);
    downloadable(view);
    return sendZip(request, reply, view, zipOfGallery(view, services));
  });

  /** docs/api.md §25: the favorites alone, the same ZIP filtered; 404 while none is marked. */
  app.get<{ Params: TokenParams }>('/:token/favorites.zip', { schema: HIDDEN }, async (request, reply) => {
    const view = await gallery(request);
    downloadable(view);
    favoritesOn(view);
    const favorites = new Set(await services.clientLinks.favoriteIds(view.link));
    if (!view.media.some((m) => favorites.has(m.row.id))) {
      throw new AppError('not_found', 'No photo is marked as a favorite');
    }
    return sendZip(request, reply, view, zipOfGallery(view, services, favorites));
  });

  const wantsJson = (request: FastifyRequest): boolean => /\bapplication\/json\b/.test(request.headers.accept ?? '');

  /** The visible photos marked at the link now (what the page counts). */
  const markedCount = async (view: GalleryView): Promise<number> => {
    const marked = new Set(await services.clientLinks.favoriteIds(view.link));
    return view.media.filter((m) => m.row.kind === 'photo' && marked.has(m.row.id)).length;
  };

  /**
   * Marks (on=1) or unmarks a photo as a favorite; a plain form, so it works without JavaScript.
   * Past the link's selection_max (docs/api.md §28) the mark is refused, nothing changes, and the
   * page says why (to the script: `refused` and the same words, which it shows).
   */
  app.post<{ Params: ItemParams }>('/:token/favorites/:media_id', { schema: HIDDEN }, async (request, reply) => {
    const { view, found } = await item(request);
    favoritesOn(view);
    if (found.row.kind !== 'photo') throw new AppError('not_found', 'Only photos can be favorites');
    const on = formOf(request.body)?.get('on') === '1';
    const base = galleryUrl('', view.link.token);
    const outcome = on
      ? await services.clientLinks.markWithinLimit(view.link, found.row.id)
      : (await services.clientLinks.setFavorite(view.link, found.row.id, false))
        ? 'marked'
        : 'gone';
    if (outcome === 'gone') throw new AppError('not_found', 'This gallery is no longer available');
    if (outcome === 'too_many') {
      if (wantsJson(request)) {
        // 200: the answer says what happened (a 4xx would be a console error in the client's browser).
        return reply
          .header('cache-control', 'no-store')
          .send({ on: false, refused: 'too_many', message: tooMany(view.link.selection_max ?? 0) });
      }
      return reply.code(303).header('location', `${base}?refused=max#photo-${found.row.id}`).send(null);
    }
    // The page's script (favorites.js) asks for JSON: the heart and the count change without a reload.
    if (wantsJson(request)) {
      return reply.header('cache-control', 'no-store').send({ on, favorites_count: await markedCount(view) });
    }
    return reply.code(303).header('location', `${base}#photo-${found.row.id}`).send(null);
  });

  /** docs/api.md §28: the comment on a photo (<= 1,000 characters; empty removes it), with or without JavaScript. */
  app.post<{ Params: ItemParams }>('/:token/comments/:media_id', { schema: HIDDEN }, async (request, reply) => {
    const { view, found } = await item(request);
    favoritesOn(view);
    if (found.row.kind !== 'photo') throw new AppError('not_found', 'Only photos can be commented on');
    const text = (formOf(request.body)?.get('comment') ?? '').trim();
    if (text.length > COMMENT_MAX) throw new AppError('validation_error', 'The comment is too long');
    if (!(await services.clientLinks.setComment(view.link, found.row.id, text))) {
      throw new AppError('not_found', 'This gallery is no longer available');
    }
    if (wantsJson(request)) return reply.header('cache-control', 'no-store').send({ comment: text });
    const base = galleryUrl('', view.link.token);
    return reply.code(303).header('location', `${base}#photo-${found.row.id}`).send(null);
  });

  /** Sends the selection to the studio, with an optional note (<= 2,000 characters). */
  app.post<{ Params: TokenParams }>('/:token/favorites', { schema: HIDDEN }, async (request, reply) => {
    const view = await gallery(request);
    favoritesOn(view);
    const note = (formOf(request.body)?.get('note') ?? '').trim();
    if (note.length > 2000) throw new AppError('validation_error', 'The note is too long');
    const outcome = await services.clientLinks.submitFavorites(view.link, note === '' ? null : note);
    if (outcome === 'gone') throw new AppError('not_found', 'This gallery is no longer available');
    if (outcome !== 'sent') {
      // Nothing is sent or saved (the note included): the page again, saying why, the note kept in its box.
      return reply
        .code(409)
        .header('cache-control', 'private, no-store')
        .type('text/html; charset=utf-8')
        .send(await renderPage(reply, view, { refused: outcome.refused, note }));
    }
    const base = galleryUrl('', view.link.token);
    return reply.code(303).header('location', `${base}?sent=1#favorites`).send(null);
  });

  /** The password form's answer: right, this browser is remembered; wrong, counted (10 in 15 minutes). */
  app.post<{ Params: TokenParams }>('/:token/unlock', { schema: HIDDEN }, async (request, reply) => {
    const view = await behindGate(request);
    const base = galleryUrl('', view.link.token);
    if (view.link.password_hash === null) return reply.code(303).header('location', base).send(null);
    const address = addressBucket(request.ip);
    // Counted before it is checked (atomically, on every node): guesses sent at once cannot all
    // be checked against a limit read before any of them failed.
    const claim = await services.clientLinks.claimPasswordAttempt(
      view.link,
      address,
      PASSWORD_ATTEMPTS,
      PASSWORD_WINDOW_MS,
    );
    if (claim === 'gone') throw new AppError('not_found', 'This gallery is no longer available');
    if (claim === 'limited') {
      throw new AppError('rate_limited', 'Too many wrong passwords; try again later', undefined, {
        'retry-after': String(PASSWORD_WINDOW_MS / 1000),
      });
    }
    const given = formOf(request.body)?.get('password') ?? '';
    if (given !== '' && given.length <= 200 && (await verifyPassword(given, view.link.password_hash))) {
      await services.clientLinks.passwordRight(view.link, address);
      return reply
        .code(303)
        .header('set-cookie', rememberCookie(view.link, clock.now(), secureCookies))
        .header('location', base)
        .send(null);
    }
    return reply
      .code(403)
      .header('cache-control', 'private, no-store')
      .type('text/html; charset=utf-8')
      .send(
        passwordPage({
          studioName: view.studioName,
          address: view.listing.address,
          token: view.link.token,
          wrong: true,
        }).toString(),
      );
  });
}
