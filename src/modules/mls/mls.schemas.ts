// docs/api.md §31: MLS profiles (what a listing service accepts) and a gallery's compliance report.
import { Type, type Static } from '@sinclair/typebox';
import {
  Id,
  IdParam,
  Int32,
  Int64,
  ListOf,
  NullableId,
  PageQuery,
  StringEnum,
  TextInput,
  Timestamp,
} from '../../http/schemas.ts';
import { COMPLIANCE_STATUSES } from '../../db/schema-mls.ts';

/** The caps of a profile's numbers: sizes a listing service can ask for, and no more. */
const LIMITS = {
  longEdge: { minimum: 16, maximum: 8192 },
  bytes: { minimum: 10_000, maximum: 100_000_000 },
  photos: { minimum: 1, maximum: 1000 },
} as const;

/** docs/api.md §31's defaults. */
export const DEFAULTS = {
  max_long_edge: 2048,
  min_long_edge: 1024,
  max_bytes: 10_000_000,
  max_photos: 50,
  forbid_text: true,
  forbid_qr_codes: true,
  forbid_people: true,
  first_photo_exterior: true,
  disclose_staging: true,
} as const;

const name = TextInput({ minLength: 1, maxLength: 200, description: 'The listing service it is for (trimmed).' });

/** What a profile asks, each with its default (DEFAULTS). */
const Settings = Type.Object({
  max_long_edge: Int32({
    ...LIMITS.longEdge,
    description: "The longest side, in pixels, of the gallery's `mls` variants (default 2048).",
  }),
  min_long_edge: Int32({
    ...LIMITS.longEdge,
    description:
      'The shortest long side, in pixels, the service accepts (default 1024; at most `max_long_edge`). ' +
      'A photo whose original is smaller is `too_small`.',
  }),
  max_bytes: Int64({
    ...LIMITS.bytes,
    description:
      'The largest file, in bytes, the service accepts (default 10,000,000): `mls` variants are recompressed to fit.',
  }),
  max_photos: Int32({ ...LIMITS.photos, description: 'The most photos a listing may have (default 50).' }),
  forbid_text: Type.Boolean({ description: 'Words read in a photo fail it (`text_in_photo`; default true).' }),
  forbid_qr_codes: Type.Boolean({ description: 'A QR code in a photo fails it (`qr_code`; default true).' }),
  forbid_people: Type.Boolean({ description: 'A person or face in a photo fails it (`person`; default true).' }),
  first_photo_exterior: Type.Boolean({
    description: 'The first photo must show the exterior (`first_photo_not_exterior`; default true).',
  }),
  disclose_staging: Type.Boolean({
    description: 'Virtually staged photos must say so and show their original (default true).',
  }),
});

export const MlsProfileCreateBody = Type.Object(
  { name, ...Type.Partial(Settings).properties },
  { additionalProperties: false, title: 'MlsProfileCreate' },
);
export type MlsProfileCreateInput = Static<typeof MlsProfileCreateBody>;

export const MlsProfileUpdateBody = Type.Partial(MlsProfileCreateBody, {
  additionalProperties: false,
  minProperties: 1,
  title: 'MlsProfileUpdate',
});
export type MlsProfileUpdateInput = Static<typeof MlsProfileUpdateBody>;

export const MlsProfile = Type.Object(
  {
    id: Id('mlp', '`mlp_` followed by an opaque string.'),
    name: Type.String({ maxLength: 200 }),
    ...Settings.properties,
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'MlsProfile', additionalProperties: false },
);
export type MlsProfileType = Static<typeof MlsProfile>;

export const MlsProfileList = ListOf(MlsProfile, 'MlsProfileList');
export const MlsProfileListQuery = Type.Object({ ...PageQuery });
export type MlsProfileListQueryType = Static<typeof MlsProfileListQuery>;
export const MlsProfileParams = Type.Object({ id: IdParam('MLS profile id (`mlp_...`).') });

const COMPLIANCE_CODES = [
  'text_in_photo',
  'qr_code',
  'person',
  'too_small',
  'too_large',
  'too_many_photos',
  'first_photo_not_exterior',
  'staging_not_disclosed',
  'blurry',
  'tilted',
  'similar',
  'analysis_failed',
] as const;
export type ComplianceCode = (typeof COMPLIANCE_CODES)[number];

const ComplianceStatusSchema = StringEnum(COMPLIANCE_STATUSES, {
  title: 'ComplianceStatus',
  description: '`pending` while any visible photo is being analysed; else the worst severity found, or `pass`.',
});

const ComplianceIssue = Type.Object(
  {
    code: StringEnum(COMPLIANCE_CODES, { title: 'ComplianceCode' }),
    message: Type.String({ maxLength: 500 }),
    severity: StringEnum(['fail', 'warn'] as const, { title: 'ComplianceSeverity' }),
    fixed_by: Type.Union([Type.String({ maxLength: 500 }), Type.Null()], {
      description: 'What the service did about it (the `mls` variant), or null.',
    }),
  },
  { title: 'ComplianceIssue', additionalProperties: false },
);
export type ComplianceIssueType = Static<typeof ComplianceIssue>;

const CompliancePhoto = Type.Object(
  {
    media_id: Id('med'),
    status: ComplianceStatusSchema,
    issues: Type.Array(ComplianceIssue, { maxItems: COMPLIANCE_CODES.length }),
  },
  { title: 'CompliancePhoto', additionalProperties: false },
);

export const ComplianceReport = Type.Object(
  {
    listing_id: Id('lst'),
    profile_id: Id('mlp'),
    status: ComplianceStatusSchema,
    checked_at: Timestamp(),
    photos: Type.Array(CompliancePhoto, {
      maxItems: 100_000,
      description: "The gallery's visible photos, in order, each with what it breaks.",
    }),
    issues: Type.Array(ComplianceIssue, {
      maxItems: COMPLIANCE_CODES.length,
      description: 'What the gallery as a whole breaks: `too_many_photos`, `first_photo_not_exterior`.',
    }),
  },
  { title: 'ComplianceReport', additionalProperties: false },
);
export type ComplianceReportType = Static<typeof ComplianceReport>;

export const ComplianceParams = Type.Object({ id: IdParam('Gallery id (`lst_...`).') });
export const ComplianceQuery = Type.Object({
  profile_id: Type.Optional(
    Type.String({
      maxLength: 1024,
      description: "A profile to check against instead of the gallery's own (400 when neither is there).",
    }),
  ),
});

/** The gallery's `mls_profile_id`, as PATCH takes it. */
export const MlsProfileIdField = Type.Optional(
  Type.Unsafe<string | null>({
    type: ['string', 'null'],
    maxLength: 40,
    description: "One of the studio's MLS profiles (docs/api.md §31; 400 otherwise), or null for none.",
  }),
);
export const NullableProfileId = NullableId('mlp', "The gallery's MLS profile (docs/api.md §31), or null.");
