// Resumable uploads (docs/api.md §16): the rules around the tus server (uploads.routes.ts).
// An upload's bytes are written at their final storage key from the first byte, and owned by a
// media_cleanup row due when the upload expires (decisions/0002): the row is written with the
// upload's, before any byte. The last byte makes it a media row in one transaction that also
// removes that cleanup row, exactly as a multipart upload commits (media.commit.ts).
import path from 'node:path';
import { ERRORS } from '@tus/utils';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Deps } from '../../deps.ts';
import { AppError, notFound } from '../../errors.ts';
import { hasIdShape, newId } from '../../lib/ids.ts';
import type { Log } from '../../lib/log.ts';
import { withLocalFile } from '../../storage/local-file.ts';
import type { MediaStorage } from '../../storage/storage.ts';
import { findListing } from '../listings/listings.repository.ts';
import { commitMedia, type StoredFile } from '../media/media.commit.ts';
import type { Writes } from '../../mechanisms/writes/writes.ts';
import { cleanFilename, HEAD_BYTES, IngestStream, readDimensions, type Dimensions } from '../media/media.ingest.ts';
import type { MediaCleanup } from '../media/media.cleanup.ts';
import { mediaSerializer } from '../media/media.serializer.ts';
import { DatabaseLocker } from './uploads.lock.ts';
import * as uploads from './uploads.repository.ts';
import { createUploadStore, UploadDigests, type Digests } from './uploads.store.ts';

export type UploadRow = uploads.UploadRow;
export type UploadsService = ReturnType<typeof createUploadsService>;

/**
 * The bytes' cleanup row falls due this long after the upload expires: the expiry job (due at
 * expiry) goes first and removes the tus records and S3 parts with the bytes; the row is the
 * backstop should the job never run.
 */
const CLEANUP_GRACE_MS = 60 * 60_000;

/** The extension a sniffed type's file is named with when the upload named none. */
const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/tiff': 'tif',
  'image/heic': 'heic',
  'image/heif': 'heif',
  'image/avif': 'avif',
  'video/mp4': 'mp4',
  'video/quicktime': 'mov',
  'video/webm': 'webm',
  'application/pdf': 'pdf',
};

const discardAll = (): Writable =>
  new Writable({
    highWaterMark: 1024 * 1024,
    write(_chunk, _encoding, callback) {
      callback();
    },
  });

export const uploadKey = (accountId: string, listingId: string, uploadId: string): string =>
  `${accountId}/${listingId}/${uploadId}`;

export function createUploadsService({
  db,
  clock,
  config,
  writes,
  storage,
  cleanup,
}: Pick<Deps, 'db' | 'clock' | 'config'> & { writes: Writes; storage: MediaStorage; cleanup: MediaCleanup }) {
  const limits = config.media;
  const tmpDir = path.join(config.dataDir, 'tmp');
  const serialize = mediaSerializer(config.publicUrl);
  const digests = new UploadDigests();
  const tus = createUploadStore(limits.storage, storage, db, limits.uploadExpiryMs, digests);
  const locker = new DatabaseLocker(db, clock);

  /** Runs `work` holding the upload's lock (the tus server's, shared by every node). */
  async function locked<T>(row: UploadRow, work: () => Promise<T>): Promise<T> {
    const lock = locker.newLock(row.id);
    try {
      await lock.lock(new AbortController().signal, () => undefined);
    } catch (err) {
      if (err === ERRORS.FILE_NOT_FOUND) throw notFound('Upload');
      throw new AppError('conflict', 'Another request is writing this upload; retry once it has finished', undefined, {
        'retry-after': '1',
      });
    }
    try {
      return await work();
    } finally {
      await lock.unlock();
    }
  }

  /** Reads what the multipart path learns in its one pass: kind, digests (unless known), dimensions. */
  async function inspect(
    row: UploadRow,
    filename: string,
    known: Digests | undefined,
  ): Promise<Omit<StoredFile, 'id' | 'key' | 'filename'>> {
    const ingest = new IngestStream({ maxBytes: limits.maxFileBytes, filename });
    const source =
      row.length === 0
        ? Readable.from([])
        : await storage.get(
            row.storage_key,
            known === undefined ? undefined : { start: 0, end: Math.min(HEAD_BYTES, row.length) - 1 },
          );
    await pipeline(source, ingest, discardAll());
    const sniffed = ingest.sniffed;
    if (sniffed === undefined) throw new Error('upload inspected without a sniffed type');
    let dimensions: Dimensions | null = null;
    if (sniffed.kind === 'photo') {
      const dimensionLimits = { maxPixels: limits.maxImagePixels, filename };
      // A header unreadable even in the whole file leaves the photo without dimensions (docs/api.md §13).
      dimensions = await readDimensions(ingest.head, dimensionLimits);
      if (dimensions === null && row.length > HEAD_BYTES) {
        dimensions = await withLocalFile(storage, row.storage_key, tmpDir, (file) =>
          readDimensions(file, dimensionLimits),
        );
      }
    }
    const digest = known ?? { sha256: ingest.digest(), crc32: ingest.crc32 };
    return { sniffed, size: row.length, sha256: digest.sha256, crc32: digest.crc32, dimensions };
  }

  /** Bytes, tus records, cleanup row and upload row of an unfinished upload, in that order. */
  async function removeUnfinished(row: UploadRow): Promise<void> {
    await tus.removeUnfinished(row.storage_key);
    await writes.run(row.account_id, {}, async ({ trx }) => {
      await uploads.deleteUpload(trx, row.id);
      await cleanup.release(trx, [row.storage_key]);
    });
  }

  const service = {
    /** The tus data store and locker the routes hand to @tus/server. */
    store: tus.store,
    locker,
    tusId: (row: Pick<UploadRow, 'storage_key'>): string => tus.tusId(row.storage_key),

    /** The upload of this gallery in this account, or undefined (wrong shapes included). */
    async find(accountId: string, listingId: string, uploadId: string): Promise<UploadRow | undefined> {
      if (!hasIdShape('lst', listingId) || !hasIdShape('upl', uploadId)) return undefined;
      const row = await uploads.findUpload(db.kysely, accountId, listingId, uploadId);
      // A deleted gallery's uploads are gone with it, though the job has yet to remove their bytes.
      if (row === undefined || (await findListing(db.kysely, accountId, listingId)) === undefined) return undefined;
      return row;
    },

    async requireListing(accountId: string, listingId: string): Promise<void> {
      if (!hasIdShape('lst', listingId) || (await findListing(db.kysely, accountId, listingId)) === undefined) {
        throw notFound('Gallery');
      }
    },

    newUploadId: (): string => newId('upl'),

    /**
     * Records a new upload before any byte is stored: its row, the cleanup row owning its bytes
     * (due after it expires) and the job that removes it when it expires.
     */
    async begin(
      accountId: string,
      listingId: string,
      uploadId: string,
      length: number,
      filename: string | undefined,
    ): Promise<UploadRow> {
      await service.requireListing(accountId, listingId);
      const now = clock.iso();
      const expiresAt = clock.iso(limits.uploadExpiryMs);
      const row: UploadRow = {
        id: uploadId,
        account_id: accountId,
        listing_id: listingId,
        storage_key: uploadKey(accountId, listingId, uploadId),
        filename: filename === undefined ? null : cleanFilename(filename),
        length,
        info: null,
        parts: null,
        media_id: null,
        expires_at: expiresAt,
        lock_token: null,
        lock_until: null,
        release_wanted: 0,
        created_at: now,
      };
      await writes.run(accountId, { now }, async (w) => {
        await uploads.insertUpload(w.trx, row);
        await cleanup.lease([row.storage_key], limits.uploadExpiryMs + CLEANUP_GRACE_MS, w);
        w.enqueue({ kind: 'upload.expire', accountId, subjectId: uploadId, runAt: expiresAt });
      });
      return row;
    },

    /**
     * The last byte is stored: the checks of a multipart upload, then a media row at the end of
     * the gallery. Idempotent (a retried final PATCH, a HEAD after a crash): an upload becomes at
     * most one media row. A refused file (415, 413 pixels) is removed, bytes and all.
     */
    async complete(accountId: string, listingId: string, uploadId: string): Promise<string> {
      const first = await service.find(accountId, listingId, uploadId);
      if (first === undefined) throw notFound('Upload');
      if (first.media_id !== null) return first.media_id;
      return locked(first, async () => {
        const row = await service.find(accountId, listingId, uploadId);
        if (row === undefined) throw notFound('Upload');
        if (row.media_id !== null) return row.media_id;
        const known = digests.take(tus.tusId(row.storage_key), row.length);
        let inspected: Omit<StoredFile, 'id' | 'key' | 'filename'>;
        try {
          inspected = await inspect(row, row.filename ?? 'upload', known);
        } catch (err) {
          if (err instanceof AppError) await removeUnfinished(row);
          throw err;
        }
        const filename = row.filename ?? `upload.${EXTENSIONS[inspected.sniffed.contentType] ?? 'bin'}`;
        const file: StoredFile = { id: newId('med'), key: row.storage_key, filename, ...inspected };
        await writes.run(accountId, {}, (w) =>
          commitMedia(
            w,
            serialize,
            listingId,
            [file],
            async () => {
              if (!(await uploads.markCompleted(w.trx, row.id, file.id))) throw notFound('Upload');
              if ((await cleanup.release(w.trx, [row.storage_key])) !== 1) {
                throw new AppError('unavailable', 'The upload expired while it was completed; start it again');
              }
            },
            limits.analysis,
          ),
        );
        return file.id;
      });
    },

    /** DELETE: an unfinished upload is abandoned (bytes and all); a completed one is media now. */
    async terminate(row: UploadRow): Promise<void> {
      if (row.media_id !== null) {
        throw new AppError(
          'conflict',
          `This upload is complete: it is media ${row.media_id}; delete that media to remove its bytes`,
        );
      }
      await locked(row, () => removeUnfinished(row));
    },

    /**
     * The expiry job: an expired upload, or one whose gallery is gone, is removed; a completed
     * one keeps its bytes (they are media) and loses its records. False when it is not due yet.
     */
    async expire(uploadId: string, log?: Log): Promise<boolean> {
      const row = await uploads.findUploadById(db.kysely, uploadId);
      if (row === undefined) return true;
      const galleryGone = (await findListing(db.kysely, row.account_id, row.listing_id)) === undefined;
      if (!galleryGone && row.expires_at > clock.iso()) return false;
      try {
        await locked(row, async () => {
          if (row.media_id === null) {
            await removeUnfinished(row);
          } else {
            await tus.forgetCompleted(row.storage_key);
            await writes.run(row.account_id, {}, ({ trx }) => uploads.deleteUpload(trx, row.id));
          }
        });
      } catch (err) {
        if (err instanceof AppError && err.code === 'not_found') return true;
        // Gone while the lock was awaited.
        if ((await uploads.findUploadById(db.kysely, uploadId)) === undefined) return true;
        throw err;
      }
      log?.info({ upload_id: uploadId, completed: row.media_id !== null }, 'resumable upload expired');
      return true;
    },
  };
  return service;
}
