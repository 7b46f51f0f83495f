import { create as contentDisposition } from 'content-disposition';
import multipart from '@fastify/multipart';
import rangeParser from 'range-parser';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TSchema } from '@sinclair/typebox';
import { AppError } from '../../errors.ts';
import { continueBody } from '../../http/connections.ts';
import type { App } from '../../http/types.ts';
import { errorResponses, NoContent, READ_ERRORS } from '../../http/schemas.ts';
import type { ByteRange } from '../../storage/storage.ts';
import {
  ListingMediaParams,
  MediaContentHeaders,
  Media,
  MediaList,
  MediaParams,
  uploadSchemas,
  type UploadLimits,
} from './media.schemas.ts';
import { ACCEPTED_TYPES } from './media.ingest.ts';
import { asClientFault, type IncomingFile, type MediaService } from './media.service.ts';

const tags = ['Media'];

/** Nothing uploaded may ever run in a browser: it is always a download, never sniffed, sandboxed. */
const CONTENT_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; sandbox",
  'cache-control': 'private, no-cache',
  'accept-ranges': 'bytes',
};

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

/** RFC 9110 If-None-Match: a list of (weak or strong) tags, or `*`. */
function matchesAny(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

/**
 * Multipart parsing exists only in this scope, where uploads are taken; every other /v1 route
 * stays JSON-only. The parser's limits follow the configured media limits.
 */
export async function registerMediaRoutes(
  v1: App,
  { media }: { media: MediaService },
  limits: UploadLimits,
): Promise<void> {
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
    registerMediaRouteTable(app, media, uploadSchemas(limits));
  });
}

function registerMediaRouteTable(
  app: App,
  media: MediaService,
  { MediaUploadBody, MediaUploaded, Binary }: ReturnType<typeof uploadSchemas>,
): void {
  app.post(
    '/listings/:id/media',
    {
      schema: {
        operationId: 'uploadMedia',
        summary: 'Upload photos, videos or documents to a gallery',
        description:
          'multipart/form-data with one or more file parts. The kind is decided from the bytes; anything that ' +
          'is not a photo (JPEG, PNG, WebP, GIF, TIFF, HEIC/HEIF, AVIF), video (MP4, MOV, WebM) or PDF is 415. ' +
          'All or nothing: if any file is refused, none is kept. Limits (413): bytes per file and files per request.',
        tags,
        consumes: ['multipart/form-data'],
        params: ListingMediaParams,
        body: MediaUploadBody,
        response: { 201: MediaUploaded, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
      // Any refusal, in a hook (key, scope, rate limit, Idempotency-Key) or in the handler, leaves
      // the rest of the upload unread: close the connection rather than have Node drain gigabytes.
      onError: (_request, reply, _error, done) => {
        void reply.header('connection', 'close');
        done();
      },
    },
    async (request, reply) => {
      const data = await media.upload(
        request.auth.accountId,
        request.params.id,
        fileParts(request, reply),
        request.log,
      );
      return reply.code(201).send({ data });
    },
  );

  app.get(
    '/listings/:id/media',
    {
      schema: {
        operationId: 'listMedia',
        summary: "All of a gallery's media, by position",
        tags,
        params: ListingMediaParams,
        response: { 200: MediaList, ...errorResponses(...READ_ERRORS) },
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
        response: { 200: Media, ...errorResponses(...READ_ERRORS) },
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
          416: Type.Ref('Error', { description: 'Range not satisfiable (`range_not_satisfiable`).' }),
          ...errorResponses(...READ_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const row = await media.record(request.auth.accountId, request.params.id, request.params.media_id);
      const etag = `"${row.sha256}"`;
      void reply
        .headers(CONTENT_HEADERS)
        .header('etag', etag)
        .header('content-disposition', contentDisposition(row.filename, { type: 'attachment' }));
      if (matchesAny(request.headers['if-none-match'], etag)) return reply.code(304).send(null);

      let range: ByteRange | undefined;
      const ifRange = request.headers['if-range'];
      const wanted = request.headers.range;
      if (wanted !== undefined && (ifRange === undefined || ifRange === etag)) {
        const parsed = rangeParser(row.size, wanted, { combine: true });
        if (parsed === -1) {
          throw new AppError(
            'range_not_satisfiable',
            `The range is outside the ${row.size} bytes of this file`,
            undefined,
            {
              'content-range': `bytes */${row.size}`,
            },
          );
        }
        // A malformed header, another unit or several ranges: serve the whole file (RFC 9110 allows it).
        if (parsed !== -2 && parsed.type === 'bytes' && parsed.length === 1 && parsed[0] !== undefined) {
          range = { start: parsed[0].start, end: parsed[0].end };
        }
      }
      const body = await media.open(row, range);
      void reply.type(row.content_type);
      if (range === undefined) return reply.header('content-length', row.size).send(body);
      return reply
        .code(206)
        .header('content-range', `bytes ${range.start}-${range.end}/${row.size}`)
        .header('content-length', range.end - range.start + 1)
        .send(body);
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
        response: { 204: NoContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await media.remove(request.auth.accountId, request.params.id, request.params.media_id, request.log);
      return reply.code(204).send(null);
    },
  );
}
