import multipart from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TSchema } from '@sinclair/typebox';
import { continueBody } from '../../http/connections.ts';
import { STREAMED_BODY } from '../../http/validation.ts';
import type { App } from '../../http/types.ts';
import { Answer, ErrorAnswer, errorResponses, NoContent, READ_ERRORS, WRITE_ERRORS } from '../../http/schemas.ts';
import { sendStoredBytes } from '../../http/send-bytes.ts';
import type { VariantRow } from './media.repository.ts';
import {
  ListingMediaParams,
  MediaContentHeaders,
  Media,
  MediaList,
  MediaOrderBody,
  MediaParams,
  MediaUpdateBody,
  VariantParams,
  uploadSchemas,
  type UploadLimits,
} from './media.schemas.ts';
import { ACCEPTED_TYPES, FILENAME_MAX } from './media.ingest.ts';
import { AppError, validationError } from '../../errors.ts';
import { MAX_WEBHOOK_URL_LENGTH } from '../../outbound/address.ts';
import { LARGE_BOX, THUMB_BOX, type Box } from '../variants/variants.images.ts';
import { asClientFault, type IncomingFile, type MediaService } from './media.service.ts';

const tags = ['Media'];

async function* fileParts(request: FastifyRequest, reply: FastifyReply): AsyncGenerator<IncomingFile> {
  // Every hook has passed (key, scope, limits, Idempotency-Key): now the client may send the bytes.
  continueBody(request, reply);
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') yield { filename: part.filename, stream: part.file };
    }
  } catch (err) {
    throw asClientFault(err);
  }
}

/** A response whose body is the stored bytes, in any of the accepted types. */
const binaryResponse = (description: string, Binary: TSchema) => ({
  description,
  content: Object.fromEntries(ACCEPTED_TYPES.map((type) => [type, { schema: Binary }])),
});

/** A variant's bytes change only when it is made again (a new row, a new time). */
const variantEtag = (v: VariantRow): string =>
  `"${v.media_id}-${v.name}-${Date.parse(v.created_at).toString(36)}-${v.size.toString(36)}"`;

/** Images (a photo's variants, a video's poster) bounded by their boxes; a web rendition by the file limit. */
const variantResponse = (description: string, image: TSchema, video: TSchema) => ({
  description,
  content: {
    'image/webp': { schema: image },
    'image/jpeg': { schema: image },
    'video/mp4': { schema: video },
  },
});

/**
 * The largest a variant can be, for the document (an unbounded string is what Spectral's
 * owasp:api4:2023-string-limit refuses): 4 bytes a pixel of the largest box, and 64 KiB for the
 * headers and an sRGB profile. Measured with the variants' own settings, pure noise (the worst
 * case for a coder) takes 0.7 bytes a pixel; even a quality-100 4:4:4 JPEG takes 2.9.
 */
function variantMaxBytes(mlsBox: Box): number {
  const pixels = Math.max(...[THUMB_BOX, LARGE_BOX, mlsBox].map((box) => box.width * box.height));
  return pixels * 4 + 64 * 1024;
}

const variantExtension = (contentType: string): string =>
  contentType === 'image/webp' ? 'webp' : contentType === 'video/mp4' ? 'mp4' : 'jpg';

/**
 * Multipart parsing exists only in this scope, where uploads are taken; every other /v1 route
 * stays JSON-only. The parser's limits follow the configured media limits.
 */
export async function registerMediaRoutes(
  v1: App,
  { media }: { media: MediaService },
  limits: UploadLimits,
): Promise<void> {
  const schemas = uploadSchemas(limits);
  // Only the upload takes multipart: every other media route stays JSON-only (a form sent to them is 415).
  await v1.register(async (app) => {
    await app.register(multipart, {
      limits: {
        // One byte over the file limit lets IngestStream refuse with its own message first.
        fileSize: limits.maxFileBytes + 1,
        files: limits.maxFiles,
        fields: 100,
        fieldSize: 64 * 1024,
        parts: limits.maxFiles + 100,
        headerPairs: 200,
      },
    });
    registerUploadRoute(app, media, schemas);
  });
  registerMediaRouteTable(v1, media, schemas, limits.variants.mlsBox);
}

function registerUploadRoute(
  app: App,
  media: MediaService,
  { MediaUploadBody, MediaFromUrlBody, MediaUploaded }: ReturnType<typeof uploadSchemas>,
): void {
  app.post(
    '/listings/:id/media',
    {
      ...STREAMED_BODY,
      schema: {
        operationId: 'uploadMedia',
        summary: 'Upload photos, videos or documents to a gallery',
        description:
          'multipart/form-data with one or more file parts. The kind is decided from the bytes; anything that ' +
          'is not a photo (JPEG, PNG, WebP, GIF, TIFF, HEIC/HEIF, AVIF), video (MP4, MOV, WebM) or PDF is 415. ' +
          'All or nothing: if any file is refused, none is kept. Limits (413): bytes per file and files per request. ' +
          'Or application/json `{"url": "...", "filename"?: "..."}`: the service fetches the file (the webhook ' +
          'address rules apply to the URL and to each of at most 5 redirects; a refused one is 400 naming `url`) and ' +
          'answers as an upload of that one file; a fetch that fails (no answer, a non-2xx status, a cut, 30 s ' +
          'without a byte) is 422 `fetch_failed`, and nothing is kept.',
        tags,
        params: ListingMediaParams,
        body: {
          content: {
            'multipart/form-data': { schema: MediaUploadBody },
            'application/json': { schema: MediaFromUrlBody },
          },
        },
        response: {
          201: Answer(MediaUploaded, 'Created: every uploaded file, in upload order.'),
          ...errorResponses(400, 401, 403, 404, 413, 415, 422),
        },
      },
      // Any refusal, in a hook (key, scope, rate limit, Idempotency-Key) or in the handler, leaves
      // the rest of the upload unread: close the connection rather than have Node drain gigabytes.
      onError: (_request, reply, _error, done) => {
        void reply.header('connection', 'close');
        done();
      },
    },
    async (request, reply) => {
      if (!request.isMultipart()) {
        // application/json: media from a URL (docs/api.md §21), answered as an upload of that file.
        const input = urlBody(request.body);
        const data = await media.uploadFromUrl(request.auth.accountId, request.params.id, input, request.log);
        return reply.code(201).send({ data });
      }
      const data = await media.upload(
        request.auth.accountId,
        request.params.id,
        fileParts(request, reply),
        request.log,
      );
      return reply.code(201).send({ data });
    },
  );
}

const URL_BODY_KEYS = new Set(['url', 'filename']);

/** `{"url", "filename"?}` (MediaFromUrlBody), checked here: the route's schemas document, the handler streams. */
function urlBody(body: unknown): { url: string; filename?: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw validationError('url', 'is required: send {"url": "..."} as JSON, or files as multipart/form-data');
  }
  const record = body as Record<string, unknown>;
  const unknown = Object.keys(record).filter((k) => !URL_BODY_KEYS.has(k));
  if (unknown.length > 0) {
    throw new AppError(
      'validation_error',
      `Unknown field${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`,
      unknown.map((field) => ({ field, message: 'is not a known field' })),
    );
  }
  const { url, filename } = record;
  if (typeof url !== 'string' || url.length < 1 || url.length > MAX_WEBHOOK_URL_LENGTH) {
    throw validationError('url', `must be an http or https URL of at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  }
  if (filename !== undefined && (typeof filename !== 'string' || filename.length > FILENAME_MAX)) {
    throw validationError('filename', `must be a string of at most ${FILENAME_MAX} characters`);
  }
  return filename === undefined ? { url } : { url, filename };
}

function registerMediaRouteTable(
  app: App,
  media: MediaService,
  { Binary }: ReturnType<typeof uploadSchemas>,
  mlsBox: Box,
): void {
  // A photo's variants and a video's poster are bounded by their boxes; a video's web rendition
  // by its length, so no tighter than an upload (docs/api.md §25).
  const VariantImage = Type.String({
    format: 'binary',
    maxLength: variantMaxBytes(mlsBox),
    description: "The image's bytes (its box bounds their size).",
  });
  const VariantVideo = Type.String({
    format: 'binary',
    maxLength: Binary.maxLength ?? 0,
    description: "The web rendition's bytes (at most the per-file limit).",
  });
  app.get(
    '/listings/:id/media',
    {
      schema: {
        operationId: 'listMedia',
        summary: "All of a gallery's media, by position",
        tags,
        params: ListingMediaParams,
        response: {
          200: Answer(MediaList, "All the gallery's media, by position."),
          ...errorResponses(...READ_ERRORS),
        },
      },
    },
    (request) => media.list(request.auth.accountId, request.params.id),
  );

  app.get(
    '/listings/:id/media/:media_id',
    {
      schema: {
        operationId: 'getMedia',
        summary: 'Get one media item',
        tags,
        params: MediaParams,
        response: { 200: Answer(Media, 'The media item.'), ...errorResponses(...READ_ERRORS) },
      },
    },
    (request) => media.get(request.auth.accountId, request.params.id, request.params.media_id),
  );

  app.get(
    '/listings/:id/media/:media_id/content',
    {
      schema: {
        operationId: 'getMediaContent',
        summary: 'Download the bytes',
        description:
          'Served as an attachment with the sniffed content type, `X-Content-Type-Options: nosniff` and a ' +
          'sandboxing Content-Security-Policy. Supports one `Range` (206, or 416 when unsatisfiable), `ETag` and ' +
          '`If-None-Match` (304).',
        tags,
        params: MediaParams,
        headers: MediaContentHeaders,
        // Per response, so that the errors stay documented as JSON.
        response: {
          200: binaryResponse('The stored bytes, with the sniffed content type.', Binary),
          206: binaryResponse('The requested byte range (`Content-Range`).', Binary),
          304: Type.Null({ description: 'Not modified: the ETag matches.' }),
          416: ErrorAnswer('Range not satisfiable (`range_not_satisfiable`): the range is outside the file.'),
          ...errorResponses(...READ_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const row = await media.record(request.auth.accountId, request.params.id, request.params.media_id);
      const sent = await sendStoredBytes(request, reply, {
        etag: `"${row.sha256}"`,
        size: row.size,
        contentType: row.content_type,
        filename: row.filename,
        open: (range) => media.open(row, range),
      });
      return sent.reply;
    },
  );

  app.patch(
    '/listings/:id/media/:media_id',
    {
      schema: {
        operationId: 'updateMedia',
        summary: 'Change a caption, hide or show, move, or mark as virtually staged',
        description:
          'Body: at least one of `caption`, `hidden`, `position`, `virtually_staged`, `original_media_id` (docs/api.md §31). A move shifts the media between; positions ' +
          'stay 1..n without gaps (a position past n is 400).',
        tags,
        params: MediaParams,
        body: MediaUpdateBody,
        response: { 200: Answer(Media, 'The media item, changed.'), ...errorResponses(...WRITE_ERRORS) },
      },
    },
    (request) => media.update(request.auth.accountId, request.params.id, request.params.media_id, request.body),
  );

  app.put(
    '/listings/:id/media/order',
    {
      schema: {
        operationId: 'reorderMedia',
        summary: "Put all of a gallery's media in a new order",
        description:
          '`media_ids` must name every media of the gallery exactly once; otherwise 400 `validation_error` ' +
          'names what is missing, repeated or not of this gallery. Answers the media list in the new order.',
        tags,
        params: ListingMediaParams,
        body: MediaOrderBody,
        response: {
          200: Answer(MediaList, "All the gallery's media, in the new order."),
          ...errorResponses(...WRITE_ERRORS),
        },
      },
    },
    (request) => media.reorder(request.auth.accountId, request.params.id, request.body.media_ids),
  );

  app.get(
    '/listings/:id/media/:media_id/variants/:name',
    {
      schema: {
        operationId: 'getMediaVariant',
        summary: "Download one of a photo's variants (thumb, large, mls) or a video's (poster, web)",
        description:
          'Served like the content (attachment, `nosniff`, sandbox, `ETag`/304, one `Range`). 404 unless the ' +
          'variant is ready (pending or failed, or a video whose original plays as it is has no web); ' +
          'another name than thumb, large, mls, poster or web is 400.',
        tags,
        params: VariantParams,
        headers: MediaContentHeaders,
        response: {
          200: variantResponse(
            'The variant: WebP (thumb), JPEG (large, mls, poster) or MP4 (web).',
            VariantImage,
            VariantVideo,
          ),
          206: variantResponse(
            'The requested byte range of the variant (`Content-Range`).',
            VariantImage,
            VariantVideo,
          ),
          304: Type.Null({ description: 'Not modified: the ETag matches.' }),
          416: ErrorAnswer('Range not satisfiable (`range_not_satisfiable`): the range is outside the file.'),
          ...errorResponses(...READ_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const { id, media_id: mediaId, name } = request.params;
      const variant = await media.variant(request.auth.accountId, id, mediaId, name);
      const sent = await sendStoredBytes(request, reply, {
        etag: variantEtag(variant),
        size: variant.size,
        contentType: variant.content_type,
        filename: `${mediaId}-${name}.${variantExtension(variant.content_type)}`,
        open: (range) => media.openVariant(variant, range),
      });
      return sent.reply;
    },
  );

  app.delete(
    '/listings/:id/media/:media_id',
    {
      schema: {
        operationId: 'deleteMedia',
        summary: 'Remove a media item and its bytes',
        tags,
        params: MediaParams,
        response: {
          204: NoContent('No content: the media item is deleted, and its bytes with it.'),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      await media.remove(request.auth.accountId, request.params.id, request.params.media_id, request.log);
      return reply.code(204).send(null);
    },
  );
}
