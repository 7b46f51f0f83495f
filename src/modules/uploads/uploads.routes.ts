// (Over 400 lines: the five tus routes share their checks, the tus server and its hooks; split, each would reach back into the others.)
// Resumable uploads (docs/api.md §16): tus 1.0 at /v1/listings/:id/uploads. Each request passes every
// /v1 hook first (key, scope, rate limit, requests in progress), then the checks below (the
// gallery, the upload in this account, Tus-Resumable, content type, lengths), and only then is
// its body handed, unread until now, to @tus/server. Its answer comes back through Fastify, so
// errors take the contract's JSON shape and every response carries the usual headers.
import type { IncomingMessage } from 'node:http';
import { finished } from 'node:stream';
import { Server } from '@tus/server';
import { ERRORS } from '@tus/utils';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { AppError, notFound } from '../../errors.ts';
import { continueBody } from '../../http/connections.ts';
import { STREAMED_BODY } from '../../http/validation.ts';
import { ErrorAnswer, errorResponses, IdParam } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { TUS_EXTENSIONS } from './uploads.store.ts';
import { uploadKey, type UploadRow, type UploadsService } from './uploads.service.ts';

const TUS_VERSION = '1.0.0';
const OCTETS = 'application/offset+octet-stream';
/** Bytes of a body read ahead of the tus server before the request is paused. */
const WEB_BODY_BUFFER = 1024 * 1024;
const tags = ['Uploads'];

/** What one request is about, for the tus server's callbacks. */
interface Context {
  accountId: string;
  listingId: string;
  uploadId: string;
  tusId: string;
  /** An error of ours raised inside a tus callback: answered as it is. */
  error?: unknown;
  /** What made the tus server answer 500, for the log. */
  fault?: unknown;
}

const contexts = new WeakMap<Request, Context>();
const contextOf = (req: Request): Context => {
  const context = contexts.get(req);
  if (context === undefined) throw new Error('tus request without its context');
  return context;
};

/** Runs a callback's work; our own errors are kept for the answer, tus sees only a failure. */
async function guarded<T>(context: Context, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    context.error = err;
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- the tus server's errors are {status_code, body}
    throw { status_code: 500, body: 'refused' };
  }
}

const tusError = (code: ConstructorParameters<typeof AppError>[0], message: string, details?: AppError['details']) =>
  new AppError(code, message, details, { 'tus-resumable': TUS_VERSION });

/** A tus server's refusal, as the contract's error. */
function fromTus(status: number, body: string): AppError {
  switch (status) {
    case 404:
    case 410:
      return tusError('not_found', 'Upload not found (terminated, expired or refused)');
    case 409:
      return tusError('conflict', "Upload-Offset does not match the upload's offset; HEAD gives the offset");
    case 412:
      return tusError('precondition_failed', 'Tus-Resumable: 1.0.0 is required');
    case 413:
      return tusError('payload_too_large', 'The body would pass Upload-Length, or Upload-Length is over the limit');
    case 415:
      return tusError('unsupported_media_type', `Content-Type must be ${OCTETS}`);
    case 400:
      if (body === ERRORS.ABORTED.body) return tusError('conflict', 'Another request took this upload over');
      return tusError('validation_error', body.trim() || 'Invalid tus request');
    case 403:
    case 460:
    case 501:
      return tusError('validation_error', body.trim() || 'Unsupported tus request');
    default:
      return tusError('internal_error', 'Internal server error');
  }
}

/** The Node request as a Fetch request for @tus/server, the body still unread. */
function toWebRequest(raw: IncomingMessage, withBody: boolean): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw.headers)) {
    if (value === undefined || name === 'host' || name === 'connection' || name === 'transfer-encoding') continue;
    if (Array.isArray(value)) for (const one of value) headers.append(name, one);
    else headers.set(name, value);
  }
  const init: RequestInit & { duplex?: 'half' } = { method: raw.method ?? 'GET', headers };
  if (withBody) {
    init.body = webBody(raw);
    init.duplex = 'half';
  }
  return new Request(`http://localhost${raw.url ?? '/'}`, init);
}

/**
 * The request body as a web stream, chunks passed as they are. `Readable.toWeb` copies every chunk
 * (to detach it from Node's buffer pool): a gigabyte copied per gigabyte uploaded, whose garbage
 * cost the server more CPU than the upload itself. A body chunk is never reused by Node, and
 * nothing downstream writes to it, so it can be passed on as it is. Backpressure as toWeb's: the
 * request is paused while 1 MiB waits unread.
 */
function webBody(raw: IncomingMessage): ReadableStream<Uint8Array> {
  let settled = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        raw.on('data', (chunk: Buffer) => {
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 0) <= 0) raw.pause();
        });
        finished(raw, (err) => {
          if (settled) return;
          settled = true;
          if (err === undefined || err === null) controller.close();
          else controller.error(err);
        });
      },
      pull() {
        raw.resume();
      },
      cancel(reason) {
        settled = true;
        raw.destroy(reason instanceof Error ? reason : undefined);
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: WEB_BODY_BUFFER }),
  );
}

/** Response headers of the tus server the caller needs (its CORS ones are not this API's). */
const PASSED_ON = new Set([
  'tus-resumable',
  'upload-offset',
  'upload-length',
  'upload-expires',
  'upload-metadata',
  'location',
  'cache-control',
  'lightbox-media-id',
]);

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
};

const mediaType = (request: FastifyRequest): string | undefined =>
  header(request, 'content-type')?.split(';')[0]?.trim().toLowerCase();

const sendsBody = (request: FastifyRequest): boolean => {
  const length = header(request, 'content-length');
  return length === undefined ? request.headers['transfer-encoding'] !== undefined : length !== '0';
};

/** A non-negative integer header, or undefined when absent; 400 when malformed. */
function integerHeader(request: FastifyRequest, name: string): number | undefined {
  const raw = header(request, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n)) {
    throw tusError('validation_error', `${name} must be a non-negative integer`, [
      { field: name, message: 'must be a non-negative integer' },
    ]);
  }
  return n;
}

function requireTusResumable(request: FastifyRequest): void {
  if (header(request, 'tus-resumable') !== TUS_VERSION) {
    throw new AppError('precondition_failed', 'This server speaks tus 1.0.0: send Tus-Resumable: 1.0.0', undefined, {
      'tus-resumable': TUS_VERSION,
      'tus-version': TUS_VERSION,
    });
  }
}

const Params = Type.Object({ id: IdParam('The gallery id (`lst_...`).') });
const UploadParams = Type.Object({
  id: IdParam('The gallery id (`lst_...`).'),
  upload_id: IdParam('The upload id (`upl_...`).'),
});
/** The body of a PATCH (or a creation-with-upload POST): raw bytes, read by the tus server. */
const Chunk = (maxFileBytes: number) =>
  Type.String({
    format: 'binary',
    maxLength: maxFileBytes,
    description: `Bytes of the file from Upload-Offset on (${OCTETS}).`,
  });
const Empty = (description: string) => Type.Null({ description });

/**
 * Where the tus routes are mounted: /v1 (an API key's account) by default; the dashboard mounts
 * the same routes, tus server and store under its galleries for the signed-in account.
 */
export interface UploadMount {
  /** The account a request acts for. */
  accountOf(request: FastifyRequest): string;
  /** The routes' path before `/:id/uploads`. */
  path: string;
  /** An upload's URL (the creation's Location). */
  location(listingId: string, uploadId: string): string;
  /** Left out of the OpenAPI document, with this route config (the dashboard's). */
  page?: { config: Record<string, unknown> };
}

const V1_MOUNT: UploadMount = {
  accountOf: (request) => request.auth.accountId,
  path: '/listings',
  location: (listingId, uploadId) => `/v1/listings/${listingId}/uploads/${uploadId}`,
};

export async function registerUploadRoutes(
  v1: App,
  { uploads }: { uploads: UploadsService },
  limits: { maxFileBytes: number },
  mount: UploadMount = V1_MOUNT,
): Promise<void> {
  /** A route's schema, hidden from the document when mounted as a page. */
  const doc = <S extends object>(schema: S): S => (mount.page === undefined ? schema : { ...schema, hide: true });
  const config = <C extends object>(own: C): C => (mount.page === undefined ? own : { ...own, ...mount.page.config });
  const server = new Server({
    path: '/v1/uploads',
    datastore: uploads.store,
    locker: uploads.locker,
    maxSize: limits.maxFileBytes,
    relativeLocation: true,
    namingFunction: (req) => contextOf(req).tusId,
    getFileIdFromRequest: (req) => contextOf(req).tusId,
    generateUrl: (req) => {
      const { listingId, uploadId } = contextOf(req);
      return mount.location(listingId, uploadId);
    },
    onUploadCreate: async (req, upload) => {
      const context = contextOf(req);
      const filename = upload.metadata?.filename ?? undefined;
      await guarded(context, () =>
        uploads.begin(context.accountId, context.listingId, context.uploadId, upload.size ?? 0, filename),
      );
      return {};
    },
    // The tus server answers its faults as 500 text: the cause is kept for the log line.
    onResponseError: (req, err) => {
      const context = contexts.get(req);
      if (context !== undefined && !(err instanceof AppError)) context.fault ??= err;
      return undefined;
    },
    onUploadFinish: async (req) => {
      const context = contextOf(req);
      const mediaId = await guarded(context, () =>
        uploads.complete(context.accountId, context.listingId, context.uploadId),
      );
      return { headers: { 'Lightbox-Media-Id': mediaId } };
    },
  });

  /** Hands the request to the tus server and answers with its response, through Fastify. */
  async function viaTus(request: FastifyRequest, reply: FastifyReply, context: Context): Promise<FastifyReply> {
    const web = toWebRequest(request.raw, sendsBody(request));
    contexts.set(web, context);
    const response = await server.handleWeb(web);
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- our own AppError, kept by guarded()
    if (context.error !== undefined) throw context.error;
    const body = await response.text();
    if (response.status >= 500) request.log.error({ err: context.fault, tus: body }, 'the tus server failed');
    if (response.status >= 400) throw fromTus(response.status, body);
    for (const [name, value] of response.headers) {
      if (PASSED_ON.has(name)) void reply.header(name, value);
    }
    if (response.headers.get('connection') === 'close') void reply.header('connection', 'close');
    return empty(reply, response.status);
  }

  /** The upload (404 before any protocol rule, as every /v1 route answers a missing id), then Tus-Resumable. */
  async function existing(request: FastifyRequest, params: { id: string; upload_id: string }): Promise<UploadRow> {
    const row = await uploads.find(mount.accountOf(request), params.id, params.upload_id);
    if (row === undefined) throw notFound('Upload');
    requireTusResumable(request);
    return row;
  }

  const contextFor = (row: UploadRow): Context => ({
    accountId: row.account_id,
    listingId: row.listing_id,
    uploadId: row.id,
    tusId: uploads.tusId(row),
  });

  // eslint-disable-next-line @typescript-eslint/require-await -- a plugin scope is an async function
  await v1.register(async (app: App) => {
    // Every body here is the tus server's to read: none is parsed, whatever its type.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, _payload, done) => {
      done(null, undefined);
    });
    // A refusal before the tus server read the body leaves it unread: close rather than drain it.
    const closeOnError = (_request: FastifyRequest, reply: FastifyReply, _error: unknown, done: () => void) => {
      void reply.header('connection', 'close');
      done();
    };

    app.options(
      `${mount.path}/:id/uploads`,
      {
        config: config({ auth: false }),
        schema: doc({
          operationId: 'describeUploads',
          summary: 'What the tus server supports (no key needed)',
          security: [],
          description:
            `204 with \`Tus-Version: ${TUS_VERSION}\`, \`Tus-Extension: ${TUS_EXTENSIONS.join(',')}\` and ` +
            '`Tus-Max-Size` (the per-file limit).',
          tags,
          params: Params,
          response: { 204: Empty('The tus capabilities, in the headers.'), ...errorResponses() },
        }),
      },
      async (_request, reply) =>
        empty(
          reply
            .header('tus-resumable', TUS_VERSION)
            .header('tus-version', TUS_VERSION)
            .header('tus-extension', TUS_EXTENSIONS.join(','))
            .header('tus-max-size', String(limits.maxFileBytes)),
          204,
        ),
    );

    app.post(
      `${mount.path}/:id/uploads`,
      {
        ...STREAMED_BODY,
        config: config({ ...STREAMED_BODY.config }),
        onError: closeOnError,
        schema: doc({
          operationId: 'createUpload',
          summary: 'Start a resumable upload (tus creation, creation-with-upload)',
          description:
            'tus 1.0 creation: `Tus-Resumable: 1.0.0`, `Upload-Length` (required, at most the per-file limit, ' +
            'else 413 before any byte), optional `Upload-Metadata` with `filename` (base64, as tus encodes it; ' +
            "without it the name is `upload` and the sniffed type's extension). A body " +
            `(\`Content-Type: ${OCTETS}\`) is the first bytes (creation-with-upload). 201 with \`Location\` ` +
            '(`/v1/listings/{id}/uploads/{upload_id}`) and `Upload-Expires`; when the body completes the file it ' +
            'becomes a media item at once, named by `Lightbox-Media-Id`.',
          tags,
          consumes: [OCTETS],
          params: Params,
          body: Chunk(limits.maxFileBytes),
          response: {
            201: Empty('Created: `Location`, `Upload-Expires`, `Upload-Offset` (with a body).'),
            412: ErrorAnswer('Without `Tus-Resumable: 1.0.0` (`precondition_failed`).'),
            ...errorResponses(400, 401, 403, 404, 413, 415),
          },
        }),
      },
      async (request, reply) => {
        const accountId = mount.accountOf(request);
        await uploads.requireListing(accountId, request.params.id);
        requireTusResumable(request);
        const type = mediaType(request);
        if (sendsBody(request) && type !== OCTETS) throw fromTus(415, '');
        if (header(request, 'upload-defer-length') !== undefined) {
          throw tusError('validation_error', 'Upload-Length is required (deferred lengths are not supported)', [
            { field: 'Upload-Length', message: 'is required' },
          ]);
        }
        const length = integerHeader(request, 'upload-length');
        if (length === undefined) {
          throw tusError('validation_error', 'Upload-Length is required', [
            { field: 'Upload-Length', message: 'is required' },
          ]);
        }
        if (length > limits.maxFileBytes) {
          throw tusError('payload_too_large', `Upload-Length is over the limit of ${limits.maxFileBytes} bytes`);
        }
        const bodyLength = integerHeader(request, 'content-length');
        if (bodyLength !== undefined && bodyLength > length) throw fromTus(413, '');
        const uploadId = uploads.newUploadId();
        const storageKey = uploadKey(accountId, request.params.id, uploadId);
        continueBody(request, reply);
        return viaTus(request, reply, {
          accountId,
          listingId: request.params.id,
          uploadId,
          tusId: uploads.tusId({ storage_key: storageKey }),
        });
      },
    );

    app.head(
      `${mount.path}/:id/uploads/:upload_id`,
      {
        // A HEAD of its own, not the twin of a GET: documented (its operationId gains `-head`).
        config: config({ swagger: { exposeHeadRoute: true } }),
        schema: doc({
          operationId: 'getUpload',
          summary: "An upload's offset (tus HEAD)",
          description:
            '200 with `Upload-Offset` and `Upload-Length`; a completed upload also carries `Lightbox-Media-Id`. ' +
            'A terminated, expired or refused upload is 404.',
          tags,
          params: UploadParams,
          response: {
            200: Empty('The offset, in `Upload-Offset`.'),
            412: ErrorAnswer('Without `Tus-Resumable: 1.0.0` (`precondition_failed`).'),
            ...errorResponses(400, 401, 404),
          },
        }),
      },
      async (request, reply) => {
        const row = await existing(request, request.params);
        if (row.media_id !== null) return completed(reply, row, row.media_id, 200);
        await viaTus(request, reply, contextFor(row));
        // All bytes are here but the media row is not (the completing request failed, or its process
        // died): complete it now.
        if (reply.getHeader('upload-offset') === String(row.length)) {
          const mediaId = await uploads.complete(row.account_id, row.listing_id, row.id);
          void reply.header('lightbox-media-id', mediaId);
        }
        return reply;
      },
    );

    app.patch(
      `${mount.path}/:id/uploads/:upload_id`,
      {
        ...STREAMED_BODY,
        config: config({ ...STREAMED_BODY.config }),
        onError: closeOnError,
        schema: doc({
          operationId: 'appendUpload',
          summary: 'Append bytes at Upload-Offset (tus PATCH)',
          description:
            `\`Content-Type: ${OCTETS}\` (else 415), \`Upload-Offset\` equal to the upload's offset (else 409 ` +
            '`conflict`) and `Content-Length` (a body that would pass `Upload-Length` is 413 and none of it is ' +
            'kept). 204 with the new `Upload-Offset` and `Upload-Expires`; the request that stores the last ' +
            'byte makes the file a media item (the checks of a multipart upload: 415 for a file that is not a ' +
            'photo, video or document, and nothing is kept) and carries `Lightbox-Media-Id`.',
          tags,
          consumes: [OCTETS],
          params: UploadParams,
          body: Chunk(limits.maxFileBytes),
          response: {
            204: Empty('Stored: the new `Upload-Offset`.'),
            409: ErrorAnswer("`Upload-Offset` is not the upload's offset (`conflict`)."),
            412: ErrorAnswer('Without `Tus-Resumable: 1.0.0` (`precondition_failed`).'),
            ...errorResponses(400, 401, 403, 404, 413, 415),
          },
        }),
      },
      async (request, reply) => {
        const row = await existing(request, request.params);
        if (mediaType(request) !== OCTETS) throw fromTus(415, '');
        const offset = integerHeader(request, 'upload-offset');
        if (offset === undefined) {
          throw tusError('validation_error', 'Upload-Offset is required', [
            { field: 'Upload-Offset', message: 'is required' },
          ]);
        }
        const bodyLength = integerHeader(request, 'content-length');
        if (bodyLength === undefined) {
          // Only a declared length can be refused before any of it is stored (413, nothing kept).
          throw tusError('validation_error', 'Content-Length is required on PATCH', [
            { field: 'Content-Length', message: 'is required' },
          ]);
        }
        if (offset + bodyLength > row.length) throw fromTus(413, '');
        if (row.media_id !== null) {
          // A retried final PATCH: the upload is a media item already.
          if (offset !== row.length) throw fromTus(409, '');
          return completed(reply, row, row.media_id, 204);
        }
        continueBody(request, reply);
        return viaTus(request, reply, contextFor(row));
      },
    );

    app.delete(
      `${mount.path}/:id/uploads/:upload_id`,
      {
        config: config({}),
        schema: doc({
          operationId: 'terminateUpload',
          summary: 'Abandon an upload (tus termination)',
          description:
            'Removes the unfinished upload and its bytes (204). A completed upload is media: 409 `conflict` ' +
            '(delete the media instead).',
          tags,
          params: UploadParams,
          response: {
            204: Empty('No content: the upload and its bytes are gone.'),
            409: ErrorAnswer('The upload is complete: it is a media item now (`conflict`).'),
            412: ErrorAnswer('Without `Tus-Resumable: 1.0.0` (`precondition_failed`).'),
            ...errorResponses(400, 401, 403, 404),
          },
        }),
      },
      async (request, reply) => {
        const row = await existing(request, request.params);
        await uploads.terminate(row);
        return empty(reply.header('tus-resumable', TUS_VERSION), 204);
      },
    );
  });
}

/** An answer without a body (the tus protocol's answers are all headers). */
const empty = (reply: FastifyReply, status: number): FastifyReply => reply.code(status).send();

function completed(reply: FastifyReply, row: UploadRow, mediaId: string, status: 200 | 204): FastifyReply {
  return empty(
    reply
      .header('tus-resumable', TUS_VERSION)
      .header('cache-control', 'no-store')
      .header('upload-offset', String(row.length))
      .header('upload-length', String(row.length))
      .header('lightbox-media-id', mediaId),
    status,
  );
}
