// Over 400 lines on purpose: the upload's lease, storage and row steps form one transaction story that reads best in one file.
// Gallery media: docs/api.md §6. Uploads are all or nothing: bytes are streamed to
// storage under a lease (a cleanup row), and the media rows replace the leases in one
// transaction only once every file of the request is stored.
import path from 'node:path';
import { finished, type Readable } from 'node:stream';
import type { Deps } from '../../deps.ts';
import { AppError, notFound, type ErrorDetail } from '../../errors.ts';
import { hasIdShape, newId } from '../../lib/ids.ts';
import { wholeList, type WholePage } from '../../lib/pagination.ts';
import { systemResolver, type Resolver } from '../../outbound/address.ts';
import { openUrl } from './media.from-url.ts';
import { withLocalFile } from '../../storage/local-file.ts';
import type { ByteRange, MediaStorage, StoredReader } from '../../storage/storage.ts';
import { findListing } from '../listings/listings.repository.ts';
import type { MediaCleanup } from './media.cleanup.ts';
import { cleanFilename, HEAD_BYTES, IngestStream, readDimensions, type Dimensions } from './media.ingest.ts';
import { VARIANT_NAMES, type MediaType, type MediaUpdateInput } from './media.schemas.ts';
import { mediaSerializer, variantsByMedia, type MediaSerializer } from './media.serializer.ts';
import type { Write, Writes } from '../../mechanisms/writes/writes.ts';
import type { Executor } from '../../db/executor.ts';
import * as repo from './media.repository.ts';
import { commitMedia, type StoredFile } from './media.commit.ts';
import { pageCovers } from './media.covers.ts';
import type { Log } from '../../lib/log.ts';
import { checkStaging, clearOriginals, queueRelabel, stagingFields } from './media.staging.ts';

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

// eslint-disable-next-line @typescript-eslint/require-await -- an async iterable of the one file
async function* oneFile(file: IncomingFile): AsyncGenerator<IncomingFile> {
  yield file;
}

// The media is a resource of the unit of work: its writes announce it by id, and the unit of work
// loads it through loadMedia (registered in src/services.ts), as its GET does.
declare module '../../mechanisms/writes/writes.ts' {
  interface Resources {
    media: MediaType;
  }
}

/** The media object of a row just read in `trx`, as its GET builds it (a document has no variants). */
const mediaOfRow = async (trx: Executor, serialize: MediaSerializer, row: repo.MediaRow): Promise<MediaType> =>
  serialize(row, row.variants_status === null ? [] : await repo.variantsOfMedia(trx, row.id));

/**
 * The media object as its GET returns it now, read in `trx` (a transaction, for a write's event);
 * undefined when the account has no such media.
 */
export async function loadMedia(
  trx: Executor,
  serialize: MediaSerializer,
  accountId: string,
  id: string,
): Promise<MediaType | undefined> {
  const row = await repo.findMediaOfAccount(trx, accountId, id);
  return row === undefined ? undefined : mediaOfRow(trx, serialize, row);
}

export type MediaService = ReturnType<typeof createMediaService>;

import type { VisibleMedia } from './media.repository.ts';
export type { VisibleMedia };

export function createMediaService({
  db,
  config,
  writes,
  storage,
  cleanup,
  resolve,
}: Pick<Deps, 'db' | 'config'> & {
  writes: Writes;
  storage: MediaStorage;
  cleanup: MediaCleanup;
  resolve?: Resolver;
}) {
  const limits = config.media;
  const tmpDir = path.join(config.dataDir, 'tmp');

  const serialize = mediaSerializer(config.publicUrl);
  const toMedia = (row: repo.MediaRow): Promise<MediaType> => mediaOfRow(db.kysely, serialize, row);

  /** Each media's position now (to tell which ones a change moved). */
  async function positionsOf(trx: Executor, accountId: string, listingId: string): Promise<Map<string, number>> {
    const order = await repo.mediaOrder(trx, accountId, listingId);
    return new Map(order.map((id, i) => [id, i + 1]));
  }

  /**
   * Announces media.updated for each changed media, by id: each object was just built (listOf, the
   * GET's serializer) after the write's last change of it, so it is handed over, not read again.
   */
  function announce(w: Write, changed: MediaType[]): void {
    for (const object of changed) {
      w.loaded('media', object.id, object);
      w.announce('media.updated', object.id);
    }
  }

  async function listOf(trx: Executor, accountId: string, listingId: string): Promise<MediaType[]> {
    const [rows, variants] = await Promise.all([
      repo.listMedia(trx, accountId, listingId),
      repo.variantsOfGallery(trx, accountId, listingId),
    ]);
    const byMedia = variantsByMedia(variants);
    return rows.map((row) => serialize(row, byMedia.get(row.id) ?? []));
  }

  async function requireListing(accountId: string, listingId: string): Promise<void> {
    if (!hasIdShape('lst', listingId) || (await findListing(db.kysely, accountId, listingId)) === undefined) {
      throw notFound('Gallery');
    }
  }

  /** The gallery's media of `ids`, in position order; not found unless every one is the gallery's. */
  async function selected(
    trx: Executor,
    accountId: string,
    listingId: string,
    ids: readonly string[],
  ): Promise<repo.MediaRow[]> {
    const rows = ids.every((id) => hasIdShape('med', id)) ? await repo.mediaOfIds(trx, accountId, listingId, ids) : [];
    if (ids.length === 0 || rows.length !== ids.length) throw notFound('Media');
    return rows;
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
      // A header unreadable even in the whole file leaves the photo without dimensions (docs/api.md §13).
      dimensions = await readDimensions(ingest.head, dimensionLimits);
      if (dimensions === null && ingest.bytesSeen > HEAD_BYTES) {
        dimensions = await withLocalFile(storage, key, tmpDir, (file) => readDimensions(file, dimensionLimits));
      }
    }
    return { filename, sniffed, size: ingest.bytesSeen, sha256: ingest.digest(), crc32: ingest.crc32, dimensions };
  }

  /** Deletes what a failed upload stored; rows of bytes that would not go stay due for the sweep. */
  async function discard(keys: string[], log?: Log): Promise<void> {
    const results = await Promise.allSettled(keys.map((key) => storage.delete(key)));
    const gone = keys.filter((_, i) => results[i]?.status === 'fulfilled');
    const stuck = keys.filter((_, i) => results[i]?.status === 'rejected');
    try {
      await cleanup.release(db.kysely, gone);
      await cleanup.dueNow(stuck);
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
        cleanup.extendLease(keys, LEASE_MS).catch((err: unknown) => {
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
          await cleanup.lease([key], LEASE_MS);
          keys.push(key);
          stored.push({ id, key, ...(await store(key, file)) });
        }
        if (stored.length === 0) {
          throw new AppError('validation_error', 'Send one or more files as multipart/form-data parts', [
            { field: 'files', message: 'at least one file part is required' },
          ]);
        }
        return await writes.run(accountId, {}, (w) =>
          commitMedia(
            w,
            serialize,
            listingId,
            stored,
            async () => {
              if ((await cleanup.release(w.trx, keys)) !== keys.length) {
                // The sweep took bytes whose lease ran out (the upload stalled): never commit rows without bytes.
                throw new AppError('unavailable', 'The upload took too long to complete; retry it');
              }
            },
            limits.analysis,
          ),
        );
      } catch (err) {
        await discard(keys, log);
        throw err;
      } finally {
        clearInterval(heartbeat);
      }
    },

    /**
     * Media from a URL (docs/api.md §21): the fetched file goes through `upload` as its one file, so
     * it is sniffed, limited, committed, announced and given variants as a multipart upload is,
     * and on any failure nothing is kept (the cleanup ledger holds its bytes until commit).
     */
    async uploadFromUrl(
      accountId: string,
      listingId: string,
      input: { url: string; filename?: string | undefined },
      log?: Log,
    ): Promise<MediaType[]> {
      await requireListing(accountId, listingId);
      const file = await openUrl(input.url, input.filename, {
        account: accountId,
        allowPrivate: config.webhooks.allowPrivate,
        resolve: resolve ?? systemResolver,
        maxBytes: limits.maxFileBytes,
      });
      try {
        return await this.upload(accountId, listingId, oneFile(file), log);
      } finally {
        file.stream.destroy();
      }
    },

    async list(accountId: string, listingId: string): Promise<WholePage<MediaType>> {
      await requireListing(accountId, listingId);
      return wholeList(await listOf(db.kysely, accountId, listingId));
    },

    async get(accountId: string, listingId: string, mediaId: string): Promise<MediaType> {
      return toMedia(await record(accountId, listingId, mediaId));
    },

    /** Changes a caption, hides or shows, or moves to another position (the media between shift). */
    async update(accountId: string, listingId: string, mediaId: string, patch: MediaUpdateInput): Promise<MediaType> {
      await record(accountId, listingId, mediaId);
      return writes.run(accountId, { lock: { listing: listingId } }, async (w) => {
        const { trx, listing: gallery } = w;
        const row = gallery === undefined ? undefined : await repo.findMedia(trx, accountId, listingId, mediaId);
        if (gallery === undefined || row === undefined) throw notFound('Media');
        const before = await positionsOf(trx, accountId, listingId);
        if (patch.position !== undefined) {
          if (patch.position > gallery.media_count) {
            throw new AppError('validation_error', `position must be between 1 and ${gallery.media_count}`, [
              { field: 'position', message: `must be between 1 and ${gallery.media_count} (the gallery's media)` },
            ]);
          }
          await repo.movePosition(trx, listingId, mediaId, row.position, patch.position);
        }
        await checkStaging(trx, accountId, listingId, row, patch);
        await repo.updateMediaFields(trx, accountId, listingId, mediaId, {
          ...(patch.caption === undefined ? {} : { caption: patch.caption }),
          ...(patch.hidden === undefined ? {} : { hidden: patch.hidden ? 1 : 0 }),
          ...stagingFields(patch),
        });
        await queueRelabel(w, row, patch);
        const after = await listOf(trx, accountId, listingId);
        const updated = after.find((m) => m.id === mediaId);
        if (updated === undefined) throw notFound('Media');
        // The media changed, and so did every media a move shifted: each is announced as it is now.
        const changed = after.filter((m) => m.id === mediaId || (before.get(m.id) ?? m.position) !== m.position);
        announce(w, changed);
        return updated;
      });
    },

    /** Puts the gallery's media in the given order: every media id exactly once. */
    async reorder(accountId: string, listingId: string, order: readonly string[]): Promise<WholePage<MediaType>> {
      await requireListing(accountId, listingId);
      return writes.run(accountId, { lock: { listing: listingId } }, async (w) => {
        const { trx } = w;
        if (w.listing === undefined) throw notFound('Gallery');
        const current = await repo.mediaOrder(trx, accountId, listingId);
        const problems = permutationProblems(current, order);
        const first = problems[0];
        if (first !== undefined) {
          throw new AppError(
            'validation_error',
            `${first.field} ${first.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`,
            problems,
          );
        }
        const before = await positionsOf(trx, accountId, listingId);
        await repo.setPositions(trx, listingId, order);
        const after = await listOf(trx, accountId, listingId);
        announce(
          w,
          after.filter((m) => before.get(m.id) !== m.position),
        );
        return wholeList(after);
      });
    },

    /**
     * Hides or shows several media of the gallery at once (the dashboard's selection): every one
     * of them, or none when one is not the gallery's. Returns how many changed.
     */
    async setHidden(accountId: string, listingId: string, ids: readonly string[], hidden: boolean): Promise<number> {
      await requireListing(accountId, listingId);
      const wanted = [...new Set(ids)];
      return writes.run(accountId, { lock: { listing: listingId } }, async (w) => {
        const { trx } = w;
        if (w.listing === undefined) throw notFound('Gallery');
        const rows = await selected(trx, accountId, listingId, wanted);
        const changing = rows.filter((r) => (r.hidden === 1) !== hidden).map((r) => r.id);
        await repo.setHidden(trx, accountId, listingId, changing, hidden);
        const changed = new Set(changing);
        announce(
          w,
          (await listOf(trx, accountId, listingId)).filter((m) => changed.has(m.id)),
        );
        return changing.length;
      });
    },

    /**
     * Deletes several media of the gallery in one write (the dashboard's selection): all of them,
     * or none when one is not the gallery's. The gallery's lock is held, as a gallery's deletion
     * holds it: a photo's variants are recorded under it too, so every one is read here and
     * scheduled for removal with its original.
     */
    async removeMany(accountId: string, listingId: string, ids: readonly string[], log?: Log): Promise<number> {
      await requireListing(accountId, listingId);
      const wanted = [...new Set(ids)];
      return writes.run(accountId, { lock: { listing: listingId } }, async (w) => {
        const { trx, listing: gallery } = w;
        if (gallery === undefined) throw notFound('Gallery');
        const owned: string[] = [];
        const rows = await selected(trx, accountId, listingId, wanted);
        const before = await positionsOf(trx, accountId, listingId);
        // From the last: each gap closes behind the ones still to delete, whose positions hold.
        for (const row of [...rows].reverse()) {
          owned.push(row.storage_key, ...(await repo.variantsOfMedia(trx, row.id)).map((v) => v.storage_key));
          if (!(await repo.deleteMedia(trx, accountId, listingId, row.id))) throw notFound('Media');
          await repo.closeGap(trx, accountId, listingId, row, w.now);
        }
        await cleanup.scheduleNow(trx, owned);
        // docs/api.md §31: a staged photo whose original went names none now.
        const unpaired = new Set(await clearOriginals(trx, accountId, listingId, wanted));
        const shifted = (await listOf(trx, accountId, listingId)).filter(movedOr(before, unpaired));
        for (const row of rows) w.announce('media.deleted', row.id);
        announce(w, shifted);
        if (gallery.cover_media_id !== null && wanted.includes(gallery.cover_media_id)) {
          w.announce('listing.updated', listingId);
        }
        w.count({ media: -rows.length });
        w.afterCommit(() => cleanup.afterDelete(owned, log));
        return rows.length;
      });
    },

    /** The stored record, for serving its bytes. */
    record,

    open(row: repo.MediaRow, range?: ByteRange): Promise<Readable> {
      return storage.get(row.storage_key, range);
    },

    /** The original read into the caller's buffers, where storage can (local files); else undefined: use open(). */
    openReader(row: repo.MediaRow): Promise<StoredReader> | undefined {
      return storage.openReader?.(row.storage_key);
    },

    /**
     * What the client of a gallery may see (docs/api.md §14): its visible media in position order, each
     * with its ready variants. Hidden media are never included.
     */
    async visible(accountId: string, listingId: string): Promise<VisibleMedia[]> {
      const [rows, variants] = await Promise.all([
        repo.listMedia(db.kysely, accountId, listingId),
        repo.variantsOfGallery(db.kysely, accountId, listingId),
      ]);
      const byMedia = variantsByMedia(variants);
      return rows
        .filter((row) => row.hidden === 0)
        .map((row) => ({ row, variants: row.variants_status === 'ready' ? (byMedia.get(row.id) ?? []) : [] }));
    },

    /**
     * The cover each of these galleries shows, by gallery id (media.covers.ts); a gallery without
     * one is not in the map. docs/api.md §28: the client's portal shows a page of them.
     */
    async covers(accountId: string, listingIds: readonly string[]): Promise<Map<string, VisibleMedia>> {
      return pageCovers(db.kysely, accountId, listingIds);
    },

    /** A ready variant's record, for serving its bytes; 404 while pending or failed. */
    async variant(accountId: string, listingId: string, mediaId: string, name: string): Promise<repo.VariantRow> {
      const row = await record(accountId, listingId, mediaId);
      const variant =
        row.variants_status === 'ready' && (VARIANT_NAMES as readonly string[]).includes(name)
          ? (await repo.variantsOfMedia(db.kysely, row.id)).find((v) => v.name === name)
          : undefined;
      if (variant === undefined) throw new AppError('not_found', 'No such variant, or it is not ready yet');
      return variant;
    },

    openVariant(variant: repo.VariantRow, range?: ByteRange): Promise<Readable> {
      return storage.get(variant.storage_key, range);
    },

    async remove(accountId: string, listingId: string, mediaId: string, log?: Log): Promise<void> {
      await record(accountId, listingId, mediaId);
      await writes.run(accountId, { lock: { listing: listingId, media: mediaId } }, async (w) => {
        const { trx, listing: gallery, media: row } = w;
        if (row === undefined) throw notFound('Media');
        // The variants' rows go with the media row (ON DELETE CASCADE); their bytes with the original's.
        const owned = [row.storage_key, ...(await repo.variantsOfMedia(trx, row.id)).map((v) => v.storage_key)];
        const before = await positionsOf(trx, accountId, listingId);
        if (!(await repo.deleteMedia(trx, accountId, listingId, mediaId))) throw notFound('Media');
        await repo.closeGap(trx, accountId, listingId, row, w.now);
        await cleanup.scheduleNow(trx, owned);
        // docs/api.md §31: a staged photo whose original this was names none now.
        const unpaired = new Set(await clearOriginals(trx, accountId, listingId, [mediaId]));
        // Announced: the deletion, every media whose position closed the gap or lost its original,
        // and the gallery if this photo was its cover (now null).
        const shifted = (await listOf(trx, accountId, listingId)).filter(movedOr(before, unpaired));
        w.announce('media.deleted', mediaId);
        announce(w, shifted);
        if (gallery?.cover_media_id === mediaId) w.announce('listing.updated', listingId);
        w.count({ media: -1 });
        w.afterCommit(() => cleanup.afterDelete(owned, log));
      });
    },
  };
}

/** Media whose position is not the one in `before`, or that are among `also` (docs/api.md §31: unpaired). */
const movedOr = (before: Map<string, number>, also: ReadonlySet<string>) => (m: MediaType) =>
  before.get(m.id) !== m.position || also.has(m.id);

/** What is wrong with `order` as a permutation of `current`: missing, repeated and foreign ids. */
function permutationProblems(current: readonly string[], order: readonly string[]): ErrorDetail[] {
  const known = new Set(current);
  const seen = new Set<string>();
  const problems: ErrorDetail[] = [];
  for (const [i, id] of order.entries()) {
    if (!known.has(id)) problems.push({ field: `media_ids.${i}`, message: `${id} is not a media of this gallery` });
    else if (seen.has(id)) problems.push({ field: `media_ids.${i}`, message: `repeats ${id}` });
    seen.add(id);
  }
  for (const id of current) {
    if (!seen.has(id)) problems.push({ field: 'media_ids', message: `is missing ${id}` });
  }
  return problems;
}
