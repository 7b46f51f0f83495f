// MLS profiles and compliance (docs/api.md §31). Every change of a profile goes through the unit of
// work with its event (mls_profile.created, .updated, .deleted). A gallery's compliance is computed
// when asked (one query of its visible photos), and again at the end of every write that changes
// what it reads (a photo, its analysis or variants, the order, the gallery's profile, the profile):
// the unit of work's reaction below, which announces `listing.compliance_changed` when the status
// differs from the last one announced for that gallery and profile.
import type { Deps } from '../../deps.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Executor } from '../../db/executor.ts';
import { listCursors } from '../../db/keyset.ts';
import type { EventType } from '../../db/schema.ts';
import type { NewEvent } from '../../mechanisms/events/events.entry.ts';
import { cursorPage, pageRequest } from '../../lib/cursor-page.ts';
import { hasIdShape, newId } from '../../lib/ids.ts';
import type { Page } from '../../lib/pagination.ts';
import type { Reaction, Write, Writes } from '../../mechanisms/writes/writes.ts';
import { complianceReport } from './mls.compliance.ts';
import { queueMlsRemake, unbrandedExclusions } from './mls.entry.ts';
import * as repo from './mls.repository.ts';
import {
  DEFAULTS,
  type ComplianceReportType,
  type MlsProfileCreateInput,
  type MlsProfileListQueryType,
  type MlsProfileType,
  type MlsProfileUpdateInput,
} from './mls.schemas.ts';
import { toProfile } from './mls.serializer.ts';

declare module '../../mechanisms/writes/writes.ts' {
  interface Resources {
    mls_profile: MlsProfileType;
  }
}

/** The profile as its GET returns it, read in `trx`; undefined when the account has none such. */
export async function loadMlsProfile(
  trx: Executor,
  accountId: string,
  id: string,
): Promise<MlsProfileType | undefined> {
  const row = await repo.findProfile(trx, accountId, id);
  return row === undefined ? undefined : toProfile(row);
}

const bit = (value: boolean): number => (value ? 1 : 0);

/** min_long_edge <= max_long_edge, of the profile as it would be. */
function checkEdges(profile: { min_long_edge: number; max_long_edge: number }): void {
  if (profile.min_long_edge > profile.max_long_edge) {
    throw new AppError('validation_error', 'min_long_edge must not be more than max_long_edge', [
      { field: 'min_long_edge', message: `must be at most max_long_edge (${profile.max_long_edge})` },
    ]);
  }
}

/** The fields that decide the `mls` variants: a change of one remakes them. */
const SIZE_FIELDS = ['max_long_edge', 'min_long_edge', 'max_bytes'] as const;

/** Events whose object is a photo of a gallery, or the gallery, or a profile: compliance may move. */
const MEDIA_EVENTS: ReadonlySet<EventType> = new Set([
  'media.created',
  'media.updated',
  'media.deleted',
  'media.analyzed',
  'media.variants_ready',
]);

/**
 * The unit of work's reaction (src/services.ts): the galleries whose compliance a write may have
 * moved are checked again in its transaction, and each whose status differs from the last one
 * announced (for its current profile) gets `listing.compliance_changed` with the report.
 */
export function complianceReaction(): Reaction {
  return async (w: Write, events: readonly NewEvent[]): Promise<NewEvent[]> => {
    const galleries = new Set<string>();
    const profiles = new Set<string>();
    for (const event of events) {
      const object = event.object as { id?: string; listing_id?: string };
      if (MEDIA_EVENTS.has(event.type)) {
        // A deletion's object is its id alone: its gallery is the one the write locked.
        const listingId = object.listing_id ?? w.listing?.id;
        if (listingId !== undefined) galleries.add(listingId);
      } else if (event.type === 'listing.updated' && object.id !== undefined) {
        galleries.add(object.id);
      } else if (event.type === 'mls_profile.updated' && object.id !== undefined) {
        profiles.add(object.id);
      }
    }
    for (const profileId of profiles) {
      for (const id of await repo.galleriesUsing(w.trx, w.accountId, profileId)) galleries.add(id);
    }
    if (galleries.size === 0) return [];
    const changed: NewEvent[] = [];
    for (const { listing_id, profile } of await repo.profilesOfGalleries(w.trx, w.accountId, [...galleries])) {
      const photos = await repo.compliancePhotos(w.trx, w.accountId, listing_id);
      const report = complianceReport(listing_id, toProfile(profile), photos, w.now);
      const last = await repo.lastStatus(w.trx, listing_id, profile.id);
      // Checked now, whatever the outcome: the report's checked_at is this write's time.
      await repo.saveStatus(w.trx, {
        listing_id,
        profile_id: profile.id,
        account_id: w.accountId,
        status: report.status,
        checked_at: w.now,
      });
      if (last?.status === report.status) continue;
      changed.push({ type: 'listing.compliance_changed', object: report });
    }
    return changed;
  };
}

export type MlsService = ReturnType<typeof createMlsService>;

export function createMlsService({ db, clock, writes }: Pick<Deps, 'db' | 'clock'> & { writes: Writes }) {
  return {
    async create(accountId: string, input: MlsProfileCreateInput): Promise<MlsProfileType> {
      const values = { ...DEFAULTS, ...input };
      checkEdges(values);
      return writes.run(accountId, {}, async (w) => {
        const row = {
          id: newId('mlp'),
          account_id: accountId,
          name: values.name,
          max_long_edge: values.max_long_edge,
          min_long_edge: values.min_long_edge,
          max_bytes: values.max_bytes,
          max_photos: values.max_photos,
          forbid_text: bit(values.forbid_text),
          forbid_qr_codes: bit(values.forbid_qr_codes),
          forbid_people: bit(values.forbid_people),
          first_photo_exterior: bit(values.first_photo_exterior),
          disclose_staging: bit(values.disclose_staging),
          created_at: w.now,
          updated_at: w.now,
        };
        await repo.insertProfile(w.trx, row);
        const profile = toProfile(row);
        w.loaded('mls_profile', profile.id, profile);
        w.announce('mls_profile.created', profile.id);
        return profile;
      });
    },

    async get(accountId: string, id: string): Promise<MlsProfileType> {
      const profile = hasIdShape('mlp', id) ? await loadMlsProfile(db.kysely, accountId, id) : undefined;
      if (profile === undefined) throw notFound('MLS profile');
      return profile;
    },

    async list(accountId: string, query: MlsProfileListQueryType): Promise<Page<MlsProfileType>> {
      const codec = await listCursors(db);
      const scope = { list: 'mls_profiles', accountId, params: {} };
      const request = pageRequest(query, codec, scope);
      const [rows, total] = await Promise.all([
        repo.listProfiles(db.kysely, accountId, request),
        repo.countProfiles(db.kysely, accountId),
      ]);
      return cursorPage(rows, request, total, codec, scope, (r) => ({ value: r.created_at, id: r.id }), toProfile);
    },

    /** Every profile of the account, by name (the dashboard's select). */
    async all(accountId: string): Promise<MlsProfileType[]> {
      return (await repo.allProfiles(db.kysely, accountId)).map(toProfile);
    },

    async update(accountId: string, id: string, patch: MlsProfileUpdateInput): Promise<MlsProfileType> {
      if (!hasIdShape('mlp', id)) throw notFound('MLS profile');
      return writes.run(accountId, {}, async (w) => {
        const current = await repo.findProfile(w.trx, accountId, id);
        if (current === undefined) throw notFound('MLS profile');
        checkEdges({
          min_long_edge: patch.min_long_edge ?? current.min_long_edge,
          max_long_edge: patch.max_long_edge ?? current.max_long_edge,
        });
        const changes = {
          ...(patch.name === undefined ? {} : { name: patch.name }),
          ...(patch.max_long_edge === undefined ? {} : { max_long_edge: patch.max_long_edge }),
          ...(patch.min_long_edge === undefined ? {} : { min_long_edge: patch.min_long_edge }),
          ...(patch.max_bytes === undefined ? {} : { max_bytes: patch.max_bytes }),
          ...(patch.max_photos === undefined ? {} : { max_photos: patch.max_photos }),
          ...(patch.forbid_text === undefined ? {} : { forbid_text: bit(patch.forbid_text) }),
          ...(patch.forbid_qr_codes === undefined ? {} : { forbid_qr_codes: bit(patch.forbid_qr_codes) }),
          ...(patch.forbid_people === undefined ? {} : { forbid_people: bit(patch.forbid_people) }),
          ...(patch.first_photo_exterior === undefined
            ? {}
            : { first_photo_exterior: bit(patch.first_photo_exterior) }),
          ...(patch.disclose_staging === undefined ? {} : { disclose_staging: bit(patch.disclose_staging) }),
          updated_at: w.now,
        };
        const row = await repo.updateProfile(w.trx, accountId, id, changes);
        if (row === undefined) throw notFound('MLS profile');
        // New sizes: the `mls` variants of the galleries that use it are made again to fit them.
        if (SIZE_FIELDS.some((f) => Number(row[f]) !== Number(current[f]))) {
          await queueMlsRemake(w, await repo.galleriesUsing(w.trx, accountId, id));
        }
        const profile = toProfile(row);
        w.loaded('mls_profile', id, profile);
        w.announce('mls_profile.updated', id);
        return profile;
      });
    },

    /**
     * docs/api.md §31: the galleries that use it are left with none (`mls_profile_id` null, each
     * announced `listing.updated`); their `mls` variants are made again at the configured size.
     */
    async remove(accountId: string, id: string): Promise<void> {
      if (!hasIdShape('mlp', id)) throw notFound('MLS profile');
      await writes.run(accountId, {}, async (w) => {
        const galleries = await repo.detachProfile(w.trx, accountId, id, w.now);
        if (!(await repo.deleteProfile(w.trx, accountId, id))) throw notFound('MLS profile');
        await queueMlsRemake(w, galleries);
        for (const listingId of galleries) w.announce('listing.updated', listingId);
        w.announce('mls_profile.deleted', id);
      });
    },

    /** GET /v1/listings/:id/compliance: against the gallery's profile, or `profileId` (400 when neither). */
    async compliance(
      accountId: string,
      listingId: string,
      profileId: string | undefined,
    ): Promise<ComplianceReportType> {
      if (!hasIdShape('lst', listingId)) throw notFound('Gallery');
      return writes.snapshot(async (trx) => {
        const gallery = await repo.galleryProfileId(trx, accountId, listingId);
        if (gallery === undefined) throw notFound('Gallery');
        const id = profileId ?? gallery.mls_profile_id;
        if (id === null) {
          throw new AppError(
            'validation_error',
            'This gallery has no MLS profile: set its mls_profile_id, or name one with ?profile_id=',
            [{ field: 'profile_id', message: 'is required when the gallery has no MLS profile' }],
          );
        }
        const profile = hasIdShape('mlp', id) ? await repo.findProfile(trx, accountId, id) : undefined;
        if (profile === undefined) {
          throw new AppError('validation_error', 'profile_id must be one of your MLS profiles', [
            { field: 'profile_id', message: 'must be the id of one of your MLS profiles' },
          ]);
        }
        const photos = await repo.compliancePhotos(trx, accountId, listingId);
        // When a write last checked it (nothing it reads has changed since), else when the gallery
        // or the profile last changed: the same report for the same data, as its ETag promises.
        const checked = (await repo.lastStatus(trx, listingId, profile.id))?.checked_at;
        const since = [gallery.updated_at, profile.updated_at].sort().at(-1) ?? gallery.updated_at;
        return complianceReport(listingId, toProfile(profile), photos, checked ?? since);
      });
    },

    /**
     * docs/api.md §31: the photos the unbranded property page leaves out (a `fail` of
     * `text_in_photo`, `qr_code` or `person` under the gallery's profile); none without a profile.
     */
    unbrandedExclusions(accountId: string, listingId: string): Promise<Set<string>> {
      return unbrandedExclusions(db.kysely, accountId, listingId, clock.iso());
    },

    /** The last status of each gallery against its own profile (the dashboard's gallery list). */
    statuses(accountId: string, listingIds: readonly string[]) {
      return repo.statusesOf(db.kysely, accountId, listingIds);
    },
  };
}
