// Table types of docs/api.md §31 (MLS profiles and the galleries' last compliance status), beside
// schema.ts.
import type { Generated } from 'kysely';

export interface MlsProfilesTable {
  id: string;
  account_id: string;
  name: string;
  max_long_edge: number;
  min_long_edge: number;
  /** bigint: PostgreSQL gives it back as a string; the repository reads it through Number(). */
  max_bytes: number | string;
  max_photos: number;
  /** 0 or 1 each. */
  forbid_text: number;
  forbid_qr_codes: number;
  forbid_people: number;
  first_photo_exterior: number;
  disclose_staging: number;
  created_at: string;
  updated_at: string;
}

export const COMPLIANCE_STATUSES = ['pass', 'warn', 'fail', 'pending'] as const;
export type ComplianceStatus = (typeof COMPLIANCE_STATUSES)[number];

/** The last compliance status of a gallery against a profile: what `listing.compliance_changed` compares with. */
interface ListingComplianceTable {
  listing_id: string;
  profile_id: string;
  account_id: string;
  status: ComplianceStatus;
  checked_at: string;
}

/** docs/api.md §31's tables, part of Database (schema.ts). */
export interface MlsTables {
  mls_profiles: MlsProfilesTable;
  listing_compliance: ListingComplianceTable;
}

/** docs/api.md §31's gallery column. */
export interface ListingMlsColumns {
  /** The gallery's MLS profile, or null. */
  mls_profile_id: Generated<string | null>;
}

/** docs/api.md §31's event types, part of EVENT_TYPES (schema.ts). */
export const MLS_EVENT_TYPES = [
  'mls_profile.created',
  'mls_profile.updated',
  'mls_profile.deleted',
  'listing.compliance_changed',
] as const;
