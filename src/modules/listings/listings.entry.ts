// The galleries feature's entry point for other features' writes: a new gallery, inserted in the
// caller's write (its row, its event, its count), as POST /v1/listings makes one. The client's
// "a new gallery for this client" makes and assigns it in one transaction (docs/api.md §27).
import { newId } from '../../lib/ids.ts';
import { listingsAdded } from '../../mechanisms/counts/counters.ts';
import type { Write } from '../../mechanisms/writes/writes.ts';
import * as repo from './listings.repository.ts';
import type { ListingCreateInput, ListingType } from './listings.schemas.ts';
import type { ListingSerializer } from './listings.serializer.ts';

/** A new gallery, in the write `w`: its row, its event and its count. */
export async function insertListingIn(
  w: Write,
  serialize: ListingSerializer,
  input: ListingCreateInput,
): Promise<ListingType> {
  const status = input.status ?? 'draft';
  const now = w.now;
  const inserted = await repo.insertListing(w.trx, {
    id: newId('lst'),
    account_id: w.accountId,
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
  // A new gallery has no link and no page: its object is its row's (RETURNING), not read.
  const listing = serialize(inserted, undefined, undefined);
  w.loaded('listing', listing.id, listing);
  w.announce('listing.created', listing.id);
  w.count(listingsAdded(status));
  return listing;
}
