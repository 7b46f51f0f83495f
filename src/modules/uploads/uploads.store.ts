// Where a resumable upload's bytes go while they arrive (docs/api.md §16): @tus/file-store and
// @tus/s3-store, adapted so that
// - the upload's file (or S3 multipart upload) is at its final MediaStorage key from the start, so
//   completing it is a database transaction, never a second copy;
// - the tus record of each upload lives in the database (`uploads.info`), seen by every node;
// - the bytes are hashed (SHA-256, CRC-32) as they stream past, so that an upload written in
//   order by one process needs no second read at completion (after a restart, or on another
//   node, the stored bytes are read once instead);
// - on S3 no byte touches the local disk (decisions/0008): parts are gathered in memory, one part
//   per upload in flight, instead of @tus/s3-store's temporary files.
import { createHash, type Hash } from 'node:crypto';
import { createWriteStream, type ReadStream } from 'node:fs';
import path from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import { FileStore } from '@tus/file-store';
import { S3Store } from '@tus/s3-store';
import { ERRORS, type DataStore, type KvStore, type Upload } from '@tus/utils';
import type { MediaStorageConfig } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import type { MediaStorage } from '../../storage/storage.ts';
import * as uploads from './uploads.repository.ts';

/** What the tus server offers (OPTIONS): no deferred length, no concatenation. */
export const TUS_EXTENSIONS = ['creation', 'creation-with-upload', 'termination', 'expiration'];
const WRITE_BUFFER = 1024 * 1024;

/** The upload id is the last segment of the tus id (`[prefix/]acc_…/lst_…/upl_…`). */
export const uploadIdOf = (tusId: string): string => tusId.slice(tusId.lastIndexOf('/') + 1);

/** The tus server's record of each upload, in the `uploads` row (every node reads the same). */
class UploadInfoStore implements KvStore {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }
  async get(key: string): Promise<Upload | undefined> {
    const info = await uploads.readInfo(this.#db.kysely, uploadIdOf(key));
    return info === null || info === undefined ? undefined : (JSON.parse(info) as Upload);
  }
  async set(key: string, value: Upload): Promise<void> {
    await uploads.writeInfo(this.#db.kysely, uploadIdOf(key), JSON.stringify(value));
  }
  async delete(key: string): Promise<void> {
    await uploads.writeInfo(this.#db.kysely, uploadIdOf(key), null);
  }
}

/** A running SHA-256 and CRC-32 of an upload's bytes 0..offset, kept while it is written in order. */
interface Progress {
  offset: number;
  hash: Hash;
  crc: number;
}

export interface Digests {
  sha256: string;
  crc32: number;
}

/**
 * The digests of uploads being written by this process. An entry is dropped as soon as it could be
 * wrong (a write that failed, an offset it has not seen), and then the stored bytes are read.
 */
export class UploadDigests {
  readonly #progress = new Map<string, Progress>();

  /** Wraps the body of a write at `offset`; `done` records (or forgets) what went through. */
  track(id: string, offset: number, body: Readable): { body: Readable; done: (newOffset: number | undefined) => void } {
    let progress = this.#progress.get(id);
    if (progress?.offset !== offset) {
      this.#progress.delete(id);
      progress = offset === 0 ? { offset: 0, hash: createHash('sha256'), crc: 0 } : undefined;
    }
    if (progress === undefined) return { body, done: () => undefined };
    const p = progress;
    let seen = 0;
    const tap = new Transform({
      highWaterMark: WRITE_BUFFER,
      transform(chunk: Buffer, _encoding, callback: TransformCallback) {
        p.hash.update(chunk);
        p.crc = crc32(chunk, p.crc);
        seen += chunk.length;
        callback(null, chunk);
      },
    });
    body.on('error', (err) => tap.destroy(err));
    // The store may still be awaiting S3 (the upload's metadata, its incomplete part) when the
    // client hangs up: the tap is then destroyed before anyone listens to it, and an 'error' with
    // no listener would end the process. Whoever reads it later still gets the error (an errored
    // stream rejects its reader), so this listener only keeps the error from being unhandled.
    tap.on('error', () => undefined);
    return {
      body: body.pipe(tap),
      done: (newOffset) => {
        if (newOffset !== undefined && newOffset === offset + seen) {
          p.offset = newOffset;
          this.#progress.set(id, p);
        } else {
          this.#progress.delete(id);
        }
      },
    };
  }

  /** The digests of all `length` bytes if this process saw them all in order; forgets them. */
  take(id: string, length: number): Digests | undefined {
    const progress = this.#progress.get(id);
    this.#progress.delete(id);
    if (progress?.offset !== length) return undefined;
    return { sha256: progress.hash.digest('hex'), crc32: progress.crc };
  }

  forget(id: string): void {
    this.#progress.delete(id);
  }
}

/** What the uploads service needs beyond the tus DataStore interface. */
export interface UploadStore {
  readonly store: DataStore;
  /** `key` (a MediaStorage key) as the tus store names it. */
  tusId(key: string): string;
  /** Removes an unfinished upload's bytes and records; absent ones are not an error. */
  removeUnfinished(key: string): Promise<void>;
  /** A completed upload's bytes are media now: only the tus records go. */
  forgetCompleted(key: string): Promise<void>;
}

const errorName = (err: unknown): string =>
  typeof err === 'object' && err !== null ? String((err as { name?: unknown }).name) : '';
const isS3Missing = (err: unknown): boolean => ['NoSuchKey', 'NotFound', 'NoSuchUpload'].includes(errorName(err));
const isS3Unsupported = (err: unknown): boolean => ['MethodNotAllowed', 'NotImplemented'].includes(errorName(err));

class LedgerFileStore extends FileStore {
  readonly #digests: UploadDigests;
  constructor(directory: string, db: Db, expiryMs: number, digests: UploadDigests) {
    super({ directory, configstore: new UploadInfoStore(db), expirationPeriodInMilliseconds: expiryMs });
    this.extensions = [...TUS_EXTENSIONS];
    this.#digests = digests;
  }

  /** As FileStore's, with a 1 MiB write buffer (16 KiB halves the disk rate) and the digests. */
  override async write(readable: Readable, id: string, offset: number): Promise<number> {
    const tracked = this.#digests.track(id, offset, readable);
    let written = 0;
    const count = new Transform({
      highWaterMark: WRITE_BUFFER,
      transform(chunk: Buffer, _encoding, callback: TransformCallback) {
        written += chunk.length;
        callback(null, chunk);
      },
    });
    try {
      await pipeline(
        tracked.body,
        count,
        createWriteStream(path.join(this.directory, id), { flags: 'r+', start: offset, highWaterMark: WRITE_BUFFER }),
      );
    } catch {
      tracked.done(undefined);
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- the tus server's errors are {status_code, body}
      throw ERRORS.FILE_WRITE_ERROR;
    }
    tracked.done(offset + written);
    return offset + written;
  }
}

interface StoredPart {
  PartNumber: number;
  ETag: string;
  Size: number;
}

class InMemoryPartsS3Store extends S3Store {
  readonly #digests: UploadDigests;
  readonly #db: Db;
  constructor(options: ConstructorParameters<typeof S3Store>[0], db: Db, digests: UploadDigests) {
    super(options);
    this.extensions = [...TUS_EXTENSIONS];
    this.#digests = digests;
    this.#db = db;
  }

  /** The parts recorded in the upload's row (every node reads the same; no ListParts needed). */
  protected override async retrieveParts(id: string): Promise<StoredPart[]> {
    const raw = await uploads.readParts(this.#db.kysely, uploadIdOf(id));
    const parts = raw === null || raw === undefined ? [] : (JSON.parse(raw) as StoredPart[]);
    return parts.sort((a, b) => a.PartNumber - b.PartNumber);
  }

  /** Stores a part, then records it (a part stored and not recorded is sent again, replacing it). */
  protected override async uploadPart(
    metadata: Parameters<S3Store['uploadPart']>[0],
    body: Parameters<S3Store['uploadPart']>[1],
    partNumber: number,
  ): Promise<string> {
    if (!Buffer.isBuffer(body)) throw new Error('parts are sent from memory');
    const etag = await super.uploadPart(metadata, body, partNumber);
    const parts = (await this.retrieveParts(metadata.file.id)).filter((p) => p.PartNumber !== partNumber);
    parts.push({ PartNumber: partNumber, ETag: etag, Size: body.length });
    await uploads.writeParts(this.#db.kysely, uploadIdOf(metadata.file.id), JSON.stringify(parts));
    return etag;
  }

  override async write(src: Readable, id: string, offset: number): Promise<number> {
    const tracked = this.#digests.track(id, offset, src);
    try {
      const newOffset = await super.write(tracked.body, id, offset);
      tracked.done(newOffset);
      return newOffset;
    } catch (err) {
      tracked.done(undefined);
      throw err;
    }
  }

  /** The unfinished last part (under 5 MiB) is read into memory, not into a temporary file. */
  protected override async downloadIncompletePart(id: string): ReturnType<S3Store['downloadIncompletePart']> {
    const part = await this.getIncompletePart(id);
    if (part === undefined) return undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of part as AsyncIterable<Buffer>) chunks.push(chunk);
    const bytes = Buffer.concat(chunks);
    // MultiStream only reads it: any Readable serves.
    const createReader = (): ReadStream => Readable.from([bytes]) as unknown as ReadStream;
    return { size: bytes.length, path: '', createReader };
  }

  /**
   * Gathers each part in memory and sends it as it fills (one part per upload in memory, not a
   * temporary file per part); what is left at the end is the last part, or an incomplete part
   * kept for the next PATCH when it is under S3's 5 MiB minimum.
   */
  protected override async uploadParts(
    metadata: Parameters<S3Store['uploadParts']>[0],
    readStream: Readable,
    currentPartNumber: number,
    offset: number,
  ): Promise<number> {
    const size = metadata.file.size;
    const partSize = this.calcOptimalPartSize(size);
    let parts: Buffer[] = [];
    let length = 0;
    let uploaded = 0;
    let partNumber = currentPartNumber;
    let at = offset;
    const send = async (): Promise<void> => {
      const body = Buffer.concat(parts, length);
      parts = [];
      length = 0;
      at += body.length;
      if (body.length >= this.minPartSize || at === size) {
        await this.uploadPart(metadata, body, partNumber++);
      } else {
        // A Buffer, so the SDK sends its length (the declared type is narrower than what it takes).
        await this.uploadIncompletePart(metadata.file.id, body as unknown as Readable);
      }
      uploaded += body.length;
    };
    for await (const incoming of readStream as AsyncIterable<Buffer>) {
      let chunk = incoming;
      while (length + chunk.length >= partSize) {
        const take = partSize - length;
        parts.push(chunk.subarray(0, take));
        length += take;
        chunk = chunk.subarray(take);
        await send();
      }
      if (chunk.length > 0) {
        parts.push(chunk);
        length += chunk.length;
      }
    }
    if (length > 0) await send();
    return uploaded;
  }

  async forget(id: string): Promise<void> {
    await this.client.deleteObjects({
      Bucket: this.bucket,
      Delete: { Objects: [{ Key: this.infoKey(id) }, { Key: this.partKey(id, true) }] },
    });
    await this.clearCache(id);
  }

  /**
   * Aborts the multipart upload (its parts go) and deletes the object, its record and its
   * unfinished part. A server without AbortMultipartUpload (s3rver) keeps the parts, never visible
   * at any key: a bucket lifecycle rule for incomplete multipart uploads reclaims them, as for
   * the multipart path's failed uploads (storage/s3.ts).
   */
  async removeAll(id: string): Promise<void> {
    let uploadId: string | undefined;
    try {
      uploadId = (await this.getMetadata(id))['upload-id'];
    } catch (err) {
      if (!isS3Missing(err)) throw err;
    }
    if (uploadId !== undefined) {
      try {
        await this.client.abortMultipartUpload({ Bucket: this.bucket, Key: id, UploadId: uploadId });
      } catch (err) {
        if (!isS3Missing(err) && !isS3Unsupported(err)) throw err;
      }
    }
    await this.client.deleteObjects({
      Bucket: this.bucket,
      Delete: { Objects: [{ Key: id }, { Key: this.infoKey(id) }, { Key: this.partKey(id, true) }] },
    });
    await this.clearCache(id);
  }
}

export function createUploadStore(
  storage: MediaStorageConfig,
  media: MediaStorage,
  db: Db,
  expiryMs: number,
  digests: UploadDigests,
): UploadStore {
  if (storage.kind === 'local') {
    const store = new LedgerFileStore(storage.dir, db, expiryMs, digests);
    return {
      store,
      tusId: (key) => key,
      async removeUnfinished(key) {
        digests.forget(key);
        // Through the media storage, which also removes the folders it leaves empty.
        await media.delete(key);
        await store.configstore.delete(key);
      },
      async forgetCompleted(key) {
        await store.configstore.delete(key);
      },
    };
  }
  const base = storage.prefix === '' ? '' : `${storage.prefix}/`;
  const store = new InMemoryPartsS3Store(
    {
      partSize: 8 * 1024 * 1024,
      expirationPeriodInMilliseconds: expiryMs,
      // Expiry is the job queue's (tags are not supported by every S3-compatible server).
      useTags: false,
      s3ClientConfig: {
        bucket: storage.bucket,
        region: storage.region,
        forcePathStyle: storage.forcePathStyle,
        ...(storage.endpoint === undefined
          ? {}
          : {
              endpoint: storage.endpoint,
              requestChecksumCalculation: 'WHEN_REQUIRED' as const,
              responseChecksumValidation: 'WHEN_REQUIRED' as const,
            }),
        ...(storage.credentials === undefined ? {} : { credentials: storage.credentials }),
      },
    },
    db,
    digests,
  );
  const tusId = (key: string): string => base + key;
  return {
    store,
    tusId,
    async removeUnfinished(key) {
      digests.forget(tusId(key));
      await store.removeAll(tusId(key));
    },
    async forgetCompleted(key) {
      await store.forget(tusId(key));
    },
  };
}
