// lb.media: a gallery's photos, videos and documents (docs/api.md §6, §13, §16).
import type { Conditional, GetOptions, HttpClient, RequestOptions } from '../core.ts';
import { segment } from '../pagination.ts';
import { abandonUpload, uploadResumable, type ResumableUploadOptions } from '../tus.ts';
import type { Media, MediaUpdate, Page, ResponseInfo, SuggestedOrder, WithResponse } from '../types.ts';
import type { MultipartBody, UploadInput } from '../uploads.ts';

export type VariantName = 'thumb' | 'large' | 'mls';

export interface DownloadOptions extends GetOptions {
  /** A `Range` header value, e.g. `bytes=0-1023` (206 Partial Content). */
  range?: string;
}

/** Encodes what a caller passes as a multipart body; the Node entry point knows paths and Node streams too. */
export type MultipartEncoder<I> = (inputs: I[]) => Promise<MultipartBody>;
/** Turns what a caller passes to uploadResumable into a Blob and a name. */
export type BlobResolver<R> = (input: R) => Promise<{ blob: Blob; filename: string | undefined }>;

export class MediaResource<I = UploadInput, R = Blob> {
  readonly #http: HttpClient;
  readonly #encode: MultipartEncoder<I>;
  readonly #blob: BlobResolver<R>;

  constructor(http: HttpClient, encode: MultipartEncoder<I>, blob: BlobResolver<R>) {
    this.#http = http;
    this.#encode = encode;
    this.#blob = blob;
  }

  #path(listingId: string, mediaId?: string): string {
    const base = `/v1/listings/${segment(listingId)}/media`;
    return mediaId === undefined ? base : `${base}/${segment(mediaId)}`;
  }

  /**
   * POST /v1/listings/:id/media: one request, all or nothing, streamed as multipart. Answers the
   * new media in upload order. Blobs are retried like any POST; a stream is sent once.
   */
  async upload(listingId: string, files: I | I[], options?: RequestOptions): Promise<WithResponse<{ data: Media[] }>> {
    const list = Array.isArray(files) ? files : [files];
    if (list.length === 0) throw new TypeError('media.upload needs at least one file');
    const { body, contentType } = await this.#encode(list);
    return this.#http.json({
      method: 'POST',
      path: this.#path(listingId),
      body,
      headers: contentType === undefined ? {} : { 'content-type': contentType },
      options,
    });
  }

  /**
   * POST /v1/listings/:id/media with `{url, filename?}` (docs/api.md §21): the service fetches the file
   * and answers as an upload of it. A fetch that fails is a FetchFailedError (422).
   */
  uploadFromUrl(
    listingId: string,
    source: { url: string; filename?: string },
    options?: RequestOptions,
  ): Promise<WithResponse<{ data: Media[] }>> {
    return this.#http.json({ method: 'POST', path: this.#path(listingId), json: source, options });
  }

  /** A resumable upload over tus (docs/api.md §16): survives cut connections; see ResumableUploadOptions. */
  async uploadResumable(
    listingId: string,
    file: R,
    options: ResumableUploadOptions = {},
  ): Promise<WithResponse<Media>> {
    const { blob, filename } = await this.#blob(file);
    return uploadResumable(this.#http, listingId, blob, options.filename ?? filename, options);
  }

  /**
   * Abandons an unfinished resumable upload (the URL `onUploadUrl` gave): DELETE, tus termination.
   * Its bytes are removed; a finished one is already media (409), an unknown one 404.
   */
  abandonUpload(uploadUrl: string, options?: RequestOptions): Promise<void> {
    return abandonUpload(this.#http, uploadUrl, options);
  }

  /** GET /v1/listings/:id/media: all the gallery's media by position (one page holds them all). */
  list<O extends GetOptions | undefined = undefined>(
    listingId: string,
    options?: O,
  ): Promise<Conditional<O, Page<Media>>> {
    return this.#http.get<Page<Media>, O>(this.#path(listingId), undefined, options as O);
  }

  /** GET /v1/listings/:id/media/:media_id. */
  get<O extends GetOptions | undefined = undefined>(
    listingId: string,
    mediaId: string,
    options?: O,
  ): Promise<Conditional<O, Media>> {
    return this.#http.get<Media, O>(this.#path(listingId, mediaId), undefined, options as O);
  }

  /** PATCH /v1/listings/:id/media/:media_id: `caption`, `hidden`, `position`. */
  update(
    listingId: string,
    mediaId: string,
    body: MediaUpdate,
    options?: RequestOptions,
  ): Promise<WithResponse<Media>> {
    return this.#http.json({ method: 'PATCH', path: this.#path(listingId, mediaId), json: body, options });
  }

  /** DELETE /v1/listings/:id/media/:media_id: the record and its bytes. */
  delete(listingId: string, mediaId: string, options?: RequestOptions): Promise<ResponseInfo> {
    return this.#http.empty({ method: 'DELETE', path: this.#path(listingId, mediaId), options });
  }

  /** PUT /v1/listings/:id/media/order: every media id of the gallery once, in the new order. */
  reorder(listingId: string, mediaIds: string[], options?: RequestOptions): Promise<WithResponse<Page<Media>>> {
    return this.#http.json({
      method: 'PUT',
      path: `${this.#path(listingId)}/order`,
      json: { media_ids: mediaIds },
      options,
    });
  }

  /**
   * GET /v1/listings/:id/media/suggested_order (docs/api.md §30): every visible photo in the
   * studio's room order, similar ones together with the best first, and a reason for each. Apply
   * it with `reorder` (the suggested ids first, then the media it leaves out).
   */
  suggestedOrder<O extends GetOptions | undefined = undefined>(
    listingId: string,
    options?: O,
  ): Promise<Conditional<O, SuggestedOrder>> {
    return this.#http.get<SuggestedOrder, O>(`${this.#path(listingId)}/suggested_order`, undefined, options as O);
  }

  /**
   * GET /v1/listings/:id/media/:media_id/content: the bytes, as the fetch Response (read
   * `res.body` as a stream, or `await res.arrayBuffer()`). 206 with `range`; 304 with `ifNoneMatch`.
   */
  download(listingId: string, mediaId: string, options: DownloadOptions = {}): Promise<Response> {
    return this.#bytes(`${this.#path(listingId, mediaId)}/content`, options);
  }

  /** GET /v1/listings/:id/media/:media_id/variants/:name: a ready variant's bytes (NotFoundError until ready). */
  downloadVariant(
    listingId: string,
    mediaId: string,
    name: VariantName,
    options: DownloadOptions = {},
  ): Promise<Response> {
    return this.#bytes(`${this.#path(listingId, mediaId)}/variants/${segment(name)}`, options);
  }

  #bytes(path: string, options: DownloadOptions): Promise<Response> {
    const { range, ifNoneMatch, ...rest } = options;
    const headers: Record<string, string> = { accept: '*/*' };
    if (range !== undefined) headers.range = range;
    if (ifNoneMatch !== undefined) headers['if-none-match'] = ifNoneMatch;
    return this.#http.send({ method: 'GET', path, headers, options: rest, accept: [304] });
  }
}
