// Resumable uploads over tus 1.0 (docs/api.md §16), on fetch alone: create the upload, send
// the file in PATCHes of `chunkSize` bytes (each a slice of the Blob, read from its source as it
// is sent), and when a PATCH fails (connection cut, timeout, 5xx, an offset the server disagrees
// with) ask the server where it is (HEAD) and go on from there. Gives up after `maxRetries`
// failures in a row without progress. The last PATCH answers `Lightbox-Media-Id`: the media
// object is fetched and returned. `uploadUrl` resumes an upload made earlier (by this process or
// another); `onUploadUrl` hands out the URL to keep for that.
import { ConnectionError, LightboxError, TimeoutError } from './errors.ts';
import type { HttpClient, RequestOptions } from './core.ts';
import { segment } from './pagination.ts';
import type { Media, WithResponse } from './types.ts';

export interface ResumableUploadOptions extends RequestOptions {
  /** The media's filename (default: the File's name, the path's base name, else the server's choice). */
  filename?: string;
  /** Bytes per PATCH (default 8 MiB): at most this much is sent again after a cut. */
  chunkSize?: number;
  /** Called after each acknowledged chunk with the bytes the server holds and the total. */
  onProgress?: (uploaded: number, total: number) => void;
  /** The URL of an upload created earlier, to resume it rather than start again. */
  uploadUrl?: string;
  /** Called once the upload exists, with its URL (keep it to resume after a restart). */
  onUploadUrl?: (url: string) => void;
}

const TUS = { 'tus-resumable': '1.0.0' };
const DEFAULT_CHUNK = 8 * 1024 * 1024;

function base64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function retriable(err: unknown): boolean {
  if (err instanceof ConnectionError || err instanceof TimeoutError) return true;
  if (!(err instanceof LightboxError) || err.status === null) return false;
  return err.status === 409 || err.status === 429 || err.status >= 500;
}

export async function uploadResumable(
  http: HttpClient,
  listingId: string,
  file: Blob,
  filename: string | undefined,
  options: ResumableUploadOptions = {},
): Promise<WithResponse<Media>> {
  const { chunkSize = DEFAULT_CHUNK, onProgress, onUploadUrl, uploadUrl, ...request } = options;
  if (!(chunkSize > 0)) throw new RangeError('chunkSize must be positive');
  const total = file.size;
  const maxRetries = request.maxRetries ?? http.maxRetries;
  const base = `/v1/listings/${segment(listingId)}/uploads`;

  let url: string;
  if (uploadUrl === undefined) {
    const headers: Record<string, string> = { ...TUS, 'upload-length': String(total) };
    if (filename !== undefined) headers['upload-metadata'] = `filename ${base64(filename)}`;
    const created = await http.send({ method: 'POST', path: base, headers, options: request });
    await created.body?.cancel();
    const location = created.headers.get('location');
    if (location === null)
      throw new LightboxError({
        status: created.status,
        code: 'tus_no_location',
        message: 'the upload was created without a Location',
      });
    url = http.sameOrigin(location);
    onUploadUrl?.(url);
  } else {
    url = http.sameOrigin(uploadUrl);
  }

  const head = async (): Promise<{ offset: number; mediaId: string | null }> => {
    const res = await http.send({ method: 'HEAD', path: url, headers: TUS, options: request });
    return { offset: Number(res.headers.get('upload-offset') ?? '0'), mediaId: res.headers.get('lightbox-media-id') };
  };

  let { offset, mediaId } = uploadUrl === undefined ? { offset: 0, mediaId: null as string | null } : await head();
  let failures = 0;
  while (mediaId === null) {
    if (offset >= total) {
      ({ mediaId } = await head());
      if (mediaId === null)
        throw new LightboxError({
          status: null,
          code: 'tus_incomplete',
          message: `all ${total} bytes were sent but no media was made`,
        });
      break;
    }
    const end = Math.min(total, offset + chunkSize);
    try {
      const res = await http.send({
        method: 'PATCH',
        path: url,
        headers: { ...TUS, 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' },
        body: file.slice(offset, end),
        options: { ...request, maxRetries: 0 },
      });
      await res.body?.cancel();
      offset = Number(res.headers.get('upload-offset') ?? String(end));
      mediaId = res.headers.get('lightbox-media-id');
      failures = 0;
      onProgress?.(offset, total);
    } catch (err) {
      request.signal?.throwIfAborted();
      if (!retriable(err) || failures >= maxRetries) throw err;
      failures += 1;
      await new Promise((resolve) => setTimeout(resolve, http.backoff(failures - 1)));
      const before = offset;
      ({ offset, mediaId } = await head());
      if (offset > before) onProgress?.(offset, total);
    }
  }
  return http.json<Media>({
    method: 'GET',
    path: `/v1/listings/${segment(listingId)}/media/${segment(mediaId)}`,
    options: request,
  });
}

/** DELETE on an upload's URL (tus termination): its bytes are removed, and the URL answers 404 from then on. */
export async function abandonUpload(http: HttpClient, uploadUrl: string, options?: RequestOptions): Promise<void> {
  await http.empty({ method: 'DELETE', path: http.sameOrigin(uploadUrl), headers: TUS, options });
}
