// docs/api.md §31: a gallery's compliance with an MLS profile, from its visible photos (their size,
// their analysis of §30 and their `mls` variant), their order and the profile. Pure: the rows in,
// the report out (mls.repository.ts reads them in one query).
import type { ComplianceStatus } from '../../db/schema-mls.ts';
import { TILT_FLAG_DEGREES } from '../analysis/analysis.room-order.ts';
import type { CompliancePhotoRow } from './mls.repository.ts';
import type { ComplianceCode, ComplianceIssueType, ComplianceReportType, MlsProfileType } from './mls.schemas.ts';

/** The rooms of §30 that show the outside of the property. */
const EXTERIOR_ROOMS: ReadonlySet<string> = new Set(['Exterior Front', 'Exterior Rear', 'Aerial View']);

/** The codes a profile forbids outright: the unbranded property page leaves their photos out. */
export const BRANDING_CODES: ReadonlySet<ComplianceCode> = new Set(['text_in_photo', 'qr_code', 'person']);

const fail = (code: ComplianceCode, message: string): ComplianceIssueType => ({
  code,
  message,
  severity: 'fail',
  fixed_by: null,
});
const warn = (code: ComplianceCode, message: string, fixedBy: string | null = null): ComplianceIssueType => ({
  code,
  message,
  severity: 'warn',
  fixed_by: fixedBy,
});

const listLength = (json: string | null): number => {
  if (json === null) return 0;
  const parsed: unknown = JSON.parse(json);
  return Array.isArray(parsed) ? parsed.length : 0;
};

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
const bytes = (n: number): string => `${n.toLocaleString('en-US')} bytes`;

/** What one photo breaks, in the order of §31's codes. */
function photoIssues(photo: CompliancePhotoRow, profile: MlsProfileType): ComplianceIssueType[] {
  const issues: ComplianceIssueType[] = [];
  const ready = photo.analysis_status === 'ready';
  if (ready && profile.forbid_text) {
    const words = listLength(photo.analysis_text);
    if (words > 0) issues.push(fail('text_in_photo', `The photo shows text (${plural(words, 'word')} read).`));
  }
  if (ready && profile.forbid_qr_codes) {
    const codes = listLength(photo.analysis_qr_codes);
    if (codes > 0) issues.push(fail('qr_code', `The photo shows ${plural(codes, 'QR code')}.`));
  }
  if (ready && profile.forbid_people) {
    const people = Math.max(photo.analysis_people ?? 0, photo.analysis_faces ?? 0);
    if (people > 0) issues.push(fail('person', `The photo shows ${plural(people, 'person', 'people')}.`));
  }
  const longEdge = Math.max(photo.width ?? 0, photo.height ?? 0);
  if (longEdge > 0 && longEdge < profile.min_long_edge) {
    issues.push(
      fail(
        'too_small',
        `The photo's long edge is ${longEdge} px; the profile asks for at least ${profile.min_long_edge}.`,
      ),
    );
  }
  if (longEdge > profile.max_long_edge || photo.size > profile.max_bytes) {
    const what =
      longEdge > profile.max_long_edge
        ? `The original's long edge is ${longEdge} px, over ${profile.max_long_edge}`
        : `The original is ${bytes(photo.size)}, over ${bytes(profile.max_bytes)}`;
    const mlsEdge = Math.max(photo.mls_width ?? 0, photo.mls_height ?? 0);
    const fits =
      photo.mls_size !== null && mlsEdge > 0 && mlsEdge <= profile.max_long_edge && photo.mls_size <= profile.max_bytes;
    if (fits) {
      issues.push(
        warn(
          'too_large',
          `${what}.`,
          `Its mls variant is ${photo.mls_width}x${photo.mls_height} px and ${bytes(photo.mls_size ?? 0)}, within the profile.`,
        ),
      );
    } else if (photo.variants_status === 'ready') {
      // Ready, yet not within the profile: made for another profile (a remake is queued), or it
      // could not be made small enough even at the lowest quality.
      issues.push(warn('too_large', `${what}; its mls variant does not fit the profile yet.`));
    } else {
      issues.push(warn('too_large', `${what}; its mls variant, made to fit, is not ready yet.`));
    }
  }
  if (ready && photo.analysis_blurry === 1) issues.push(warn('blurry', 'The photo looks blurry.'));
  if (ready && photo.analysis_tilt_degrees !== null && Math.abs(photo.analysis_tilt_degrees) > TILT_FLAG_DEGREES) {
    const degrees = Math.round(Math.abs(photo.analysis_tilt_degrees) * 10) / 10;
    issues.push(warn('tilted', `Its vertical lines lean ${degrees} degrees (more than ${TILT_FLAG_DEGREES}).`));
  }
  if (ready && photo.analysis_similar_group !== null && photo.analysis_best_in_group === 0) {
    issues.push(warn('similar', 'Another photo of the gallery is nearly the same, and better.'));
  }
  if (photo.analysis_status === 'failed') {
    issues.push(warn('analysis_failed', 'The photo could not be analysed: nothing it shows was checked.'));
  }
  return issues;
}

const worst = (issues: readonly ComplianceIssueType[]): ComplianceStatus =>
  issues.some((i) => i.severity === 'fail') ? 'fail' : issues.length > 0 ? 'warn' : 'pass';

export function complianceReport(
  listingId: string,
  profile: MlsProfileType,
  photos: readonly CompliancePhotoRow[],
  checkedAt: string,
): ComplianceReportType {
  const perPhoto = photos.map((photo) => {
    const issues = photoIssues(photo, profile);
    const status: ComplianceStatus = photo.analysis_status === 'pending' ? 'pending' : worst(issues);
    return { media_id: photo.id, status, issues };
  });
  const issues: ComplianceIssueType[] = [];
  if (photos.length > profile.max_photos) {
    issues.push(
      fail('too_many_photos', `The gallery shows ${photos.length} photos; the profile allows ${profile.max_photos}.`),
    );
  }
  const first = photos[0];
  // A first photo whose room is not read (pending, failed, not analysed) is not judged.
  if (
    profile.first_photo_exterior &&
    first !== undefined &&
    first.analysis_status === 'ready' &&
    first.analysis_room !== null
  ) {
    if (!EXTERIOR_ROOMS.has(first.analysis_room)) {
      issues.push(
        fail('first_photo_not_exterior', `The first photo shows the ${first.analysis_room}, not the exterior.`),
      );
    }
  }
  const all = [...issues, ...perPhoto.flatMap((p) => p.issues)];
  const status: ComplianceStatus = photos.some((p) => p.analysis_status === 'pending') ? 'pending' : worst(all);
  return { listing_id: listingId, profile_id: profile.id, status, checked_at: checkedAt, photos: perPhoto, issues };
}
