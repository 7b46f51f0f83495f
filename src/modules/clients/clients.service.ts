// Clients and assignment: docs/api.md §7. Every query is scoped by account.
import type { Deps } from '../../deps.ts';
import { AppError, notFound } from '../../errors.ts';
import { hasIdShape, newId } from '../../lib/ids.ts';
import { isForeignKeyViolation, isUniqueViolation } from '../../db/errors.ts';
import { normalizeEmail } from '../../lib/email-address.ts';
import { cursorPage, pageRequest, sinceValue, sortOf, THROUGH_PAGE } from '../../lib/cursor-page.ts';
import { wholeList, type Page } from '../../lib/pagination.ts';
import { listCursors } from '../../db/keyset.ts';
import { countClients, queryClients, type ClientQuery } from './clients.list.repository.ts';
import * as listingsRepo from '../listings/listings.repository.ts';
import { listingRows } from '../listings/listings.list.repository.ts';
import type { ListingCreateInput, ListingItemType, ListingType } from '../listings/listings.schemas.ts';
import { listingSerializer, toListingItem } from '../listings/listings.serializer.ts';
import { insertListingIn } from '../listings/listings.entry.ts';
import { dropLink, dropLinksOfClient, giveLink } from '../client-links/client-links.entry.ts';
import { loadNotification } from '../notifications/notifications.service.ts';
import type { NotificationType } from '../notifications/notifications.schemas.ts';
import type { Write, Writes } from '../../mechanisms/writes/writes.ts';
import type { Executor } from '../../db/executor.ts';
import {
  cancelQueuedNotifications,
  queueAssignmentNotification,
  readdressQueuedNotifications,
} from '../notifications/notifications.entry.ts';
import type {
  ClientCreateInput,
  ClientItemType,
  ClientListQueryType,
  ClientListingsQueryType,
  ClientType,
  ClientUpdateInput,
} from './clients.schemas.ts';
import { readCount } from '../../mechanisms/counts/counts.repository.ts';
import * as repo from './clients.repository.ts';
import { newPortalToken, portalUrl } from '../portals/portals.entry.ts';

const duplicateEmail = (): AppError =>
  new AppError('conflict', 'A client with this email already exists in this account', [
    { field: 'email', message: 'is already used by another client' },
  ]);

const toClientItem = (row: repo.ClientItemRow): ClientItemType => ({
  id: row.id,
  name: row.name,
  email: row.email,
  phone: row.phone,
  company: row.company,
  created_at: row.created_at,
});

const toClient = (publicUrl: string, row: repo.ClientRow, listings: ListingItemType[]): ClientType => ({
  id: row.id,
  name: row.name,
  email: row.email,
  phone: row.phone,
  company: row.company,
  notes: row.notes,
  portal_url: portalUrl(publicUrl, row.portal_token),
  created_at: row.created_at,
  updated_at: row.updated_at,
  listings,
});

// The client is a resource of the unit of work: its writes announce it by id, and the unit of
// work loads it through loadClient (registered in src/services.ts), as its GET does.
declare module '../../mechanisms/writes/writes.ts' {
  interface Resources {
    client: ClientType;
  }
}

/** The single-client object (with its galleries) of a row just read or written in `trx`. */
async function clientOfRow(
  trx: Executor,
  publicUrl: string,
  accountId: string,
  row: repo.ClientRow,
): Promise<ClientType> {
  const listings = await listingsRepo.listListingsOfClient(trx, accountId, row.id);
  return toClient(publicUrl, row, listings.map(toListingItem));
}

/**
 * The client object as its GET returns it now, read in `trx` (a transaction, for a write's event);
 * undefined when the account has no such client.
 */
export async function loadClient(
  trx: Executor,
  publicUrl: string,
  accountId: string,
  id: string,
): Promise<ClientType | undefined> {
  const row = await repo.findClient(trx, accountId, id);
  return row === undefined ? undefined : clientOfRow(trx, publicUrl, accountId, row);
}

export type ClientsService = ReturnType<typeof createClientsService>;

export function createClientsService({
  db,
  clock,
  config,
  writes,
}: Pick<Deps, 'db' | 'clock' | 'config'> & { writes: Writes }) {
  const messageIdHost = new URL(config.publicUrl).hostname || 'lightbox.local';
  const serialize = listingSerializer(config.publicUrl);
  const { publicUrl } = config;

  async function requireClient(accountId: string, id: string): Promise<repo.ClientRow> {
    if (!hasIdShape('cli', id)) throw notFound('Client');
    const row = await repo.findClient(db.kysely, accountId, id);
    if (row === undefined) throw notFound('Client');
    return row;
  }

  /** A new client, in the write `w`: its row, its event and its count. */
  async function insertIn(w: Write, input: ClientCreateInput): Promise<ClientType> {
    const now = w.now;
    const inserted = await repo.insertClient(w.trx, {
      id: newId('cli'),
      account_id: w.accountId,
      name: input.name,
      name_normalized: input.name.toLowerCase(),
      email: input.email,
      email_normalized: normalizeEmail(input.email),
      phone: input.phone ?? null,
      company: input.company ?? null,
      notes: input.notes ?? null,
      portal_token: newPortalToken(),
      created_at: now,
      updated_at: now,
    });
    // A new client has no galleries: its object is its row's, built as its GET builds it.
    const client = toClient(publicUrl, inserted, []);
    w.loaded('client', client.id, client);
    w.announce('client.created', client.id);
    w.count({ clients: 1 });
    return client;
  }

  /**
   * The gallery given to `client`, in the write `w`: the assignment, the client's link, the earlier
   * client's unsent email cancelled and (unless `notify` is false) the new one queued. Assigning to
   * the client it already has changes and sends nothing.
   */
  async function assignIn(
    w: Write,
    client: Pick<repo.ClientRow, 'id' | 'email'>,
    listingId: string,
    notify: boolean,
  ): Promise<ListingType> {
    const { trx, now, accountId } = w;
    const clientId = client.id;
    if ((await listingsRepo.findListing(trx, accountId, listingId)) === undefined) throw notFound('Gallery');
    if (await listingsRepo.assignListing(trx, accountId, listingId, clientId, now)) {
      // The gallery is no longer the earlier client's: their link stops, their unsent email is moot.
      await giveLink(w, listingId, clientId);
      await cancelQueuedNotifications(w, { listingId, notClientId: clientId });
      if (notify) await queueAssignmentNotification(w, { clientId, listingId, to: client.email, messageIdHost });
      w.announce('listing.assigned', listingId);
    }
    const listing = await w.load('listing', listingId);
    if (listing === undefined) throw notFound('Gallery');
    return listing;
  }

  return {
    async create(accountId: string, input: ClientCreateInput): Promise<ClientType> {
      try {
        return await writes.run(accountId, {}, (w) => insertIn(w, input));
      } catch (err) {
        if (isUniqueViolation(err)) throw duplicateEmail();
        throw err;
      }
    },

    async get(accountId: string, id: string): Promise<ClientType> {
      return clientOfRow(db.kysely, publicUrl, accountId, await requireClient(accountId, id));
    },

    /**
     * `countMatches`: a search's total counts every match (the dashboard's list says how many it
     * found), instead of the matches through the page (docs/api.md §19, what `/v1` answers).
     */
    async list(
      accountId: string,
      query: ClientListQueryType,
      options: { countMatches?: boolean } = {},
    ): Promise<Page<ClientItemType>> {
      const codec = await listCursors(db);
      const sort = sortOf(query.sort);
      const search = query.search?.toLowerCase() ?? '';
      const filters: ClientQuery = {
        search: search === '' ? undefined : search,
        createdSince: sinceValue('created_since', query.created_since),
        updatedSince: sinceValue('updated_since', query.updated_since),
        sort,
      };
      const scope = {
        list: 'clients',
        accountId,
        params: {
          search: filters.search,
          created_since: filters.createdSince,
          updated_since: filters.updatedSince,
          sort: query.sort ?? '-created_at',
        },
      };
      const request = pageRequest(query, codec, scope);
      const position = (row: { id: string; created_at: string; updated_at?: string }) => ({
        value: sort.column === 'created_at' ? row.created_at : (row.updated_at ?? ''),
        id: row.id,
      });
      const plain =
        request.after === undefined &&
        sort.column === 'created_at' &&
        sort.desc &&
        filters.createdSince === undefined &&
        filters.updatedSince === undefined;
      const window = { limit: request.fetch, offset: request.offset };
      // A search counts through the page unless asked (docs/api.md §19); a page by number past
      // the end still counts, exactly: every match lies before it.
      const through = filters.search !== undefined && options.countMatches !== true;
      if (plain) {
        // Unfiltered: the page and the maintained count. A search: both through the search index.
        const { rows, total } =
          filters.search === undefined
            ? await Promise.all([
                repo.listClients(db.kysely, accountId, window),
                readCount(db.kysely, accountId, 'clients'),
              ]).then(([page, n]) => ({ rows: page, total: n }))
            : await repo.searchClients(db.kysely, db.dialect, accountId, filters.search, window, !through);
        return cursorPage(rows, request, total ?? THROUGH_PAGE, codec, scope, position, toClientItem);
      }
      const counted =
        filters.search === undefined && filters.createdSince === undefined && filters.updatedSince === undefined;
      const rows = await queryClients(db.kysely, db.dialect, accountId, filters, request);
      const past = request.after === undefined && request.offset > 0 && rows.length === 0;
      const total =
        through && !past
          ? THROUGH_PAGE
          : counted
            ? await readCount(db.kysely, accountId, 'clients')
            : await countClients(db.kysely, db.dialect, accountId, filters);
      return cursorPage(rows, request, total, codec, scope, position, toClientItem);
    },

    async update(accountId: string, id: string, patch: ClientUpdateInput): Promise<ClientType> {
      if (!hasIdShape('cli', id)) throw notFound('Client');
      const changes = {
        ...patch,
        ...(patch.name === undefined ? {} : { name_normalized: patch.name.toLowerCase() }),
        ...(patch.email === undefined ? {} : { email_normalized: normalizeEmail(patch.email) }),
        updated_at: clock.iso(),
      };
      try {
        return await writes.run(accountId, { now: changes.updated_at }, async (w) => {
          const updated = await repo.updateClient(w.trx, accountId, id, changes);
          if (updated === undefined) throw notFound('Client');
          // Emails not yet sent go to the client's address as it is now.
          if (patch.email !== undefined) await readdressQueuedNotifications(w, id, updated.email);
          // The row as it is now (RETURNING): the object is built from it, not read again.
          const client = await clientOfRow(w.trx, publicUrl, accountId, updated);
          w.loaded('client', id, client);
          w.announce('client.updated', id);
          return client;
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw duplicateEmail();
        throw err;
      }
    },

    /** docs/api.md §28: a new portal token; the old portal URL stops at once. */
    async rotatePortal(accountId: string, id: string): Promise<ClientType> {
      if (!hasIdShape('cli', id)) throw notFound('Client');
      const now = clock.iso();
      return writes.run(accountId, { now }, async (w) => {
        const updated = await repo.updateClient(w.trx, accountId, id, {
          portal_token: newPortalToken(),
          updated_at: now,
        });
        if (updated === undefined) throw notFound('Client');
        // portal_url is a field of the client object: it changed (docs/api.md §15).
        const client = await clientOfRow(w.trx, publicUrl, accountId, updated);
        w.loaded('client', id, client);
        w.announce('client.updated', id);
        return client;
      });
    },

    /** Deletes the client; their galleries stay, unassigned, and unsent notifications are cancelled. */
    async remove(accountId: string, id: string): Promise<void> {
      if (!hasIdShape('cli', id)) throw notFound('Client');
      await writes.run(accountId, {}, async (w) => {
        await cancelQueuedNotifications(w, { clientId: id });
        await dropLinksOfClient(w, id);
        await listingsRepo.unassignListingsOfClient(w.trx, accountId, id, w.now);
        if (!(await repo.deleteClient(w.trx, accountId, id))) throw notFound('Client');
        // client.deleted stands for the unassignment of their galleries too (no listing.unassigned each).
        w.announce('client.deleted', id);
        w.count({ clients: -1 });
      });
    },

    /** All the client's galleries (docs/api.md §7), or with `page`, `limit` or `cursor` a page of them (docs/api.md §19). */
    async listListings(
      accountId: string,
      id: string,
      query: ClientListingsQueryType = {},
    ): Promise<Page<ListingItemType>> {
      await requireClient(accountId, id);
      if (query.page === undefined && query.limit === undefined && query.cursor === undefined) {
        const rows = await listingsRepo.listListingsOfClient(db.kysely, accountId, id);
        return wholeList(rows.map(toListingItem));
      }
      const codec = await listCursors(db);
      const scope = { list: 'client_listings', accountId, params: { client_id: id } };
      const request = pageRequest(query, codec, scope);
      const filters = { clientId: id, sort: { column: 'created_at', desc: true } } as const;
      const [rows, total] = await Promise.all([
        listingRows(db.kysely, db.dialect, accountId, filters, request),
        listingsRepo.countListingsOfClient(db.kysely, accountId, id),
      ]);
      return cursorPage(rows, request, total, codec, scope, (r) => ({ value: r.created_at, id: r.id }), toListingItem);
    },

    /**
     * Assigns the gallery to the client, gives the client the gallery's link, and (unless
     * `notify` is false) records the notification email, in one transaction. Assigning to the
     * client it already has changes and sends nothing.
     */
    async assign(
      accountId: string,
      clientId: string,
      listingId: string,
      options: { notify?: boolean } = {},
    ): Promise<ListingType> {
      if (!hasIdShape('cli', clientId)) throw notFound('Client');
      if (!hasIdShape('lst', listingId)) throw notFound('Gallery');
      try {
        return await writes.run(accountId, {}, async (w) => {
          const client = await repo.findClient(w.trx, accountId, clientId);
          if (client === undefined) throw notFound('Client');
          return assignIn(w, client, listingId, options.notify !== false);
        });
      } catch (err) {
        // The client was deleted between our read and our write (a concurrent DELETE).
        if (isForeignKeyViolation(err)) throw notFound('Client');
        throw err;
      }
    },

    /**
     * The dashboard's "assign to a new client": the gallery goes to the account's client with this
     * email, who is created first when there is none. One write: a failure anywhere (the gallery
     * gone, the email not queued) leaves neither the client nor the assignment.
     */
    async assignToClientByEmail(
      accountId: string,
      listingId: string,
      input: ClientCreateInput,
      options: { notify?: boolean } = {},
    ): Promise<{ listing: ListingType; clientId: string; existing: boolean }> {
      if (!hasIdShape('lst', listingId)) throw notFound('Gallery');
      try {
        return await writes.run(accountId, {}, async (w) => {
          const found = await repo.findClientByEmail(w.trx, accountId, normalizeEmail(input.email));
          if (found !== undefined) {
            const listing = await assignIn(w, found, listingId, options.notify !== false);
            return { listing, clientId: found.id, existing: true };
          }
          const created = await insertIn(w, input);
          const listing = await assignIn(w, created, listingId, options.notify !== false);
          // The new client now has this one gallery: client.created shows it, as the client's GET
          // does at the end, built from the gallery's object (its item's fields) and not read again.
          w.loaded('client', created.id, { ...created, listings: [toListingItem(listing)] });
          return { listing, clientId: created.id, existing: false };
        });
      } catch (err) {
        // Another request added a client with this email meanwhile: nothing of this one was kept.
        if (isUniqueViolation(err)) throw duplicateEmail();
        throw err;
      }
    },

    /**
     * The client page's "a new gallery for this client": the gallery made and assigned to the
     * client, their link given and (unless `notify` is false) the email queued, in one write: a
     * failure anywhere leaves no gallery behind.
     */
    async createListingFor(
      accountId: string,
      clientId: string,
      input: ListingCreateInput,
      options: { notify?: boolean } = {},
    ): Promise<ListingType> {
      if (!hasIdShape('cli', clientId)) throw notFound('Client');
      try {
        return await writes.run(accountId, {}, async (w) => {
          const client = await repo.findClient(w.trx, accountId, clientId);
          if (client === undefined) throw notFound('Client');
          const created = await insertListingIn(w, serialize, input);
          return await assignIn(w, client, created.id, options.notify !== false);
        });
      } catch (err) {
        // The client was deleted between our read and our write (a concurrent DELETE).
        if (isForeignKeyViolation(err)) throw notFound('Client');
        throw err;
      }
    },

    /** Unassigns the gallery from the client; 404 unless it is assigned to that client. */
    async unassign(accountId: string, clientId: string, listingId: string): Promise<void> {
      if (!hasIdShape('cli', clientId)) throw notFound('Client');
      if (!hasIdShape('lst', listingId)) throw new AppError('not_found', 'This gallery is not assigned to this client');
      await writes.run(accountId, {}, async (w) => {
        const { trx, now } = w;
        if ((await repo.findClient(trx, accountId, clientId)) === undefined) throw notFound('Client');
        if (!(await listingsRepo.unassignListing(trx, accountId, listingId, clientId, now))) {
          throw new AppError('not_found', 'This gallery is not assigned to this client');
        }
        await dropLink(w, listingId);
        await cancelQueuedNotifications(w, { clientId, listingId });
        w.announce('listing.unassigned', listingId);
      });
    },

    /**
     * Sends the gallery's email to its client again (a new notification, with the link as it is
     * when sent). 404 unless the gallery is assigned to that client.
     */
    async notify(accountId: string, clientId: string, listingId: string): Promise<NotificationType> {
      const notAssigned = (): AppError => new AppError('not_found', 'This gallery is not assigned to this client');
      if (!hasIdShape('cli', clientId)) throw notFound('Client');
      if (!hasIdShape('lst', listingId)) throw notAssigned();
      return writes.run(accountId, { lock: { listing: listingId } }, async (w) => {
        const client = await repo.findClient(w.trx, accountId, clientId);
        if (client === undefined) throw notFound('Client');
        if (w.listing?.client_id !== clientId) throw notAssigned();
        const id = await queueAssignmentNotification(w, { clientId, listingId, to: client.email, messageIdHost });
        const notification = await loadNotification(w.trx, accountId, id);
        if (notification === undefined) throw new Error('a notification just queued is not there');
        return notification;
      });
    },
  };
}
