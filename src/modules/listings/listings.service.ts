// Galleries: the rules of section 5 of the contract. Every query is scoped by account.
import type { Deps } from '../../deps.ts';
import type { ListingStatus } from '../../db/schema.ts';
import { notFound } from '../../errors.ts';
import { hasIdShape, newId } from '../../ids.ts';
import { pageWindow, type Page } from '../../pagination.ts';
import type {
  ListingCreateInput,
  ListingItemType,
  ListingListQueryType,
  ListingType,
  ListingUpdateInput,
} from './listings.schemas.ts';
import { cancelQueued } from '../notifications/notifications.repository.ts';
import type { CleanupLog, MediaCleanup } from '../media/media.cleanup.ts';
import { storageKeysOfListing } from '../media/media.repository.ts';
import * as repo from './listings.repository.ts';

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
    /** Galleries per status (every status present, 0 when none), for the dashboard's overview. */
    async countByStatus(accountId: string): Promise<Record<ListingStatus, number>> {
      const counts: Record<ListingStatus, number> = { draft: 0, active: 0, archived: 0 };
      for (const { status, n } of await repo.countListingsByStatus(db.kysely, accountId)) counts[status] = n;
      return counts;
    },

    async create(accountId: string, input: ListingCreateInput): Promise<ListingType> {
      const now = clock().toISOString();
      const row = await repo.insertListing(db.kysely, {
        id: newId('lst'),
        account_id: accountId,
        client_id: null,
        address: input.address,
        beds: input.beds ?? null,
        baths: input.baths ?? null,
        sqft: input.sqft ?? null,
        status: input.status ?? 'draft',
        description: input.description ?? null,
        mls_number: input.mls_number ?? null,
        created_at: now,
        updated_at: now,
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
        repo.countListings(db.kysely, accountId, filter),
      ]);
      return { data: rows.map(toListingItem), pagination: { page: window.page, limit: window.limit, total } };
    },

    async update(accountId: string, id: string, patch: ListingUpdateInput): Promise<ListingType> {
      if (!hasIdShape('lst', id)) throw notFound('Gallery');
      const row = await repo.updateListing(db.kysely, accountId, id, { ...patch, updated_at: clock().toISOString() });
      if (row === undefined) throw notFound('Gallery');
      return toListing(row);
    },

    async remove(accountId: string, id: string, log?: CleanupLog): Promise<void> {
      if (!hasIdShape('lst', id)) throw notFound('Gallery');
      const now = clock().toISOString();
      const keys = await db.kysely.transaction().execute(async (trx) => {
        // The media rows go with the gallery (ON DELETE CASCADE); their bytes are scheduled for
        // deletion in the same transaction, so a crash after it leaves them to the sweep.
        const storageKeys = await storageKeysOfListing(trx, accountId, id);
        await cleanup.scheduleNow(trx, storageKeys);
        if (!(await repo.deleteListing(trx, accountId, id))) throw notFound('Gallery');
        // An email about a gallery that no longer exists must not go out.
        await cancelQueued(trx, accountId, { listingId: id }, now);
        return storageKeys;
      });
      await cleanup.purge(keys, log);
    },
  };
}
