// Galleries: the rules of docs/api.md §5. Every query is scoped by account.
import type { Deps } from '../../deps.ts';
import { AppError, notFound } from '../../errors.ts';
import { hasIdShape } from '../../lib/ids.ts';
import { cursorPage, pageRequest, sinceValue, sortOf, THROUGH_PAGE } from '../../lib/cursor-page.ts';
import type { Page } from '../../lib/pagination.ts';
import { listCursors } from '../../db/keyset.ts';
import { listingRows, queryListings, type ListingQuery } from './listings.list.repository.ts';
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
import { readCount } from '../../mechanisms/counts/counts.repository.ts';
import { normalizeTours, storeTours } from './tours.ts';
import * as repo from './listings.repository.ts';
import { insertListingIn } from './listings.entry.ts';
import { listingSerializer, toListingItem, type ListingSerializer } from './listings.serializer.ts';
import { commentsOf, favoritesOf, linkOf, rotateLink, setLinkControls } from '../client-links/client-links.entry.ts';
import { checkSelectionBounds, linkChanges } from '../client-links/link-controls.ts';
import { pageOf, publishPage, takeDownPage } from '../property-pages/property-pages.entry.ts';
import { checkProfileId, queueMlsRemake } from '../mls/mls.entry.ts';
import type { Executor } from '../../db/executor.ts';
import type { Writes } from '../../mechanisms/writes/writes.ts';
import type { Log } from '../../lib/log.ts';

// The gallery is a resource of the unit of work: its writes announce it by id and touch it, and
// the unit of work loads it through loadListing (registered in src/services.ts), as its GET does.
declare module '../../mechanisms/writes/writes.ts' {
  interface Resources {
    listing: ListingType;
  }
}

/** A gallery loaded for an answer: 404 when it is not there. */
function found(listing: ListingType | undefined): ListingType {
  if (listing === undefined) throw notFound('Gallery');
  return listing;
}

/**
 * The gallery object as its GET returns it now, read in `db` (a transaction, for a write's answer
 * or its event); undefined when it is not there. One place builds it: docs/api.md §17's ETag and
 * docs/api.md §15's `data.object` must agree with every answer.
 */
export async function loadListing(
  db: Executor,
  serialize: ListingSerializer,
  accountId: string,
  id: string,
): Promise<ListingType | undefined> {
  const row = await repo.findListing(db, accountId, id);
  return row === undefined ? undefined : listingOfRow(db, serialize, accountId, row);
}

/** The gallery object of a row just read or written in `db` (its link and pages read beside it). */
async function listingOfRow(
  db: Executor,
  serialize: ListingSerializer,
  accountId: string,
  row: repo.ListingRow,
): Promise<ListingType> {
  const link = row.client_id === null ? undefined : await linkOf(db, accountId, row.id);
  return serialize(row, link, await pageOf(db, accountId, row.id));
}

export type ListingsService = ReturnType<typeof createListingsService>;

export function createListingsService({
  db,
  clock,
  config,
  writes,
  cleanup,
  passwords,
}: Pick<Deps, 'db' | 'clock' | 'config' | 'passwords'> & { writes: Writes; cleanup: MediaCleanup }) {
  const serialize = listingSerializer(config.publicUrl);
  const load = async (trx: Executor, accountId: string, id: string): Promise<ListingType> => {
    const listing = await loadListing(trx, serialize, accountId, id);
    if (listing === undefined) throw notFound('Gallery');
    return listing;
  };
  return {
    async create(accountId: string, input: ListingCreateInput): Promise<ListingType> {
      return writes.run(accountId, {}, (w) => insertListingIn(w, serialize, input));
    },

    async get(accountId: string, id: string): Promise<ListingType> {
      if (!hasIdShape('lst', id)) throw notFound('Gallery');
      return load(db.kysely, accountId, id);
    },

    /** A new token for the gallery's client link (the old URL stops at once; counters kept). */
    async rotateClientLink(accountId: string, id: string): Promise<ListingType> {
      if (!hasIdShape('lst', id)) throw notFound('Gallery');
      return writes.run(accountId, { lock: { listing: id } }, async (w) => {
        const current = w.listing;
        if (current === undefined) throw notFound('Gallery');
        if (current.client_id === null || !(await rotateLink(w, id))) {
          throw new AppError('conflict', 'This gallery has no client, so it has no link to replace; assign it first');
        }
        // The link's url is a field of the gallery object: its updated_at moves (docs/api.md §19).
        w.touch('listing', id);
        w.announce('listing.updated', id);
        return found(await w.load('listing', id));
      });
    },

    /** docs/api.md §25: the link's expiry, password and downloads. 409 when the gallery has no client. */
    async updateClientLink(accountId: string, id: string, input: ClientLinkUpdateInput): Promise<ListingType> {
      if (!hasIdShape('lst', id)) throw notFound('Gallery');
      const controls = await linkChanges(input, clock.now(), passwords);
      return writes.run(accountId, { lock: { listing: id } }, async (w) => {
        const current = w.listing;
        if (current === undefined) throw notFound('Gallery');
        const link = current.client_id === null ? undefined : await linkOf(w.trx, accountId, id);
        if (link !== undefined) checkSelectionBounds(link, controls);
        if (link === undefined || !(await setLinkControls(w, id, controls))) {
          throw new AppError('conflict', 'This gallery has no client, so it has no link; assign it first');
        }
        // The link's controls are fields of the gallery object: its updated_at moves (docs/api.md §19).
        w.touch('listing', id);
        w.announce('listing.updated', id);
        return found(await w.load('listing', id));
      });
    },

    /**
     * docs/api.md §25: publishes the gallery as its two property pages (409 unless it is active).
     * Publishing a published gallery changes nothing and answers it as it is.
     */
    async publishPropertyPage(accountId: string, id: string): Promise<ListingType> {
      if (!hasIdShape('lst', id)) throw notFound('Gallery');
      return writes.run(accountId, { lock: { listing: id } }, async (w) => {
        const current = w.listing;
        if (current === undefined) throw notFound('Gallery');
        if (current.status !== 'active') {
          throw new AppError(
            'conflict',
            `Only an active gallery can be published; this one is ${current.status}. Set its status to active first`,
          );
        }
        if (!(await publishPage(w, id))) return found(await w.load('listing', id));
        // The page is a field of the gallery object: its updated_at moves (docs/api.md §19).
        w.touch('listing', id);
        w.announce('listing.updated', id);
        return found(await w.load('listing', id));
      });
    },

    /** docs/api.md §25: both URLs stop at once (publishing again gives new ones). */
    async unpublishPropertyPage(accountId: string, id: string): Promise<void> {
      if (!hasIdShape('lst', id)) throw notFound('Gallery');
      await writes.run(accountId, { lock: { listing: id } }, async (w) => {
        if (w.listing === undefined) throw notFound('Gallery');
        if (!(await takeDownPage(w, id))) return;
        w.touch('listing', id);
        w.announce('listing.updated', id);
      });
    },

    /** docs/api.md §25: what the client marked and sent; empty when the gallery has no client. */
    async favorites(accountId: string, id: string): Promise<FavoritesType> {
      if (!hasIdShape('lst', id)) throw notFound('Gallery');
      // The gallery, its link and its favorites as of one moment.
      return writes.snapshot(async (trx) => {
        const row = await repo.findListing(trx, accountId, id);
        if (row === undefined) throw notFound('Gallery');
        const link = row.client_id === null ? undefined : await linkOf(trx, accountId, id);
        if (link === undefined || link.client_id !== row.client_id) {
          return { media_ids: [], note: null, comments: [], submitted_at: null, updated_at: null };
        }
        return {
          media_ids: await favoritesOf(trx, accountId, link.id),
          note: link.favorites_note,
          comments: await commentsOf(trx, accountId, link.id),
          submitted_at: link.favorites_submitted_at,
          updated_at: link.favorites_updated_at,
        };
      });
    },

    /**
     * `countMatches`: a search's total is its capped count (the dashboard's list says how many it
     * found), instead of the matches through the page (docs/api.md §19, what `/v1` answers).
     */
    async list(
      accountId: string,
      query: ListingListQueryType,
      options: { countMatches?: boolean } = {},
    ): Promise<Page<ListingItemType>> {
      const codec = await listCursors(db);
      const sort = sortOf(query.sort);
      const filters: ListingQuery = {
        status: query.status,
        clientId: query.client_id === undefined ? undefined : query.client_id === 'none' ? null : query.client_id,
        mlsNumber: query.mls_number,
        search: query.search === undefined || query.search === '' ? undefined : query.search.toLowerCase(),
        createdSince: sinceValue('created_since', query.created_since),
        updatedSince: sinceValue('updated_since', query.updated_since),
        sort,
      };
      const scope = {
        list: 'listings',
        accountId,
        params: {
          status: filters.status,
          client_id: query.client_id,
          mls_number: filters.mlsNumber?.toLowerCase(),
          search: filters.search,
          created_since: filters.createdSince,
          updated_since: filters.updatedSince,
          sort: query.sort ?? '-created_at',
        },
      };
      const request = pageRequest(query, codec, scope);
      const counted =
        filters.clientId === undefined &&
        filters.mlsNumber === undefined &&
        filters.search === undefined &&
        filters.createdSince === undefined &&
        filters.updatedSince === undefined;
      const position = (row: { id: string; created_at: string; updated_at?: string }) => ({
        value: sort.column === 'created_at' ? row.created_at : (row.updated_at ?? ''),
        id: row.id,
      });
      if (counted && request.after === undefined && sort.column === 'created_at' && sort.desc) {
        // The plain list: its prepared queries, and a maintained count (one keyed row).
        const [rows, total] = await Promise.all([
          repo.listListings(
            db.kysely,
            accountId,
            { status: filters.status },
            { limit: request.fetch, offset: request.offset },
          ),
          readCount(db.kysely, accountId, listingsCounter(filters.status)),
        ]);
        return cursorPage(rows, request, total, codec, scope, position, toListingItem);
      }
      if (counted) {
        // A status (or nothing) in another order or by cursor: the maintained count still holds.
        const [rows, total] = await Promise.all([
          listingRows(db.kysely, db.dialect, accountId, filters, request),
          readCount(db.kysely, accountId, listingsCounter(filters.status)),
        ]);
        return cursorPage(rows, request, total, codec, scope, position, toListingItem);
      }
      // Other filters have no maintained count: their total stops at COUNT_CAP, and a search's
      // counts through the page (docs/api.md §19).
      const { rows, total } = await queryListings(db.kysely, db.dialect, accountId, filters, request, {
        count: options.countMatches === true,
      });
      return cursorPage(rows, request, total ?? THROUGH_PAGE, codec, scope, position, toListingItem);
    },

    async update(accountId: string, id: string, patch: ListingUpdateInput): Promise<ListingType> {
      if (!hasIdShape('lst', id)) throw notFound('Gallery');
      const { tours, ...fields } = patch;
      const now = clock.iso();
      // The gallery's lock first: its status (for the counts) and its media (for the cover)
      // cannot change under this update.
      return writes.run(accountId, { lock: { listing: id }, now }, async (w) => {
        const current = w.listing;
        if (current === undefined) throw notFound('Gallery');
        const changes = {
          ...fields,
          // docs/api.md §28: the whole list, replaced; stored as JSON (null: none). Checked once
          // the gallery is known to be the caller's: another studio's id is 404, whatever the body.
          ...(tours === undefined ? {} : { tours: storeTours(normalizeTours(tours)) }),
          updated_at: now,
        };
        const trx = w.trx;
        const cover = patch.cover_media_id;
        if (typeof cover === 'string' && !(await isPhotoOfGallery(trx, accountId, id, cover))) {
          throw new AppError('validation_error', 'cover_media_id must be a photo of this gallery', [
            { field: 'cover_media_id', message: 'must be the id of a photo of this gallery' },
          ]);
        }
        // docs/api.md §31: one of the studio's profiles; another one's `mls` variants are made again.
        if (patch.mls_profile_id !== undefined) await checkProfileId(trx, accountId, patch.mls_profile_id);
        // The row as it is now (RETURNING): the object is built from it, not read again.
        const updated = await repo.updateListing(trx, accountId, id, changes);
        if (updated === undefined) throw notFound('Gallery');
        if (updated.mls_profile_id !== current.mls_profile_id) await queueMlsRemake(w, [id]);
        // docs/api.md §25: only an active gallery is published; leaving `active` takes its pages down.
        if (patch.status !== undefined && patch.status !== 'active') await takeDownPage(w, id);
        const listing = await listingOfRow(trx, serialize, accountId, updated);
        w.loaded('listing', id, listing);
        w.announce('listing.updated', id);
        if (patch.status !== undefined) w.count(listingMoved(current.status, patch.status));
        return listing;
      });
    },

    async remove(accountId: string, id: string, log?: Log): Promise<void> {
      if (!hasIdShape('lst', id)) throw notFound('Gallery');
      // The gallery's lock first: uploads commit through it, so none commits meanwhile.
      await writes.run(accountId, { lock: { listing: id } }, async (w) => {
        if (w.listing === undefined) throw notFound('Gallery');
        // The media rows go with the gallery (ON DELETE CASCADE); their bytes are scheduled for
        // deletion in the same transaction, so a crash after it leaves them to the sweep.
        const storageKeys = await cleanup.scheduleGallery(w, id);
        const deleted = await repo.deleteListing(w.trx, accountId, id);
        if (deleted === undefined) throw notFound('Gallery');
        // An email about a gallery that no longer exists must not go out.
        await cancelQueuedNotifications(w, { listingId: id });
        // One event stands for the gallery and everything that went with it (its media, its link).
        w.announce('listing.deleted', id);
        w.count(listingsAdded(deleted.status, -1), { media: -deleted.media_count });
        w.afterCommit(() => cleanup.afterDelete(storageKeys, log));
      });
    },
  };
}
