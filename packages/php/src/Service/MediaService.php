<?php

declare(strict_types=1);

namespace Lightbox\Service;

use Lightbox\Collection;
use Lightbox\Exception\ApiErrorException;
use Lightbox\Exception\ConnectionException;
use Lightbox\Exception\InvalidArgumentException;
use Lightbox\Exception\TimeoutException;
use Lightbox\HttpClient\MultipartBody;
use Lightbox\HttpClient\Response;
use Lightbox\HttpClient\StreamBody;
use Lightbox\LightboxObject;

/**
 * `$lb->media`: a gallery's photos, videos and documents (API sections 6, 13, 16, 21). The JSON
 * operations are generated; uploads, downloads and resumable uploads are written here.
 */
class MediaService extends Generated\AbstractMediaService
{
    private const TUS = ['tus-resumable' => '1.0.0'];
    public const DEFAULT_CHUNK_SIZE = 8 * 1024 * 1024;

    /**
     * POST /v1/listings/:id/media (operationId `uploadMedia`): one multipart request, all or nothing.
     * Answers `{data: [media...]}` in upload order.
     *
     * Each file is a path (streamed from disk with CURLFile, never read whole into memory), an open
     * stream (a local file is streamed from its path; another stream is copied to a temporary file
     * first), an SplFileInfo, or an array: `['path' => ..., 'filename' => ...]`,
     * `['data' => $bytes, 'filename' => ...]` or `['file' => $stream, 'filename' => ...]`.
     * A path upload is retried like any POST (its Idempotency-Key makes one set of media).
     *
     * @param string|resource|\SplFileInfo|array<string, mixed>|list<mixed> $files one file or a list
     * @param null|array<string, mixed> $opts idempotency_key, headers, max_retries, timeout
     *     (seconds for the whole upload; default none: an upload fails when no byte moves for 60 s)
     * @throws ApiErrorException
     */
    public function upload(string $listingId, mixed $files, ?array $opts = null): LightboxObject
    {
        $list = is_array($files) && array_is_list($files) ? $files : [$files];
        if ($list === []) {
            throw new InvalidArgumentException('media->upload needs at least one file');
        }
        $parts = [];
        $temporary = [];
        foreach ($list as $file) {
            $parts[] = $this->part($file, $temporary);
        }
        $body = new MultipartBody($parts, $temporary);
        $opts ??= [];
        $opts['timeout'] ??= 0;
        try {
            $response = $this->requestor()->send('POST', $this->path($listingId), [], $body, $opts);
        } finally {
            $body->release();
        }
        return new LightboxObject(json_decode($response->body, true, 512, JSON_THROW_ON_ERROR), $response);
    }

    /**
     * POST /v1/listings/:id/media with JSON `{url, filename?}` (API section 21): the service fetches
     * the file, with the same checks, limits and answer as an upload (`{data: [media]}`).
     *
     * @param null|array<string, mixed> $opts
     * @throws ApiErrorException FetchFailedException when the service could not fetch it
     */
    public function createFromUrl(
        string $listingId,
        string $url,
        ?string $filename = null,
        ?array $opts = null
    ): LightboxObject {
        $params = ['url' => $url];
        if ($filename !== null) {
            $params['filename'] = $filename;
        }
        [$data, $response] = $this->requestor()->json('POST', $this->path($listingId), [], $params, $opts ?? []);
        return new LightboxObject(is_array($data) ? $data : [], $response);
    }

    /**
     * PUT /v1/listings/:id/media/order (operationId `reorderMedia`): every media id of the gallery
     * once, in the new order. Answers the gallery's media list in that order.
     *
     * @param list<string> $mediaIds
     * @param null|array<string, mixed> $opts
     */
    public function reorder(string $listingId, array $mediaIds, ?array $opts = null): Collection
    {
        $page = $this->request('PUT', $this->path($listingId) . '/order', ['media_ids' => $mediaIds], $opts, [], true);
        assert($page instanceof Collection);
        return $page;
    }

    /**
     * GET /v1/listings/:id/media/:media_id/content (operationId `getMediaContent`): the bytes.
     *
     * Options: `sink` (a path or an open stream: the bytes are written there as they arrive, not
     * kept in memory), `range` (e.g. `bytes=0-1023`, answered 206), `if_none_match` (304), and the
     * usual request options. Answers the Response (`status`, `headers`, and `body` without a sink).
     *
     * @param array<string, mixed> $opts
     */
    public function download(string $listingId, string $mediaId, array $opts = []): Response
    {
        return $this->bytes($this->path($listingId, $mediaId) . '/content', $opts);
    }

    /**
     * GET /v1/listings/:id/media/:media_id/variants/:name (operationId `getMediaVariant`): a ready
     * variant's bytes (`thumb`, `large`, `mls`; `poster`, `web` for videos); NotFoundException until
     * ready. Options as download().
     *
     * @param array<string, mixed> $opts
     */
    public function downloadVariant(string $listingId, string $mediaId, string $name, array $opts = []): Response
    {
        return $this->bytes($this->path($listingId, $mediaId) . '/variants/' . self::segment($name), $opts);
    }

    /**
     * OPTIONS /v1/listings/:id/uploads (operationId `describeUploads`): the server's tus support,
     * as headers (`tus-version`, `tus-extension`, `tus-max-size`).
     *
     * @param null|array<string, mixed> $opts
     */
    public function describeUploads(string $listingId, ?array $opts = null): Response
    {
        return $this->requestor()->send('OPTIONS', $this->path($listingId, null, 'uploads'), [], null, $opts ?? []);
    }

    /**
     * POST /v1/listings/:id/uploads (operationId `createUpload`): a tus upload of `$length` bytes.
     * Answers its absolute URL (keep it to resume).
     *
     * @param null|array<string, mixed> $opts
     */
    public function createUpload(string $listingId, int $length, ?string $filename = null, ?array $opts = null): string
    {
        $headers = self::TUS + ['upload-length' => (string) $length];
        if ($filename !== null) {
            $headers['upload-metadata'] = 'filename ' . base64_encode($filename);
        }
        $response = $this->requestor()->send(
            'POST',
            $this->path($listingId, null, 'uploads'),
            [],
            null,
            $opts ?? [],
            [],
            $headers
        );
        $location = $response->header('location');
        if ($location === null) {
            throw ApiErrorException::factory(
                'the upload was created without a Location',
                $response->status,
                'tus_no_location'
            );
        }
        return $this->requestor()->resolve($location);
    }

    /**
     * HEAD on an upload's URL (operationId `getUpload-head`): the bytes the server holds, and the
     * media id once the upload is complete.
     *
     * @param null|array<string, mixed> $opts
     * @return array{offset: int, length: ?int, media_id: ?string}
     */
    public function getUploadOffset(string $uploadUrl, ?array $opts = null): array
    {
        $url = $this->requestor()->resolve($uploadUrl);
        $r = $this->requestor()->send('HEAD', $url, [], null, $opts ?? [], [], self::TUS);
        return [
            'offset' => (int) ($r->header('upload-offset') ?? 0),
            'length' => $r->header('upload-length') === null ? null : (int) $r->header('upload-length'),
            'media_id' => $r->header('lightbox-media-id'),
        ];
    }

    /**
     * PATCH on an upload's URL (operationId `appendUpload`): `$length` bytes of `$stream` from
     * `$offset`, read as they are sent. Answers the new offset and, after the last byte, the media id.
     *
     * @param resource $stream
     * @param null|array<string, mixed> $opts
     * @return array{offset: int, media_id: ?string}
     */
    public function appendUpload(string $uploadUrl, mixed $stream, int $offset, int $length, ?array $opts = null): array
    {
        $r = $this->requestor()->send(
            'PATCH',
            $this->requestor()->resolve($uploadUrl),
            [],
            new StreamBody($stream, $offset, $length),
            // One attempt: after a failure uploadResumable asks the server where it stands first.
            ['max_retries' => 0] + ($opts ?? []) + ['timeout' => 0],
            [],
            self::TUS + ['upload-offset' => (string) $offset, 'content-type' => 'application/offset+octet-stream']
        );
        return [
            'offset' => (int) ($r->header('upload-offset') ?? ($offset + $length)),
            'media_id' => $r->header('lightbox-media-id'),
        ];
    }

    /**
     * DELETE on an upload's URL (operationId `terminateUpload`, tus termination): its bytes are
     * removed and the URL answers 404 from then on.
     *
     * @param null|array<string, mixed> $opts
     */
    public function abandonUpload(string $uploadUrl, ?array $opts = null): void
    {
        $url = $this->requestor()->resolve($uploadUrl);
        $this->requestor()->send('DELETE', $url, [], null, $opts ?? [], [], self::TUS);
    }

    /**
     * A resumable upload over tus (API section 16): the file goes in PATCHes of `chunk_size` bytes,
     * each read from disk as it is sent. When a PATCH fails (a cut connection, a timeout, a 5xx, an
     * offset the server disagrees with), the server is asked where it is (HEAD) and the upload goes
     * on from there, up to `max_retries` failures in a row without progress. Answers the media.
     *
     * Options: `filename` (default: the path's base name), `chunk_size` (8 MiB: at most this much is
     * sent again after a cut), `on_progress` (callable(int $uploaded, int $total), after each chunk),
     * `upload_url` (resume an upload made earlier, by this process or another), `on_upload_url`
     * (callable(string $url), once the upload exists: keep the URL to resume after a crash), and the
     * usual request options.
     *
     * @param string|resource $file a path, or an open seekable stream
     * @param array<string, mixed> $options
     * @throws ApiErrorException
     */
    public function uploadResumable(string $listingId, mixed $file, array $options = []): LightboxObject
    {
        $chunkSize = (int) ($options['chunk_size'] ?? self::DEFAULT_CHUNK_SIZE);
        if ($chunkSize <= 0) {
            throw new InvalidArgumentException('chunk_size must be positive');
        }
        $onProgress = $options['on_progress'] ?? null;
        $filename = $options['filename'] ?? null;
        $own = false;
        if (is_string($file)) {
            if (!is_file($file) || !is_readable($file)) {
                throw new InvalidArgumentException("no readable file at {$file}");
            }
            $filename ??= basename($file);
            $stream = fopen($file, 'rb');
            if ($stream === false) {
                throw new InvalidArgumentException("cannot open {$file}");
            }
            $own = true;
        } elseif (is_resource($file)) {
            $stream = $file;
            $meta = stream_get_meta_data($file);
            if (!$meta['seekable']) {
                throw new InvalidArgumentException('uploadResumable needs a seekable stream');
            }
        } else {
            throw new InvalidArgumentException('uploadResumable takes a path or an open stream');
        }
        $request = array_diff_key(
            $options,
            array_flip(['chunk_size', 'on_progress', 'filename', 'upload_url', 'on_upload_url'])
        );
        try {
            $total = (int) fstat($stream)['size'];
            $maxRetries = (int) ($request['max_retries'] ?? $this->requestor()->maxRetries);
            if (isset($options['upload_url'])) {
                $url = $this->requestor()->resolve((string) $options['upload_url']);
                ['offset' => $offset, 'media_id' => $mediaId] = $this->getUploadOffset($url, $request);
                if ($onProgress !== null && $offset > 0) {
                    $onProgress($offset, $total);
                }
            } else {
                $url = $this->createUpload($listingId, $total, $filename, $request);
                if (isset($options['on_upload_url'])) {
                    ($options['on_upload_url'])($url);
                }
                $offset = 0;
                $mediaId = null;
            }
            $failures = 0;
            while ($mediaId === null) {
                if ($offset >= $total) {
                    $mediaId = $this->getUploadOffset($url, $request)['media_id'];
                    if ($mediaId === null) {
                        throw ApiErrorException::factory(
                            "all {$total} bytes were sent but no media was made",
                            null,
                            'tus_incomplete'
                        );
                    }
                    break;
                }
                $length = min($chunkSize, $total - $offset);
                try {
                    ['offset' => $offset, 'media_id' => $mediaId] =
                        $this->appendUpload($url, $stream, $offset, $length, $request);
                    $failures = 0;
                    if ($onProgress !== null) {
                        $onProgress($offset, $total);
                    }
                } catch (ApiErrorException $e) {
                    if (!self::resumable($e) || $failures >= $maxRetries) {
                        throw $e;
                    }
                    $failures++;
                    usleep((int) ($this->requestor()->backoff($failures - 1) * 1_000_000));
                    $before = $offset;
                    ['offset' => $offset, 'media_id' => $mediaId] = $this->getUploadOffset($url, $request);
                    if ($onProgress !== null && $offset > $before) {
                        $onProgress($offset, $total);
                    }
                }
            }
        } finally {
            if ($own) {
                fclose($stream);
            }
        }
        $media = $this->retrieve($listingId, $mediaId, $request);
        assert($media instanceof LightboxObject);
        return $media;
    }

    private static function resumable(ApiErrorException $e): bool
    {
        if ($e instanceof ConnectionException || $e instanceof TimeoutException) {
            return true;
        }
        $status = $e->getHttpStatus();
        return $status !== null && ($status === 409 || $status === 429 || $status >= 500);
    }

    private function path(string $listingId, ?string $mediaId = null, string $collection = 'media'): string
    {
        $base = '/v1/listings/' . self::segment($listingId) . '/' . $collection;
        return $mediaId === null ? $base : $base . '/' . self::segment($mediaId);
    }

    /**
     * @param array<int, string> $temporary
     */
    private function part(mixed $file, array &$temporary): \CURLFile|\CURLStringFile
    {
        $filename = null;
        if (is_array($file)) {
            $filename = isset($file['filename']) ? (string) $file['filename'] : null;
            if (isset($file['data'])) {
                return new \CURLStringFile((string) $file['data'], $filename ?? 'upload', 'application/octet-stream');
            }
            $file = $file['path'] ?? $file['file'] ?? null;
        }
        if ($file instanceof \SplFileInfo) {
            $file = $file->getPathname();
        }
        if (is_string($file)) {
            if (!is_file($file) || !is_readable($file)) {
                throw new InvalidArgumentException("no readable file at {$file}");
            }
            return new \CURLFile($file, 'application/octet-stream', $filename ?? basename($file));
        }
        if (is_resource($file)) {
            $meta = stream_get_meta_data($file);
            $uri = $meta['uri'] ?? '';
            if ($meta['wrapper_type'] === 'plainfile' && is_file($uri) && @ftell($file) === 0) {
                return new \CURLFile($uri, 'application/octet-stream', $filename ?? basename($uri));
            }
            // Not a file on disk (or read part-way): copied to a temporary file, then streamed from it.
            $tmp = tempnam(sys_get_temp_dir(), 'lbx');
            $out = $tmp === false ? false : fopen($tmp, 'wb');
            if ($tmp === false || $out === false) {
                throw new InvalidArgumentException('cannot make a temporary file for the stream');
            }
            stream_copy_to_stream($file, $out);
            fclose($out);
            $temporary[] = $tmp;
            return new \CURLFile($tmp, 'application/octet-stream', $filename ?? 'upload');
        }
        throw new InvalidArgumentException(
            'a file is a path, an open stream, an SplFileInfo, or an array with path, data or file'
        );
    }
}
