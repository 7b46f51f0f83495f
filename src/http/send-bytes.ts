// Serving stored bytes (media content, photo variants, and the client gallery's files): one
// range, If-Range, ETag and If-None-Match, as an attachment that can never run in a browser.
import { create as contentDisposition } from 'content-disposition';
import rangeParser from 'range-parser';
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { ByteRange } from '../storage/storage.ts';
import { ifNoneMatch } from './conditional.ts';

/** Nothing stored may ever run in a browser: never sniffed, sandboxed, revalidated per use. */
const STORED_BYTES_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; sandbox",
  'cache-control': 'private, no-cache',
  'accept-ranges': 'bytes',
} as const;

export interface StoredBytes {
  /** Strong, quoted. */
  etag: string;
  size: number;
  contentType: string;
  /** The download's name (Content-Disposition); `inline` lets a page show it (a thumbnail). */
  filename: string;
  disposition?: 'attachment' | 'inline';
  /** Instead of `private, no-cache`: a public page's variant at a URL that names its bytes. */
  cacheControl?: string;
  open(range?: ByteRange): Promise<Readable>;
  /**
   * Called once the bytes are open, before the first is sent (not for a 304), with the range
   * served: what happens here (a download counted) is done by the time the client has the answer.
   */
  beforeSend?(range: ByteRange | undefined): Promise<void>;
}

/**
 * RFC 9110 If-None-Match: a list of (weak or strong) tags, or `*`; parsed as the JSON reads'
 * (src/http/conditional.ts), so a quoted tag holding a comma is one tag and a malformed or
 * over-long value is ignored.
 */
export function matchesAny(header: string | undefined, etag: string): boolean {
  return ifNoneMatch(header, etag) !== 'none';
}

/**
 * The range a request asks for, if it is to be honoured: one satisfiable byte range, and
 * If-Range (when sent) equal to the current strong ETag. Unsatisfiable is 416; a malformed
 * header, another unit or several ranges mean the whole (RFC 9110 allows it).
 */
export function requestedRange(request: FastifyRequest, size: number, etag: string): ByteRange | undefined {
  const wanted = request.headers.range;
  const ifRange = request.headers['if-range'];
  if (wanted === undefined || (ifRange !== undefined && ifRange !== etag)) return undefined;
  const parsed = rangeParser(size, wanted, { combine: true });
  if (parsed === -1) {
    throw new AppError('range_not_satisfiable', `The range is outside the ${size} bytes of this file`, undefined, {
      'content-range': `bytes */${size}`,
    });
  }
  if (parsed !== -2 && parsed.type === 'bytes' && parsed.length === 1 && parsed[0] !== undefined) {
    return { start: parsed[0].start, end: parsed[0].end };
  }
  return undefined;
}

/** Sends the bytes (200, 206 or 304) with their headers; `range` is what was served, if any. */
export async function sendStoredBytes(
  request: FastifyRequest,
  reply: FastifyReply,
  bytes: StoredBytes,
): Promise<{ reply: FastifyReply; range: ByteRange | undefined; notModified: boolean }> {
  void reply
    .headers(STORED_BYTES_HEADERS)
    .header('etag', bytes.etag)
    .header('content-disposition', contentDisposition(bytes.filename, { type: bytes.disposition ?? 'attachment' }));
  if (bytes.cacheControl !== undefined) void reply.header('cache-control', bytes.cacheControl);
  if (matchesAny(request.headers['if-none-match'], bytes.etag)) {
    return { reply: reply.code(304).send(null), range: undefined, notModified: true };
  }
  const range = requestedRange(request, bytes.size, bytes.etag);
  const body = await bytes.open(range);
  if (bytes.beforeSend !== undefined) {
    try {
      await bytes.beforeSend(range);
    } catch (err) {
      body.destroy();
      throw err;
    }
  }
  void reply.type(bytes.contentType);
  if (range === undefined) {
    return { reply: reply.header('content-length', bytes.size).send(body), range, notModified: false };
  }
  return {
    reply: reply
      .code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${bytes.size}`)
      .header('content-length', range.end - range.start + 1)
      .send(body),
    range,
    notModified: false,
  };
}
