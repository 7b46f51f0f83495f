// Galleries: the rules of section 5 of the contract. Every query is scoped by account.
import type { Deps } from '../../deps.ts';
import { AppError, notFound } from '../../errors.ts';
import { hasIdShape, newId } from '../../lib/ids.ts';
import { pageWindow, type Page } from '../../lib/pagination.ts';
import type {
  ListingCreateInput,
  ListingItemType,
  ListingListQueryType,
  ListingType,
  ListingUpdateInput,
  ClientLinkUpdateInput,
  FavoritesType,
} from './listings.schemas.ts';
import { cancelQueuedNotifications } from '../notifications/notifications.entry.ts';
import type { MediaCleanup } from '../media/media.cleanup.ts';
import { isPhotoOfGallery } from '../media/media.entry.ts';
import { listingMoved, listingsAdded, listingsCounter } from '../../mechanisms/counts/counters.ts';
import { addCounts, readCount } from '../../mechanisms/counts/counts.repository.ts';
import * as repo from './listings.repository.ts';
import { listingSerializer, toListingItem, type ListingSerializer } from './listings.serializer.ts';
import { favoritesOf, linkOf, rotateLink, setLinkControls } from '../client-links/client-links.entry.ts';
import { hashPassword } from '../accounts/password.ts';
import type { Executor } from '../../db/executor.ts';
import { recordEvents } from '../../mechanisms/events/events.entry.ts';
import type { Log } from '../../lib/log.ts';

/**
 * The gallery object as its GET returns it now, read in `db` (a transaction, for a write's answer
 * or its event); undefined when it is not there. One place builds it: section 17's ETag and
 * section 15's `data.object` must agree with every answer.
 */
export async function loadListing(
  db: Executor,
  serialize: ListingSerializer,
  accountId: string,
  id: string,
): Promise<ListingType | undefined> {
  const row = await repo.findListing(db, accountId, id);
  if (row === undefined) return undefined;
  return serialize(row, row.client_id === null ? undefined : await linkOf(db, id));
}

/**
 * The stored form of a PATCH of the link: a future expiry (else 400), the password hashed (before
 * the transaction: scrypt takes tens of milliseconds), downloads as 0 or 1.
 */
async function linkControls(
  input: ClientLinkUpdateInput,
  now: number,
): Promise<{ expires_at?: string | null; password_hash?: string | null; downloads_enabled?: number }> {
  const controls: { expires_at?: string | null; password_hash?: string | null; downloads_enabled?: number } = {};
  if (input.expires_at !== undefined) {
    const at = input.expires_at === null ? null : Date.parse(input.expires_at);
    if (at !== null && !(at > now)) {
      throw new AppError('validation_error', 'expires_at must be in the future', [
        { field: 'expires_at', message: 'must be a time in the future, or null' },
      ]);
    }
    controls.expires_at = at === null ? null : new Date(at).toISOString();
  }
  if (input.password !== undefined) {
    controls.password_hash = input.password === null ? null : await hashPassword(input.password);
  }
  if (input.downloads_enabled !== undefined) controls.downloads_enabled = input.downloads_enabled ? 1 : 0;
  return controls;
}

export type ListingsService = ReturnType<typeof createListingsService>;

export function createListingsService({
  db,
  clock,
  config,
  cleanup,
}: Pick<Deps, 'db' | 'clock' | 'config'> & { cleanup: MediaCleanup }) {
  const serialize = listingSerializer(config.publicUrl);
  const load = async (trx: Executor, accountId: string, id: string): Promise<ListingType> => {
    const listing = await loadListing(trx, serialize, accountId, id);
    if (listing === undefined) throw notFound('Gallery');
    return listing;
  };
  return {
    async create(accountId: string, input: ListingCreateInput): Promise<ListingType> {
      const now = clock.iso();
      const status = input.status ?? 'draft';
      const row = await db.kysely.transaction().execute(async (trx) => {
        const inserted = await repo.insertListing(trx, {
          id: newId('lst'),
          account_id: accountId,
          client_id: null,
          address: input.address,
          beds: input.beds ?? null,
          baths: input.baths ?? null,
          sqft: input.sqft ?? null,
          status,
          description: input.description ?? null,
          mls_number: input.mls_number ?? null,
          created_at: now,
          updated_at: now,
        });
        const listing = serialize(inserted, undefined);
        const events = await recordEvents(trx, accountId, [{ type: 'listing.created', object: listing }], now);
        await addCounts(trx, accountId, listingsAdded(status), events);
        return listing;
      });
      return row;
    },

    async get(accountId: string, id: string): Promise<ListingType> {
      if (!hasIdShape('lst', id)) throw notFound('Gallery');
      return load(db.kysely, accountId, id);
    },

    /** A new token for the gallery's client link (the old URL stops at once; counters kept). */
    async rotateClientLink(accountId: string, id: string): Promise<ListingType> {
      if (!hasIdShape('lst', id)) throw notFound('Gallery');
      return db.kysely.transaction().execute(async (trx) => {
        const current = await repo.lockListing(trx, db.dialect, accountId, id);
        if (current === undefined) throw notFound('Gallery');
        if (current.client_id === null || !(await rotateLink(trx, accountId, id))) {
          throw new AppError('conflict', 'This gallery has no client, so it has no link to replace; assign it first');
        }
        const listing = await load(trx, accountId, id);
        await addCounts(
          trx,
          accountId,
          await recordEvents(trx, accountId, [{ type: 'listing.updated', object: listing }], clock.iso()),
        );
        return listing;
      });
    },

    /** Section 25: the link's expiry, password and downloads. 409 when the gallery has no client. */
    async updateClientLink(accountId: string, id: string, input: ClientLinkUpdateInput): Promise<ListingType> {
      if (!hasIdShape('lst', id)) throw notFound('Gallery');
      const controls = await linkControls(input, clock.now());
      return db.kysely.transaction().execute(async (trx) => {
        const current = await repo.lockListing(trx, db.dialect, accountId, id);
        if (current === undefined) throw notFound('Gallery');
        if (current.client_id === null || !(await setLinkControls(trx, accountId, id, controls))) {
          throw new AppError('conflict', 'This gallery has no client, so it has no link; assign it first');
        }
        const listing = await load(trx, accountId, id);
        await addCounts(
          trx,
          accountId,
          await recordEvents(trx, accountId, [{ type: 'listing.updated', object: listing }], clock.iso()),
        );
        return listing;
      });
    },

    /** Section 25: what the client marked and sent; empty when the gallery has no client. */
    async favorites(accountId: string, id: string): Promise<FavoritesType> {
      if (!hasIdShape('lst', id)) throw notFound('Gallery');
      return db.kysely.transaction().execute(async (trx) => {
        const row = await repo.findListing(trx, accountId, id);
        if (row === undefined) throw notFound('Gallery');
        const link = row.client_id === null ? undefined : await linkOf(trx, id);
        if (link === undefined || link.client_id !== row.client_id) {
          return { media_ids: [], note: null, submitted_at: null, updated_at: null };
        }
        return {
          media_ids: await favoritesOf(trx, accountId, id),
          note: link.favorites_note,
          submitted_at: link.favorites_submitted_at,
          updated_at: link.favorites_updated_at,
        };
      });
    },

    async list(accountId: string, query: ListingListQueryType): Promise<Page<ListingItemType>> {
      const window = pageWindow(query);
      const filter = { status: query.status };
      const [rows, total] = await Promise.all([
        repo.listListings(db.kysely, accountId, filter, window),
        // A maintained count: one keyed row, whatever the account's size.
        readCount(db.kysely, accountId, listingsCounter(filter.status)),
      ]);
      return { data: rows.map(toListingItem), pagination: { page: window.page, limit: window.limit, total } };
    },

    async update(accountId: string, id: string, patch: ListingUpdateInput): Promise<ListingType> {
      if (!hasIdShape('lst', id)) throw notFound('Gallery');
      const changes = { ...patch, updated_at: clock.iso() };
      return db.kysely.transaction().execute(async (trx) => {
        // The gallery's lock first: its status (for the counts) and its media (for the cover)
        // cannot change under this update.
        const current = await repo.lockListing(trx, db.dialect, accountId, id);
        if (current === undefined) throw notFound('Gallery');
        const cover = patch.cover_media_id;
        if (typeof cover === 'string' && !(await isPhotoOfGallery(trx, accountId, id, cover))) {
          throw new AppError('validation_error', 'cover_media_id must be a photo of this gallery', [
            { field: 'cover_media_id', message: 'must be the id of a photo of this gallery' },
          ]);
        }
        await repo.updateListing(trx, accountId, id, changes);
        const listing = await load(trx, accountId, id);
        const events = await recordEvents(
          trx,
          accountId,
          [{ type: 'listing.updated', object: listing }],
          changes.updated_at,
        );
        await addCounts(
          trx,
          accountId,
          patch.status === undefined ? {} : listingMoved(current.status, patch.status),
          events,
        );
        return listing;
      });
    },

    async remove(accountId: string, id: string, log?: Log): Promise<void> {
      if (!hasIdShape('lst', id)) throw notFound('Gallery');
      const now = clock.iso();
      const keys = await db.kysely.transaction().execute(async (trx) => {
        // The media rows go with the gallery (ON DELETE CASCADE); their bytes are scheduled for
        // deletion in the same transaction, so a crash after it leaves them to the sweep. This
        // comes first: it locks the gallery against uploads committing meanwhile.
        const storageKeys = await cleanup.scheduleGallery(trx, accountId, id);
        const deleted = await repo.deleteListing(trx, accountId, id);
        if (deleted === undefined) throw notFound('Gallery');
        // An email about a gallery that no longer exists must not go out.
        const cancelled = await cancelQueuedNotifications(trx, accountId, { listingId: id }, now);
        // One event stands for the gallery and everything that went with it (its media, its link).
        const events = await recordEvents(trx, accountId, [{ type: 'listing.deleted', object: { id } }], now);
        await addCounts(
          trx,
          accountId,
          listingsAdded(deleted.status, -1),
          { media: -deleted.media_count },
          cancelled,
          events,
        );
        return storageKeys;
      });
      await cleanup.afterDelete(keys, log);
    },
  };
}
