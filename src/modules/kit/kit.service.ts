// docs/api.md §32: the listing kit. GET reads it, POST asks for a build (a durable `listing.kit`
// job on the one queue, kit.job.ts), and the unit of work tells `kitReaction` of every write's
// events: once built, a change to the gallery's facts, photos, order, captions or cover (anything
// its fingerprint covers) makes the kit `stale` and schedules a rebuild KIT_REBUILD_DELAY_SECONDS
// later, as a job due then (changes meanwhile join it), in the transaction of the change.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Deps } from '../../deps.ts';
import type { Executor } from '../../db/executor.ts';
import type { KitItemName } from '../../db/schema-kit.ts';
import { AppError, notFound } from '../../errors.ts';
import { hasIdShape } from '../../lib/ids.ts';
import { pendingJob } from '../../mechanisms/queue/queue.ts';
import type { Reaction, Write, Writes } from '../../mechanisms/writes/writes.ts';
import type { ByteRange } from '../../storage/storage.ts';
import * as repo from './kit.repository.ts';
import type { KitType } from './kit.schemas.ts';
import { kitItemEtag, kitItemFileName, serializeKit } from './kit.serializer.ts';

declare module '../../mechanisms/writes/writes.ts' {
  interface Resources {
    kit: KitType;
  }
}

/** The kit as GET returns it (the unit of work's loader of `listing.kit_ready`); undefined: no such gallery. */
export async function loadKit(
  trx: Executor,
  publicUrl: string,
  accountId: string,
  listingId: string,
): Promise<KitType | undefined> {
  const listing = await trx
    .selectFrom('listings')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', listingId)
    .executeTakeFirst();
  if (listing === undefined) return undefined;
  const kit = await repo.findKit(trx, accountId, listingId);
  const items = kit === undefined ? [] : await repo.findItems(trx, accountId, listingId);
  return serializeKit(publicUrl, listingId, kit, items);
}

/**
 * What a build is made from, as one hash: the facts, the visible photos in order with their
 * captions, alt text, rooms and readiness, the cover, and the branded page (the flyer's QR code).
 * Undefined when the gallery is gone.
 */
export async function kitFingerprint(db: Executor, accountId: string, listingId: string): Promise<string | undefined> {
  const listing = await repo.findListingForKit(db, accountId, listingId);
  if (listing === undefined) return undefined;
  const photos = await repo.visiblePhotos(db, accountId, listingId);
  const page = await repo.pageTokens(db, accountId, listingId);
  const facts = [
    listing.address,
    listing.beds,
    listing.baths,
    listing.sqft,
    listing.description,
    listing.mls_number,
    listing.mls_profile_id,
  ];
  const shown = photos.map((p) => [p.id, p.caption, p.alt_text, p.analysis_room, p.variants_status]);
  return createHash('sha256')
    .update(JSON.stringify([facts, listing.cover_media_id, shown, page?.token ?? null, page?.unbranded_token ?? null]))
    .digest('base64url')
    .slice(0, 32);
}

/** The timestamp `ms` after `now` (both stored timestamps). */
const later = (now: string, ms: number): string => new Date(Date.parse(now) + ms).toISOString();

/** In the write `w`: a rebuild of the kit is due `delayMs` from now, unless one is already queued. */
export async function scheduleRebuild(w: Write, listingId: string, delayMs: number): Promise<void> {
  const queued = await pendingJob(w.trx, 'listing.kit', listingId);
  if (queued !== undefined && queued.lease === null) return;
  w.enqueue({ kind: 'listing.kit', accountId: w.accountId, subjectId: listingId, runAt: later(w.now, delayMs) });
}

/** The galleries a write's events are about (the gallery it locked counts too: a media deletion). */
function galleriesOf(w: Write, events: readonly { type: string; object: unknown }[]): Set<string> {
  const ids = new Set<string>();
  for (const e of events) {
    if (e.type === 'listing.kit_ready' || e.type === 'listing.deleted') continue;
    const object = e.object as { id?: unknown; listing_id?: unknown };
    if (e.type.startsWith('listing.') && typeof object.id === 'string') ids.add(object.id);
    if (e.type.startsWith('media.') && typeof object.listing_id === 'string') ids.add(object.listing_id);
  }
  if (events.length > 0 && w.listing !== undefined) ids.add(w.listing.id);
  return ids;
}

/**
 * The unit of work's reaction (src/services.ts): a built (or failed) kit whose gallery this write
 * changed in what the kit shows goes `stale`, and its rebuild is scheduled, in the same transaction.
 * A kit being built is left alone: its build compares the fingerprint again when it ends.
 */
export function kitReaction(delayMs: number): Reaction {
  return async (w, events) => {
    const ids = galleriesOf(w, events);
    if (ids.size === 0) return [];
    const kits = await repo.kitsOf(w.trx, w.accountId, [...ids]);
    for (const kit of kits) {
      if (kit.status !== 'ready' && kit.status !== 'failed') continue;
      const now = await kitFingerprint(w.trx, kit.account_id, kit.listing_id);
      if (now === undefined || now === kit.fingerprint) continue;
      await repo.setStatus(w.trx, kit.listing_id, 'stale', w.now);
      await scheduleRebuild(w, kit.listing_id, delayMs);
    }
    // Staleness is no event of its own: GET shows it, and `listing.kit_ready` comes with the rebuild.
    return [];
  };
}

export type KitService = ReturnType<typeof createKitService>;

/** A kit item's bytes, ready to send (src/http/send-bytes.ts). */
export interface KitFile {
  etag: string;
  size: number;
  contentType: string;
  filename: string;
  open(range?: ByteRange): Promise<Readable>;
}

export function createKitService({
  db,
  config,
  storage,
  writes,
}: Pick<Deps, 'db' | 'config' | 'storage'> & { writes: Writes }) {
  const { publicUrl } = config;
  return {
    async get(accountId: string, listingId: string): Promise<KitType> {
      if (!hasIdShape('lst', listingId)) throw notFound('Gallery');
      const kit = await loadKit(db.kysely, publicUrl, accountId, listingId);
      if (kit === undefined) throw notFound('Gallery');
      return kit;
    },

    /** Builds or rebuilds it in the background: 409 unless the gallery is active with a ready photo. */
    async build(accountId: string, listingId: string): Promise<KitType> {
      if (!hasIdShape('lst', listingId)) throw notFound('Gallery');
      return writes.run(accountId, { lock: { listing: listingId } }, async (w) => {
        const listing = w.listing;
        if (listing === undefined) throw notFound('Gallery');
        if (listing.status !== 'active') {
          throw new AppError('conflict', `This gallery is ${listing.status}: only an active gallery's kit is built`);
        }
        if (!(await repo.hasReadyPhoto(w.trx, accountId, listing.id))) {
          throw new AppError('conflict', 'This gallery has no ready photo yet: a kit needs at least one');
        }
        await repo.markBuilding(w.trx, accountId, listing.id, w.now);
        if (!(await w.runNow('listing.kit', listing.id))) await scheduleRebuild(w, listing.id, 0);
        const kit = await loadKit(w.trx, publicUrl, accountId, listing.id);
        if (kit === undefined) throw notFound('Gallery');
        return kit;
      });
    },

    /** An item's row, to serve its bytes: 404 unless made. */
    async item(accountId: string, listingId: string, name: KitItemName): Promise<repo.KitItemRow> {
      if (!hasIdShape('lst', listingId)) throw notFound('Gallery');
      const row = await repo.findItem(db.kysely, accountId, listingId, name);
      if (row === undefined) throw notFound('Kit item');
      return row;
    },

    /**
     * An item's bytes as every route serves them (/v1, the dashboard, the property pages): its
     * strong ETag, size, type and file name, and how to open them; 404 unless made.
     */
    async file(accountId: string, listingId: string, name: KitItemName): Promise<KitFile> {
      const row = await this.item(accountId, listingId, name);
      return {
        etag: kitItemEtag(row),
        size: Number(row.size),
        contentType: row.content_type,
        filename: kitItemFileName(name),
        open: (range?: ByteRange) => storage.get(row.storage_key, range),
      };
    },

    /** The studio's paper for the flyer (Settings); null: KIT_PAPER. */
    async paper(accountId: string): Promise<'letter' | 'a4' | null> {
      return (await repo.studioOf(db.kysely, accountId))?.kit_paper ?? null;
    },

    async setPaper(accountId: string, paper: 'letter' | 'a4' | null): Promise<void> {
      await writes.run(accountId, {}, (w) => repo.setPaper(w.trx, accountId, paper, w.now));
    },
  };
}
