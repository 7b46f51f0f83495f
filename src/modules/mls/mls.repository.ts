// MLS profiles' rows, the galleries that use them, the photos a compliance report reads and the
// last status announced (docs/api.md §31). Every query is scoped by account.
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { keysetAfter } from '../../db/keyset.ts';
import type { ComplianceStatus, MlsProfilesTable } from '../../db/schema-mls.ts';
import type { Position } from '../../lib/cursor.ts';

export type MlsProfileRow = Selectable<MlsProfilesTable>;

export async function insertProfile(db: Executor, row: Insertable<MlsProfilesTable>): Promise<void> {
  await db.insertInto('mls_profiles').values(row).execute();
}

export async function findProfile(db: Executor, accountId: string, id: string): Promise<MlsProfileRow | undefined> {
  return db
    .selectFrom('mls_profiles')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function updateProfile(
  db: Executor,
  accountId: string,
  id: string,
  changes: Updateable<MlsProfilesTable>,
): Promise<MlsProfileRow | undefined> {
  return db
    .updateTable('mls_profiles')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteProfile(db: Executor, accountId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('mls_profiles')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Newest first (docs/api.md §4), by page or after a cursor's position. */
export async function listProfiles(
  db: Executor,
  accountId: string,
  page: { fetch: number; offset: number; after: Position | undefined },
): Promise<MlsProfileRow[]> {
  let query = db.selectFrom('mls_profiles').selectAll().where('account_id', '=', accountId);
  if (page.after !== undefined) query = query.where(keysetAfter('created_at', 'id', true, page.after));
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.fetch).offset(page.offset).execute();
}

export async function countProfiles(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('mls_profiles')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Every profile of the account, by name (the dashboard's select). */
export async function allProfiles(db: Executor, accountId: string): Promise<MlsProfileRow[]> {
  return db
    .selectFrom('mls_profiles')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('name')
    .orderBy('id')
    .limit(1000)
    .execute();
}

/** The galleries that use a profile. */
export async function galleriesUsing(db: Executor, accountId: string, profileId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('listings')
    .select('id')
    .where('account_id', '=', accountId)
    .where('mls_profile_id', '=', profileId)
    .execute();
  return rows.map((r) => r.id);
}

/** Takes a profile off every gallery that uses it (before it is deleted); returns those galleries. */
export async function detachProfile(
  db: Executor,
  accountId: string,
  profileId: string,
  now: string,
): Promise<string[]> {
  const rows = await db
    .updateTable('listings')
    .set({ mls_profile_id: null, updated_at: now })
    .where('account_id', '=', accountId)
    .where('mls_profile_id', '=', profileId)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/**
 * The galleries' photos whose variants are ready and have no variants job queued or running: the
 * ones to queue again so their `mls` variants fit a new profile (a queued job makes them anyway).
 */
export async function photosToRemake(
  db: Executor,
  accountId: string,
  listingIds: readonly string[],
): Promise<string[]> {
  if (listingIds.length === 0) return [];
  const rows = await db
    .selectFrom('media')
    .select('media.id')
    .where('media.account_id', '=', accountId)
    .where('media.listing_id', 'in', [...listingIds])
    .where('media.kind', '=', 'photo')
    .where('media.variants_status', '=', 'ready')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('jobs')
            .select('jobs.id')
            .where('jobs.kind', '=', 'media.variants')
            .whereRef('jobs.subject_id', '=', 'media.id'),
        ),
      ),
    )
    .execute();
  return rows.map((r) => r.id);
}

/** The galleries of `ids` with their profile (those with none are left out). */
export async function profilesOfGalleries(
  db: Executor,
  accountId: string,
  ids: readonly string[],
): Promise<{ listing_id: string; profile: MlsProfileRow }[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('listings')
    .innerJoin('mls_profiles', 'mls_profiles.id', 'listings.mls_profile_id')
    .selectAll('mls_profiles')
    .select('listings.id as listing_id')
    .where('listings.account_id', '=', accountId)
    .where('listings.id', 'in', [...ids])
    .execute();
  return rows.map(({ listing_id, ...profile }) => ({ listing_id, profile }));
}

/** The gallery's profile id; undefined when the account has no such gallery. */
export async function galleryProfileId(
  db: Executor,
  accountId: string,
  listingId: string,
): Promise<{ mls_profile_id: string | null; updated_at: string } | undefined> {
  return db
    .selectFrom('listings')
    .select(['mls_profile_id', 'updated_at'])
    .where('account_id', '=', accountId)
    .where('id', '=', listingId)
    .executeTakeFirst();
}

/** What a compliance report reads of a photo: its size, its analysis and its `mls` variant. */
export interface CompliancePhotoRow {
  id: string;
  width: number | null;
  height: number | null;
  size: number;
  variants_status: string | null;
  analysis_status: 'pending' | 'ready' | 'failed' | null;
  analysis_blurry: number | null;
  analysis_tilt_degrees: number | null;
  analysis_similar_group: string | null;
  analysis_best_in_group: number | null;
  analysis_faces: number | null;
  analysis_people: number | null;
  analysis_text: string | null;
  analysis_qr_codes: string | null;
  analysis_room: string | null;
  mls_width: number | null;
  mls_height: number | null;
  mls_size: number | null;
}

/** The gallery's visible photos in order, each with its `mls` variant (one query). */
export async function compliancePhotos(
  db: Executor,
  accountId: string,
  listingId: string,
): Promise<CompliancePhotoRow[]> {
  const rows = await db
    .selectFrom('media')
    .leftJoin('media_variants as v', (join) => join.onRef('v.media_id', '=', 'media.id').on('v.name', '=', 'mls'))
    .select([
      'media.id',
      'media.width',
      'media.height',
      'media.size',
      'media.variants_status',
      'media.analysis_status',
      'media.analysis_blurry',
      'media.analysis_tilt_degrees',
      'media.analysis_similar_group',
      'media.analysis_best_in_group',
      'media.analysis_faces',
      'media.analysis_people',
      'media.analysis_text',
      'media.analysis_qr_codes',
      'media.analysis_room',
      'v.width as mls_width',
      'v.height as mls_height',
      'v.size as mls_size',
    ])
    .where('media.account_id', '=', accountId)
    .where('media.listing_id', '=', listingId)
    .where('media.kind', '=', 'photo')
    .where('media.hidden', '=', 0)
    .orderBy('media.position')
    .execute();
  return rows;
}

/** The last status announced for the gallery against the profile, and when it was last checked. */
export async function lastStatus(
  db: Executor,
  listingId: string,
  profileId: string,
): Promise<{ status: ComplianceStatus; checked_at: string } | undefined> {
  return db
    .selectFrom('listing_compliance')
    .select(['status', 'checked_at'])
    .where('listing_id', '=', listingId)
    .where('profile_id', '=', profileId)
    .executeTakeFirst();
}

export async function saveStatus(
  db: Executor,
  row: { listing_id: string; profile_id: string; account_id: string; status: ComplianceStatus; checked_at: string },
): Promise<void> {
  await db
    .insertInto('listing_compliance')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['listing_id', 'profile_id']).doUpdateSet({ status: row.status, checked_at: row.checked_at }),
    )
    .execute();
}

/** The last status of each of these galleries against its own profile (the dashboard's badges). */
export async function statusesOf(
  db: Executor,
  accountId: string,
  listingIds: readonly string[],
): Promise<Map<string, ComplianceStatus>> {
  if (listingIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('listing_compliance as c')
    .innerJoin('listings as l', (join) =>
      join.onRef('l.id', '=', 'c.listing_id').onRef('l.mls_profile_id', '=', 'c.profile_id'),
    )
    .select(['c.listing_id', 'c.status'])
    .where('c.account_id', '=', accountId)
    .where('c.listing_id', 'in', [...listingIds])
    .execute();
  return new Map(rows.map((r) => [r.listing_id, r.status]));
}
