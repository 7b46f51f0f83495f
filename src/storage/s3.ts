// Media in an S3-compatible bucket, one object per key under an optional prefix. Uploads stream
// through lib-storage in bounded parts (at most queueSize parts in flight, so memory stays near
// partSize × (queueSize + 1) whatever the file size); a failed upload is aborted and its key
// cleared, so a reader never finds half an object.
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import {
  assertSafeKey,
  isSafeKey,
  StorageNotFoundError,
  type ByteRange,
  type MediaStorage,
  type StoredObject,
} from './storage.ts';

export interface S3StorageOptions {
  bucket: string;
  /** `''` or `some/prefix`, without a trailing slash; keys are stored as `prefix/key`. */
  prefix: string;
  /** For S3-compatible services (MinIO, R2, …); unset means AWS itself. */
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  /** Unset: the SDK's standard chain (AWS_ACCESS_KEY_ID…, profiles, instance roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Bytes per multipart part (at least 5 MiB). Default 8 MiB. */
  partSize?: number;
  /** Parts uploaded at once. Default 2. */
  queueSize?: number;
  /** Keys per ListObjectsV2 page. Default 1000 (the S3 maximum). */
  listPageSize?: number;
}

export interface S3MediaStorage extends MediaStorage {
  readonly kind: 's3';
  /** Closes the client's idle connections. The storage must not be used afterwards. */
  close(): void;
}

const MIB = 1024 * 1024;
const DEFAULT_PART_SIZE = 8 * MIB;
const DEFAULT_QUEUE_SIZE = 2;

export function createS3Storage(options: S3StorageOptions): S3MediaStorage {
  const bucket = options.bucket;
  const prefix = normalizePrefix(options.prefix);
  const base = prefix === '' ? '' : `${prefix}/`;
  const partSize = options.partSize ?? DEFAULT_PART_SIZE;
  const queueSize = options.queueSize ?? DEFAULT_QUEUE_SIZE;
  const listPageSize = options.listPageSize ?? 1000;
  if (!Number.isSafeInteger(partSize) || partSize < 5 * MIB) throw new Error('S3 partSize must be at least 5 MiB');
  if (!Number.isSafeInteger(queueSize) || queueSize < 1) throw new Error('S3 queueSize must be at least 1');
  if (!Number.isSafeInteger(listPageSize) || listPageSize < 1 || listPageSize > 1000) {
    throw new Error('S3 listPageSize must be from 1 to 1000');
  }

  const config: S3ClientConfig = {
    region: options.region,
    forcePathStyle: options.forcePathStyle,
  };
  if (options.endpoint !== undefined) {
    config.endpoint = options.endpoint;
    // Many S3-compatible services reject the newer default integrity checksums; only send
    // them where an operation requires one.
    config.requestChecksumCalculation = 'WHEN_REQUIRED';
    config.responseChecksumValidation = 'WHEN_REQUIRED';
  }
  if (options.credentials !== undefined) config.credentials = options.credentials;
  const client = new S3Client(config);

  function objectKey(key: string): string {
    assertSafeKey(key);
    return base + key;
  }

  /** Best effort: the caller is already failing with a better error than ours. */
  async function quietly(work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch {
      // Ignored: see above. Parts left by a failed abort are never visible at the key; a
      // bucket lifecycle rule for incomplete multipart uploads reclaims their space.
    }
  }

  async function* pages(listPrefix: string): AsyncGenerator<StoredObject> {
    let token: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({
          Bucket: bucket,
          Prefix: listPrefix,
          MaxKeys: listPageSize,
          ...(token === undefined ? {} : { ContinuationToken: token }),
        }),
      );
      for (const object of page.Contents ?? []) {
        const full = object.Key;
        if (full === undefined || !full.startsWith(base)) continue;
        const key = full.slice(base.length);
        // Objects someone else put under the prefix with names this storage could never
        // write are not ours to report (nor could they be deleted through this interface).
        if (!isSafeKey(key)) continue;
        yield { key, size: object.Size ?? 0 };
      }
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  return {
    kind: 's3',

    async put(key, body, { contentType }) {
      const Key = objectKey(key);
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key, Body: body, ContentType: contentType },
        partSize,
        queueSize,
        // Aborting is done below, so that an abort that fails cannot hide the real error.
        leavePartsOnError: true,
      });
      try {
        await upload.done();
      } catch (err) {
        if (!body.destroyed) body.destroy();
        const uploadId = upload.uploadId;
        if (uploadId !== undefined) {
          await quietly(() =>
            client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key, UploadId: uploadId })),
          );
        }
        // Keys are never reused, so whatever is at Key now can only be (part of) this upload,
        // e.g. when the upload completed but its response was lost.
        await quietly(() => client.send(new DeleteObjectCommand({ Bucket: bucket, Key })));
        throw err;
      }
    },

    async get(key, range?: ByteRange) {
      const Key = objectKey(key);
      if (range !== undefined) assertRange(range);
      try {
        const result = await client.send(
          new GetObjectCommand({
            Bucket: bucket,
            Key,
            ...(range === undefined ? {} : { Range: `bytes=${range.start}-${range.end}` }),
          }),
        );
        const stream = result.Body;
        if (stream === undefined) return Readable.from([]);
        if (!(stream instanceof Readable)) throw new Error('S3 returned a body that is not a Node stream');
        return stream;
      } catch (err) {
        if (isNotFound(err)) throw new StorageNotFoundError(key);
        throw err;
      }
    },

    async delete(key) {
      const Key = objectKey(key);
      try {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key }));
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },

    list(listPrefix) {
      const trimmed = listPrefix.replace(/\/+$/, '');
      // Checked now, not on the first iteration, like the local storage.
      if (trimmed !== '') assertSafeKey(trimmed);
      return pages(trimmed === '' ? base : `${base}${trimmed}/`);
    },

    close() {
      client.destroy();
    },
  };
}

function normalizePrefix(raw: string): string {
  const prefix = raw.replace(/^\/+|\/+$/g, '');
  if (prefix === '') return '';
  const oddSegment = prefix.split('/').some((part) => part === '' || part === '.' || part === '..');
  if (oddSegment || /[\p{Cc}\\]/u.test(prefix)) {
    throw new Error(`unusable S3 key prefix ${JSON.stringify(raw)}`);
  }
  return prefix;
}

function assertRange(range: ByteRange): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    // S3 silently ignores a malformed Range header and returns the whole object.
    throw new RangeError(`invalid byte range ${start}-${end}`);
  }
}

/** The object is absent (a missing bucket is a configuration error, not a missing object). */
function isNotFound(err: unknown): boolean {
  if (!(err instanceof S3ServiceException) || err.name === 'NoSuchBucket') return false;
  return err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata.httpStatusCode === 404;
}
