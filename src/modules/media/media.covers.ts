// The covers of a page of galleries (the client's portal, docs/api.md §28), in two statements
// whatever the galleries hold: each gallery's chosen cover and its first visible photo with its
// variants ready, then those photos with their variants; the cover chosen as `visible` would.
import type { Executor } from '../../db/executor.ts';
import type { MediaRow, VariantRow, VisibleMedia } from './media.repository.ts';
import { variantsByMedia } from './media.serializer.ts';

/**
 * The photos that may be the covers of these galleries (docs/api.md §13): each one's chosen cover
 * and its first visible photo with its variants ready, read on (listing_id, position) per gallery,
 * so a page of a client's portal (docs/api.md §28) costs two statements whatever the galleries hold.
 */
async function coverCandidates(
  db: Executor,
  accountId: string,
  listingIds: readonly string[],
): Promise<{ listing_id: string; cover_media_id: string | null; first_id: string | null }[]> {
  if (listingIds.length === 0) return [];
  return db
    .selectFrom('listings as l')
    .select((eb) => [
      'l.id as listing_id',
      'l.cover_media_id',
      eb
        .selectFrom('media as m')
        .select('m.id')
        .whereRef('m.listing_id', '=', 'l.id')
        .where('m.kind', '=', 'photo')
        .where('m.hidden', '=', 0)
        .where('m.variants_status', '=', 'ready')
        .orderBy('m.position')
        .limit(1)
        .as('first_id'),
    ])
    .where('l.account_id', '=', accountId)
    .where('l.id', 'in', listingIds)
    .execute();
}

/** These photos, when visible with their variants ready, with those variants. */
async function readyPhotos(
  db: Executor,
  accountId: string,
  ids: readonly string[],
): Promise<{ rows: MediaRow[]; variants: VariantRow[] }> {
  if (ids.length === 0) return { rows: [], variants: [] };
  const [rows, variants] = await Promise.all([
    db
      .selectFrom('media')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', 'in', ids)
      .where('kind', '=', 'photo')
      .where('hidden', '=', 0)
      .where('variants_status', '=', 'ready')
      .execute(),
    db
      .selectFrom('media_variants')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('media_id', 'in', ids)
      .execute(),
  ]);
  return { rows, variants };
}

/** The cover each of these galleries shows, by gallery id; a gallery without one is not in the map. */
export async function pageCovers(
  db: Executor,
  accountId: string,
  listingIds: readonly string[],
): Promise<Map<string, VisibleMedia>> {
  const candidates = await coverCandidates(db, accountId, listingIds);
  const ids = new Set<string>();
  for (const c of candidates) {
    if (c.cover_media_id !== null) ids.add(c.cover_media_id);
    if (c.first_id !== null) ids.add(c.first_id);
  }
  const { rows, variants } = await readyPhotos(db, accountId, [...ids]);
  const byMedia = variantsByMedia(variants);
  const ready = new Map<string, VisibleMedia>();
  for (const row of rows) {
    const own = byMedia.get(row.id) ?? [];
    if (own.length > 0) ready.set(row.id, { row, variants: own });
  }
  const covers = new Map<string, VisibleMedia>();
  for (const c of candidates) {
    const chosen = c.cover_media_id === null ? undefined : ready.get(c.cover_media_id);
    // The chosen cover must still be this gallery's (a photo id names one gallery's photo).
    const cover =
      chosen?.row.listing_id === c.listing_id ? chosen : c.first_id === null ? undefined : ready.get(c.first_id);
    if (cover !== undefined) covers.set(c.listing_id, cover);
  }
  return covers;
}
