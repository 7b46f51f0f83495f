// A gallery's files in the dashboard: the upload form (multipart, through the same media service
// as POST /v1/listings/:id/media: sniffed, all or nothing, counted, announced, given variants),
// the thumbnails the gallery page shows, one item's page, and what is done to the ticked items at
// once (hidden, shown, deleted: each one write of the media service, all of them or none). The
// dashboard parses only small forms; the upload has a scope of its own where multipart is parsed,
// streamed to storage, never held in memory.
import multipart, { type Multipart } from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_STATUS } from '../errors.ts';
import { continueBody } from '../http/connections.ts';
import { STREAMED_BODY } from '../http/validation.ts';
import { sendStoredBytes } from '../http/send-bytes.ts';
import type { App } from '../http/types.ts';
import { sameToken } from '../modules/accounts/sessions.service.ts';
import { asClientFault, type IncomingFile } from '../modules/media/media.service.ts';
import { registerUploadRoutes } from '../modules/uploads/uploads.routes.ts';
import { StringEnum } from '../http/schemas.ts';
import { formFields, hasErrors, schemaFieldErrors, type FormFields } from './form.ts';
import { MediaUpdateBody, type MediaType, type MediaUpdateInput } from '../modules/media/media.schemas.ts';
import { PAGE_ROUTE, sendPage, viewerOf, type DashboardContext } from './page.ts';
import { fromThisSite } from './security.ts';
import type { Notice } from './views/layout.ts';
import { bulkDeletePage, mediaPage } from './views/gallery-media.ts';

const MEMBER = { dashboard: 'member' } as const;

type Params = { id: string; media_id?: string };

/** The most items one bulk form acts on (a form of this many ids is about 20 KB). */
export const MEDIA_BULK_MAX = 500;

/** What the gallery page says after "Apply suggested order" (docs/api.md §30). */
export const SUGGESTED_ORDER_NOTICES: Record<string, Notice> = {
  'order-suggested': {
    kind: 'success',
    text: 'Suggested order applied: photos by room, similar ones together with the best first.',
  },
  'order-suggest-stale': { kind: 'error', text: 'Not applied: the gallery changed meanwhile. Try again.' },
};
/** The bulk form's body: its ids, each `media_id=med_...&` (about 40 bytes), and the rest. */
const BULK_FORM_BYTES = 64 * 1024;

/** The ticked items' form: what to do, to which of the gallery's media (ids as the API spells them). */
const MediaBulkForm = Type.Object(
  {
    action: StringEnum(['hide', 'show', 'delete'] as const),
    media_ids: Type.Array(Type.String({ pattern: '^med_[0-9A-Za-z]{1,64}$' }), {
      minItems: 1,
      maxItems: MEDIA_BULK_MAX,
    }),
    /** Sent by the confirmation page: the deletion was asked for twice. */
    confirm: Type.Optional(Type.Literal('1')),
  },
  { additionalProperties: false, title: 'MediaBulkForm' },
);

/**
 * What one item's form changes (caption, visibility, position and, docs/api.md §31, a photo's
 * staging), as PATCH .../media/:media_id takes it; undefined when that route's schema refuses what
 * was sent. The media service checks the rest (a position past n, the original).
 */
export function itemPatch(form: FormFields, current: MediaType): MediaUpdateInput | undefined {
  const asked: Record<string, unknown> = {};
  const caption = form.optional('caption');
  if (caption !== undefined) asked.caption = caption.trim() === '' ? null : caption.trim();
  const position = form.optional('position')?.trim() ?? '';
  if (position !== '') {
    const n = Number(position);
    asked.position = Number.isFinite(n) ? n : position;
  }
  const original = form.optional('original_media_id')?.trim();
  if (original !== undefined) asked.original_media_id = original === '' ? null : original;
  if (hasErrors(schemaFieldErrors(MediaUpdateBody, asked))) return undefined;
  const patch: MediaUpdateInput = {};
  if (asked.caption !== undefined && asked.caption !== current.caption) patch.caption = asked.caption as string | null;
  if (form.optional('hidden_shown') !== undefined) {
    const hidden = form.get('hidden') === '1';
    if (hidden !== current.hidden) patch.hidden = hidden;
  }
  if (asked.position !== undefined && asked.position !== current.position) patch.position = asked.position as number;
  if (form.optional('virtually_staged_shown') !== undefined) {
    const staged = form.get('virtually_staged') === '1';
    if (staged !== current.virtually_staged) patch.virtually_staged = staged;
  }
  if (asked.original_media_id !== undefined && asked.original_media_id !== current.original_media_id) {
    patch.original_media_id = asked.original_media_id as string | null;
  }
  return patch;
}

/** What the gallery routes lend these: the page's notices and where a redirect goes. */
export interface GalleryPaths {
  notice(request: FastifyRequest): Notice | null;
  galleryPath(id: string, notice?: string, anchor?: string): string;
}

/** The refusals an upload form can meet, as the gallery page's notices. */
const UPLOAD_REFUSALS: Partial<Record<string, string>> = {
  validation_error: 'upload-empty',
  unsupported_media_type: 'upload-refused',
  payload_too_large: 'upload-too-large',
};

/** The page's script asks for JSON (it shows progress and the outcome in place); a plain form gets a redirect. */
const wantsJson = (request: FastifyRequest): boolean => (request.headers.accept ?? '').includes('application/json');

/**
 * The form token of a streamed body: in the `X-CSRF-Token` header (the page's script), else the
 * form's first part, `_csrf` (the form puts it before the file input, and browsers send parts in
 * order). Checked before any file byte is read.
 */
export async function checkToken(
  request: FastifyRequest,
  expected: string,
  parts: AsyncIterator<Multipart>,
): Promise<void> {
  const header = request.headers['x-csrf-token'];
  if (header !== undefined) {
    if (typeof header === 'string' && sameToken(expected, header)) return;
    throw new AppError('forbidden', 'Missing or wrong form token');
  }
  const first = await parts.next();
  const part = first.done === true ? undefined : first.value;
  const token = part?.type === 'field' && part.fieldname === '_csrf' ? part.value : undefined;
  if (typeof token !== 'string' || !sameToken(expected, token)) {
    throw new AppError('forbidden', 'Missing or wrong form token');
  }
}

export function registerGalleryMediaRoutes(scope: App, ctx: DashboardContext, paths: GalleryPaths): void {
  const { services } = ctx;
  const limits = ctx.config.media;

  // One item: its caption, position, visibility, the cover, its deletion, and the way to the next.
  scope.get('/galleries/:id/media/:media_id', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const { id, media_id: mediaId = '' } = request.params as Params;
    const listing = await services.listings.get(account.id, id);
    const media = (await services.media.list(account.id, id)).data;
    const i = media.findIndex((m) => m.id === mediaId);
    const item = media[i];
    if (item === undefined) throw new AppError('not_found', 'No such media');
    return sendPage(
      reply,
      mediaPage({
        viewer,
        notice: paths.notice(request),
        listing,
        media: item,
        total: media.length,
        previous: media[i - 1] ?? null,
        next: media[i + 1] ?? null,
        photos: media.filter((m) => m.kind === 'photo'),
      }),
    );
  });

  // The ticked items: hidden or shown at once; deleted once the confirmation page asked again.
  // Each is one write of the media service: an id not of this gallery (another gallery's, another
  // account's, deleted meanwhile) is the 404 page, and nothing of the selection is changed.
  scope.post(
    '/galleries/:id/media/bulk',
    { config: MEMBER, schema: PAGE_ROUTE, bodyLimit: BULK_FORM_BYTES },
    async (request, reply) => {
      const { viewer, account } = viewerOf(request);
      const { id } = request.params as Params;
      const form = formFields(request.body);
      const confirm = form.optional('confirm');
      const asked = {
        action: form.get('action'),
        media_ids: [...new Set(form.all('media_id'))],
        ...(confirm === undefined ? {} : { confirm }),
      };
      // The gallery first: another account's, or a deleted one, is the 404 page, whatever the form says.
      const listing = await services.listings.get(account.id, id);
      if (hasErrors(schemaFieldErrors(MediaBulkForm, asked))) {
        const none = asked.media_ids.length === 0 && ['hide', 'show', 'delete'].includes(asked.action);
        return reply.redirect(paths.galleryPath(id, none ? 'media-none-ticked' : 'media-bulk-refused', 'media'), 303);
      }
      const ids = asked.media_ids;
      if (asked.action === 'delete' && confirm !== '1') {
        const chosen = new Set(ids);
        const media = (await services.media.list(account.id, id)).data.filter((m) => chosen.has(m.id));
        if (media.length !== chosen.size) throw new AppError('not_found', 'No such media');
        return sendPage(reply, bulkDeletePage({ viewer, listing, media }));
      }
      if (asked.action === 'delete') {
        await services.media.removeMany(account.id, id, ids, request.log);
        return reply.redirect(paths.galleryPath(id, 'media-deleted', 'media'), 303);
      }
      const hide = asked.action === 'hide';
      await services.media.setHidden(account.id, id, ids, hide);
      return reply.redirect(paths.galleryPath(id, hide ? 'media-hidden' : 'media-shown', 'media'), 303);
    },
  );

  // docs/api.md §30: "Apply suggested order", one click. The suggestion goes through the media
  // service's reorder (§13's PUT .../media/order, one write): the suggested photos first, then the
  // rest in their order. A gallery changed between the two reads (an upload) is told to try again.
  scope.post('/galleries/:id/media/suggested-order', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const { id } = request.params as Params;
    try {
      await services.suggestedOrder.apply(account.id, account.id, id);
    } catch (err) {
      if (err instanceof AppError && err.code === 'validation_error') {
        return reply.redirect(paths.galleryPath(id, 'order-suggest-stale', 'media'), 303);
      }
      throw err;
    }
    return reply.redirect(paths.galleryPath(id, 'order-suggested', 'media'), 303);
  });

  // A photo's thumbnail or a video's poster, for the gallery page (the same bytes as /v1's variants).
  scope.get('/galleries/:id/media/:media_id/thumb', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const { id, media_id: mediaId = '' } = request.params as Params;
    const media = await services.media.get(account.id, id, mediaId);
    const name = media.kind === 'video' ? 'poster' : 'thumb';
    const variant = await services.media.variant(account.id, id, mediaId, name);
    const sent = await sendStoredBytes(request, reply, {
      etag: `"${mediaId}-${name}-${Date.parse(variant.created_at).toString(36)}-${variant.size.toString(36)}"`,
      size: variant.size,
      contentType: variant.content_type,
      filename: `${mediaId}-${name}.${variant.content_type === 'image/webp' ? 'webp' : 'jpg'}`,
      disposition: 'inline',
      open: (range) => services.media.openVariant(variant, range),
    });
    return sent.reply;
  });

  void scope.register(async (child: App) => {
    await child.register(multipart, {
      limits: {
        fileSize: limits.maxFileBytes + 1,
        files: limits.maxFiles,
        fields: 10,
        fieldSize: 1024,
        parts: limits.maxFiles + 10,
        headerPairs: 200,
      },
    });

    child.post(
      '/galleries/:id/media',
      {
        ...STREAMED_BODY,
        config: { ...STREAMED_BODY.config, ...MEMBER },
        schema: PAGE_ROUTE,
        // A refusal leaves the rest of the upload unread: close rather than have Node drain gigabytes.
        onError: (_request: FastifyRequest, reply: FastifyReply, _error: unknown, done: () => void) => {
          void reply.header('connection', 'close');
          done();
        },
      },
      async (request, reply) => {
        const { account, session } = viewerOf(request);
        const { id } = request.params as Params;
        if (!request.isMultipart()) throw new AppError('unsupported_media_type', 'Send the upload form');
        continueBody(request, reply);
        const parts = request.parts()[Symbol.asyncIterator]();
        await checkToken(request, session.csrfToken, parts);
        async function* files(): AsyncGenerator<IncomingFile> {
          try {
            for (;;) {
              const next = await parts.next();
              if (next.done === true) return;
              const part = next.value;
              if (part.type !== 'file') continue;
              // A form sent with no file chosen has one empty part without a name.
              if (part.filename === '') {
                part.file.resume();
                continue;
              }
              yield { filename: part.filename, stream: part.file };
            }
          } catch (err) {
            throw asClientFault(err);
          }
        }
        let uploaded;
        try {
          uploaded = await services.media.upload(account.id, id, files(), request.log);
        } catch (err) {
          const notice = err instanceof AppError ? UPLOAD_REFUSALS[err.code] : undefined;
          if (err instanceof AppError && notice !== undefined) {
            void reply.header('connection', 'close');
            if (wantsJson(request)) {
              return reply.code(ERROR_STATUS[err.code]).send({ error: { code: err.code, notice } });
            }
            return reply.redirect(`/dashboard/galleries/${id}?notice=${notice}#media`, 303);
          }
          throw err;
        }
        if (wantsJson(request)) return reply.code(201).send({ uploaded: uploaded.map((m) => m.id) });
        return reply.redirect(`/dashboard/galleries/${id}?notice=uploaded#media`, 303);
      },
    );
  });

  // Resumable uploads (tus, docs/api.md §16) for the page's script: the /v1 routes, tus server and
  // store, mounted here for the signed-in account. Every request that writes carries the session's
  // form token in X-CSRF-Token (a header no other site can make a browser send).
  void scope.register(async (child: App) => {
    child.addHook('preHandler', (request, _reply, done) => {
      if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') {
        done();
        return;
      }
      const { session } = request.dashboard;
      const token = request.headers['x-csrf-token'];
      if (
        session === null ||
        !fromThisSite(request, ctx.config.publicUrl) ||
        typeof token !== 'string' ||
        !sameToken(session.csrfToken, token)
      ) {
        done(new AppError('forbidden', 'Missing or wrong form token'));
        return;
      }
      done();
    });
    await registerUploadRoutes(child, services, limits, {
      accountOf: (request) => viewerOf(request).account.id,
      path: '/galleries',
      location: (listingId, uploadId) => `/dashboard/galleries/${listingId}/uploads/${uploadId}`,
      page: { config: { ...MEMBER } },
    });
  });
}
