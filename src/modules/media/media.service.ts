// Gallery media: section 6 of the contract. Uploads are all or nothing: bytes are streamed to
// storage under a lease (a cleanup row), and the media rows replace the leases in one
// transaction only once every file of the request is stored.
import path from 'node:path';
import { finished, type Readable } from 'node:stream';
import type { Deps } from '../../deps.ts';
import { AppError, notFound } from '../../errors.ts';
import { hasIdShape, newId } from '../../lib/ids.ts';
import { wholeList, type Page } from '../../lib/pagination.ts';
import { withLocalFile } from '../../storage/local-file.ts';
import type { ByteRange, MediaStorage } from '../../storage/storage.ts';
import { findListing } from '../listings/listings.repository.ts';
import type { MediaCleanup } from './media.cleanup.ts';
import {
  cleanFilename,
  HEAD_BYTES,
  IngestStream,
  readDimensions,
  type Dimensions,
  type Sniffed,
} from './media.ingest.ts';
import type { MediaType } from './media.schemas.ts';
import { addCounts } from '../counts/counts.repository.ts';
import * as repo from './media.repository.ts';
import type { Log } from '../../lib/log.ts';

/** An upload's bytes are deleted by the sweep if their request has not committed by then. */
const LEASE_MS = 2 * 60_000;
const HEARTBEAT_MS = 30_000;

/**
 * The multipart parser's own faults (a body cut short, no boundary) are plain errors: they are
 * the client's (400), not ours (500). Errors that already carry a status are left as they are.
 */
export function asClientFault<T>(err: T): T | AppError {
  if (err instanceof AppError || !(err instanceof Error) || 'statusCode' in err) return err;
  return new AppError('validation_error', 'The multipart/form-data body is malformed or incomplete', [
    { field: 'files', message: err.message },
  ]);
}

export interface IncomingFile {
  filename: string | undefined;
  /** The part's bytes; may emit 'limit' when the multipart parser's own size limit is hit. */
  stream: Readable;
}

interface StoredFile {
  id: string;
  key: string;
  filename: string;
  sniffed: Sniffed;
  size: number;
  sha256: string;
  dimensions: Dimensions | null;
}

export type MediaService = ReturnType<typeof createMediaService>;

export function createMediaService({
  db,
  clock,
  config,
  storage,
  cleanup,
}: Pick<Deps, 'db' | 'clock' | 'config'> & { storage: MediaStorage; cleanup: MediaCleanup }) {
  const limits = config.media;
  const tmpDir = path.join(config.dataDir, 'tmp');

  const toMedia = (row: repo.MediaRow): MediaType => ({
    id: row.id,
    listing_id: row.listing_id,
    kind: row.kind,
    filename: row.filename,
    content_type: row.content_type,
    size: row.size,
    sha256: row.sha256,
    width: row.width,
    height: row.height,
    position: row.position,
    created_at: row.created_at,
    content_url: `${config.publicUrl}/v1/listings/${row.listing_id}/media/${row.id}/content`,
  });

  async function requireListing(accountId: string, listingId: string): Promise<void> {
    if (!hasIdShape('lst', listingId) || (await findListing(db.kysely, accountId, listingId)) === undefined) {
      throw notFound('Gallery');
    }
  }

  async function record(accountId: string, listingId: string, mediaId: string): Promise<repo.MediaRow> {
    const row =
      hasIdShape('lst', listingId) && hasIdShape('med', mediaId)
        ? await repo.findMedia(db.kysely, accountId, listingId, mediaId)
        : undefined;
    if (row === undefined) throw notFound('Media');
    return row;
  }

  async function store(key: string, file: IncomingFile): Promise<Omit<StoredFile, 'id' | 'key'>> {
    const filename = cleanFilename(file.filename);
    const ingest = new IngestStream({ maxBytes: limits.maxFileBytes, filename });
    // Its errors reach us through storage.put's promise; a late second emission (after the
    // storage pipeline has let go) must not crash the process.
    ingest.on('error', () => undefined);
    file.stream.on('limit', () => ingest.destroy(ingest.tooLarge()));
    // finished() also reports a part that broke before this point (the body ended or the client
    // went while the lease was written), which an 'error' listener added now would never hear.
    finished(file.stream, (err) => {
      if (err) ingest.destroy(asClientFault(err));
    });
    file.stream.pipe(ingest);
    try {
      await storage.put(key, ingest, { contentType: 'application/octet-stream' });
    } catch (err) {
      // Stop feeding this part; the request is refused as a whole and its connection closed.
      file.stream.unpipe(ingest);
      throw err;
    }
    const sniffed = ingest.sniffed;
    if (sniffed === undefined) throw new Error('upload stored without a sniffed type');
    let dimensions: Dimensions | null = null;
    if (sniffed.kind === 'photo') {
      const dimensionLimits = { maxPixels: limits.maxImagePixels, filename };
      // The kept head is enough for most photos; only when it is not is the stored file read.
      dimensions = await readDimensions(ingest.head, ingest.bytesSeen <= HEAD_BYTES, dimensionLimits);
      dimensions ??= await withLocalFile(storage, key, tmpDir, (file) => readDimensions(file, true, dimensionLimits));
    }
    return { filename, sniffed, size: ingest.bytesSeen, sha256: ingest.digest(), dimensions };
  }

  /** Deletes what a failed upload stored; rows of bytes that would not go stay due for the sweep. */
  async function discard(keys: string[], log?: Log): Promise<void> {
    const results = await Promise.allSettled(keys.map((key) => storage.delete(key)));
    const gone = keys.filter((_, i) => results[i]?.status === 'fulfilled');
    const stuck = keys.filter((_, i) => results[i]?.status === 'rejected');
    try {
      await repo.cancelCleanup(db.kysely, gone);
      await repo.extendCleanup(db.kysely, stuck, clock.iso());
    } catch (err) {
      log?.warn({ err }, 'could not update the media cleanup ledger; the sweep will catch up');
    }
  }

  return {
    async upload(
      accountId: string,
      listingId: string,
      files: AsyncIterable<IncomingFile>,
      log?: Log,
    ): Promise<MediaType[]> {
      await requireListing(accountId, listingId);
      const keys: string[] = [];
      const stored: StoredFile[] = [];
      const heartbeat = setInterval(() => {
        repo.extendCleanup(db.kysely, keys, clock.iso(LEASE_MS)).catch((err: unknown) => {
          log?.warn({ err }, 'could not extend upload leases');
        });
      }, HEARTBEAT_MS);
      heartbeat.unref();
      try {
        for await (const file of files) {
          if (stored.length >= limits.maxFiles) {
            throw new AppError('payload_too_large', `At most ${limits.maxFiles} files per request`);
          }
          const id = newId('med');
          const key = `${accountId}/${listingId}/${id}`;
          // The lease is written before any byte, so no stored byte is ever unaccounted for.
          await repo.scheduleCleanup(db.kysely, [key], clock.iso(LEASE_MS), clock.iso());
          keys.push(key);
          stored.push({ id, key, ...(await store(key, file)) });
        }
        if (stored.length === 0) {
          throw new AppError('validation_error', 'Send one or more files as multipart/form-data parts', [
            { field: 'files', message: 'at least one file part is required' },
          ]);
        }
        const now = clock.iso();
        const rows = await db.kysely.transaction().execute(async (trx) => {
          const last = await repo.reservePositions(trx, accountId, listingId, stored.length, now);
          if (last === undefined) throw notFound('Gallery');
          if ((await repo.cancelCleanup(trx, keys)) !== keys.length) {
            // The sweep took bytes whose lease ran out (the upload stalled): never commit rows without bytes.
            throw new AppError('unavailable', 'The upload took too long to complete; retry it');
          }
          const first = last - stored.length + 1;
          const inserted = stored.map((file, i) => ({
            id: file.id,
            account_id: accountId,
            listing_id: listingId,
            kind: file.sniffed.kind,
            filename: file.filename,
            content_type: file.sniffed.contentType,
            size: file.size,
            sha256: file.sha256,
            width: file.dimensions?.width ?? null,
            height: file.dimensions?.height ?? null,
            position: first + i,
            storage_key: file.key,
            created_at: now,
          }));
          await repo.insertMedia(trx, inserted);
          await addCounts(trx, accountId, { media: inserted.length });
          return inserted;
        });
        return rows.map(toMedia);
      } catch (err) {
        await discard(keys, log);
        throw err;
      } finally {
        clearInterval(heartbeat);
      }
    },

    async list(accountId: string, listingId: string): Promise<Page<MediaType>> {
      await requireListing(accountId, listingId);
      return wholeList((await repo.listMedia(db.kysely, accountId, listingId)).map(toMedia));
    },

    async get(accountId: string, listingId: string, mediaId: string): Promise<MediaType> {
      return toMedia(await record(accountId, listingId, mediaId));
    },

    /** The stored record, for serving its bytes. */
    record,

    open(row: repo.MediaRow, range?: ByteRange): Promise<Readable> {
      return storage.get(row.storage_key, range);
    },

    async remove(accountId: string, listingId: string, mediaId: string, log?: Log): Promise<void> {
      const row = await record(accountId, listingId, mediaId);
      await db.kysely.transaction().execute(async (trx) => {
        if (!(await repo.deleteMedia(trx, accountId, listingId, mediaId))) throw notFound('Media');
        await repo.uncountMedia(trx, accountId, listingId, clock.iso());
        await cleanup.scheduleNow(trx, [row.storage_key]);
        await addCounts(trx, accountId, { media: -1 });
      });
      await cleanup.afterDelete([row.storage_key], log);
    },
  };
}
