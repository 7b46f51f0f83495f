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
} from './listings.schemas.ts';
import { cancelQueuedNotifications } from '../notifications/notifications.outbox.ts';
import type { MediaCleanup } from '../media/media.cleanup.ts';
import { isPhotoOfGallery } from '../media/media.service.ts';
import { listingMoved, listingsAdded, listingsCounter } from '../counts/counters.ts';
import { addCounts, readCount } from '../counts/counts.repository.ts';
import * as repo from './listings.repository.ts';
import type { Log } from '../../lib/log.ts';

export const toListing = (row: repo.ListingRow): ListingType => ({
  id: row.id,
  address: row.address,
  beds: row.beds,
  baths: row.baths,
  sqft: row.sqft,
  status: row.status,
  description: row.description,
  mls_number: row.mls_number,
  client_id: row.client_id,
  media_count: row.media_count,
  cover_media_id: row.cover_media_id,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

export const toListingItem = (row: repo.ListingItemRow): ListingItemType => ({
  id: row.id,
  address: row.address,
  beds: row.beds,
  baths: row.baths,
  sqft: row.sqft,
  status: row.status,
  client_id: row.client_id,
  created_at: row.created_at,
});

export type ListingsService = ReturnType<typeof createListingsService>;

export function createListingsService({ db, clock, cleanup }: Pick<Deps, 'db' | 'clock'> & { cleanup: MediaCleanup }) {
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
        await addCounts(trx, accountId, listingsAdded(status));
        return inserted;
      });
      return toListing(row);
    },

    async get(accountId: string, id: string): Promise<ListingType> {
      if (!hasIdShape('lst', id)) throw notFound('Gallery');
      const row = await repo.findListing(db.kysely, accountId, id);
      if (row === undefined) throw notFound('Gallery');
      return toListing(row);
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
      const row = await db.kysely.transaction().execute(async (trx) => {
        // The gallery's lock first: its status (for the counts) and its media (for the cover)
        // cannot change under this update.
        const current = await repo.lockListing(trx, db.dialect, accountId, id);
        if (current === undefined) return undefined;
        const cover = patch.cover_media_id;
        if (typeof cover === 'string' && !(await isPhotoOfGallery(trx, accountId, id, cover))) {
          throw new AppError('validation_error', 'cover_media_id must be a photo of this gallery', [
            { field: 'cover_media_id', message: 'must be the id of a photo of this gallery' },
          ]);
        }
        const updated = await repo.updateListing(trx, accountId, id, changes);
        if (updated !== undefined && patch.status !== undefined) {
          await addCounts(trx, accountId, listingMoved(current.status, patch.status));
        }
        return updated;
      });
      if (row === undefined) throw notFound('Gallery');
      return toListing(row);
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
        await addCounts(trx, accountId, listingsAdded(deleted.status, -1), { media: -deleted.media_count }, cancelled);
        return storageKeys;
      });
      await cleanup.afterDelete(keys, log);
    },
  };
}
