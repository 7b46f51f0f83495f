// The MLS feature's entry points for other features (docs/api.md §31): the box and byte cap of a
// gallery's `mls` variants (the variants job), the remake of those variants when the gallery's
// profile changes, the gallery's profile as PATCH sets it, and the photos the unbranded property
// page leaves out.
import { AppError } from '../../errors.ts';
import type { Executor } from '../../db/executor.ts';
import { hasIdShape } from '../../lib/ids.ts';
import type { Write } from '../../mechanisms/writes/writes.ts';
import { BRANDING_CODES, complianceReport } from './mls.compliance.ts';
import * as repo from './mls.repository.ts';
import { toProfile } from './mls.serializer.ts';
import type { MlsFit } from '../variants/variants.images.ts';

/** The fit of the gallery's `mls` variants; undefined when it has no profile (the configured box then). */
export async function mlsFitOf(db: Executor, accountId: string, listingId: string): Promise<MlsFit | undefined> {
  const [found] = await repo.profilesOfGalleries(db, accountId, [listingId]);
  if (found === undefined) return undefined;
  const { profile } = found;
  return {
    maxLongEdge: profile.max_long_edge,
    minLongEdge: profile.min_long_edge,
    maxBytes: Number(profile.max_bytes),
    discloseStaging: profile.disclose_staging === 1,
  };
}

/**
 * The galleries' ready photos are queued to have their variants made again, so their `mls` ones
 * fit the profile now theirs (or its new sizes); a photo with a job queued or running already gets
 * them from that job. The old variants are served until the new ones replace them.
 */
export async function queueMlsRemake(w: Write, listingIds: readonly string[]): Promise<void> {
  for (const id of await repo.photosToRemake(w.trx, w.accountId, listingIds)) {
    w.enqueue({ kind: 'media.variants', accountId: w.accountId, subjectId: id, runAt: w.now });
  }
}

/** A gallery PATCH's `mls_profile_id`: one of the account's profiles (400 otherwise, another studio's too). */
export async function checkProfileId(trx: Executor, accountId: string, id: string | null): Promise<void> {
  if (id === null) return;
  if (hasIdShape('mlp', id) && (await repo.findProfile(trx, accountId, id)) !== undefined) return;
  throw new AppError('validation_error', 'mls_profile_id must be one of your MLS profiles', [
    { field: 'mls_profile_id', message: 'must be the id of one of your MLS profiles, or null' },
  ]);
}

/**
 * docs/api.md §31: the photos the unbranded property page leaves out, those with a `fail` issue of
 * `text_in_photo`, `qr_code` or `person` under the gallery's profile (which forbids them, or they
 * would not be issues). Empty when the gallery has no profile.
 */
export async function unbrandedExclusions(
  db: Executor,
  accountId: string,
  listingId: string,
  now: string,
): Promise<Set<string>> {
  const [found] = await repo.profilesOfGalleries(db, accountId, [listingId]);
  if (found === undefined) return new Set();
  const photos = await repo.compliancePhotos(db, accountId, listingId);
  const report = complianceReport(listingId, toProfile(found.profile), photos, now);
  return new Set(
    report.photos
      .filter((p) => p.issues.some((i) => i.severity === 'fail' && BRANDING_CODES.has(i.code)))
      .map((p) => p.media_id),
  );
}

/**
 * docs/api.md §32: the gallery's compliance report for the listing kit's MLS pack, with its
 * profile's `max_photos`; undefined when the gallery has no profile.
 */
export async function kitComplianceOf(
  db: Executor,
  accountId: string,
  listingId: string,
  now: string,
): Promise<{ report: ReturnType<typeof complianceReport>; maxPhotos: number; profileName: string } | undefined> {
  const [found] = await repo.profilesOfGalleries(db, accountId, [listingId]);
  if (found === undefined) return undefined;
  const photos = await repo.compliancePhotos(db, accountId, listingId);
  const profile = toProfile(found.profile);
  return {
    report: complianceReport(listingId, profile, photos, now),
    maxPhotos: profile.max_photos,
    profileName: profile.name,
  };
}
