// Table types for Kysely. Timestamps are ISO 8601 UTC strings with milliseconds
// (fixed width, so they sort as text on both dialects).
import type { MediaAnalysisColumns, MediaFeedColumns } from './schema.analysis.ts';
import type { Generated } from 'kysely';
import * as billing from './schema-invoices.ts';
import type * as stripe from './schema-stripe.ts';
import type { AccountKitMusicColumns } from './schema-kit-music.ts';
import * as mls from './schema-mls.ts';
import type * as kit from './schema-kit.ts';

export interface AccountsTable extends billing.AccountWatermarkColumns, AccountKitMusicColumns, kit.AccountKitColumns {
  id: string;
  name: string;
  email: string;
  email_normalized: string;
  password_hash: string;
  sender_name: string | null;
  /** ISO 4217 (docs/api.md §29): every amount of the account is in its minor unit. */
  currency: Generated<string>;
  /** docs/api.md §30: the studio's room order, a JSON list of the 14 ImageOf values; null: the default. */
  room_order: Generated<string | null>;
  created_at: string;
  updated_at: string;
  /** Set on a studio's test account (docs/api.md §20): the live account it belongs to. */
  live_account_id: string | null;
}

export type KeyScope = 'full' | 'read_only';

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  scope: KeyScope;
  expires_at: string | null;
  last_used_at: string | null;
  created_at: string;
  /** 1: a test key (`lbx_test_`), whose data is the account's test data (docs/api.md §20). */
  test: Generated<number>;
}

export const LISTING_STATUSES = ['draft', 'active', 'archived'] as const;
export type ListingStatus = (typeof LISTING_STATUSES)[number];

export interface ListingsTable extends mls.ListingMlsColumns {
  id: string;
  account_id: string;
  client_id: string | null;
  address: string;
  beds: number | null;
  baths: number | null;
  sqft: number | null;
  status: ListingStatus;
  description: string | null;
  mls_number: string | null;
  media_count: Generated<number>;
  /** A photo of this gallery, or null (the client gallery then uses the first visible photo). */
  cover_media_id: Generated<string | null>;
  /** docs/api.md §28: the tours, a JSON array of {url, label, unbranded}; null is none. */
  tours: Generated<string | null>;
  created_at: string;
  updated_at: string;
}

export interface ClientsTable {
  id: string;
  account_id: string;
  name: string;
  name_normalized: string;
  email: string;
  email_normalized: string;
  phone: string | null;
  company: string | null;
  notes: string | null;
  /** docs/api.md §28: the capability of the client's portal (PUBLIC_URL/c/<token>). */
  portal_token: string;
  created_at: string;
  updated_at: string;
}

export const NOTIFICATION_STATUSES = ['queued', 'sent', 'failed', 'cancelled'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

export interface NotificationsTable {
  id: string;
  account_id: string;
  /** Kept after the client is deleted, so the history stays readable; null for a share link's email. */
  client_id: string | null;
  /** docs/api.md §28: the share link this email carries, or null (the client's assignment email). */
  share_link_id: string | null;
  listing_id: string;
  to_email: string;
  status: NotificationStatus;
  attempts: Generated<number>;
  last_error: string | null;
  message_id: string;
  created_at: string;
  updated_at: string;
  sent_at: string | null;
  /** A gallery's email (assignment), or an invoice's and its invoice (docs/api.md §29). */
  kind: Generated<billing.NotificationKind>;
  invoice_id: Generated<string | null>;
}

/** Every kind of background work; each has one handler (src/jobs.ts). */
export type JobKind =
  | 'notification.send'
  | 'media.variants'
  | 'media.watermark'
  | 'media.analyze'
  | 'media.checksum'
  | 'webhook.deliver'
  | 'upload.expire'
  | 'selection.email'
  | 'listing.kit';

/** A piece of background work still to be done (src/mechanisms/queue/, decisions/0006). */
export interface JobsTable {
  id: string;
  kind: JobKind;
  account_id: string | null;
  /** The row the job works on: a notification, a photo, a webhook delivery, an upload. */
  subject_id: string;
  /** At most a few jobs of one group (a webhook endpoint) run at once on a node. */
  group_key: string | null;
  /** Due time; while a worker holds the job, the end of its lease. */
  run_at: string;
  /** Finished attempts: a claim counts once its outcome is recorded. */
  attempts: Generated<number>;
  /** The holder's token; outcomes are recorded only under it. */
  lease: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export type MediaKind = 'photo' | 'video' | 'document';

export interface MediaTable extends MediaAnalysisColumns, MediaFeedColumns {
  id: string;
  account_id: string;
  listing_id: string;
  kind: MediaKind;
  filename: string;
  content_type: string;
  size: number;
  sha256: string;
  width: number | null;
  height: number | null;
  position: number;
  storage_key: string;
  caption: Generated<string | null>;
  /** 0 or 1: hidden media are never shown to the client. */
  hidden: Generated<number>;
  /** Photos and videos (docs/api.md §25): whether their variants are made yet; null for documents. */
  variants_status: VariantsStatus | null;
  /** CRC-32 of the bytes (the ZIP names it before them); null until a pre-0008 file is checksummed. */
  crc32: number | null;
  /** docs/api.md §31: 0 or 1, a virtually staged photo (its large and mls variants carry a label). */
  virtually_staged: Generated<number>;
  /** docs/api.md §31: the unstaged photo of the same gallery; null when none or once it is deleted. */
  original_media_id: Generated<string | null>;
  created_at: string;
}

export type VariantsStatus = 'pending' | 'ready' | 'failed';
/** A derived size of a photo (docs/api.md §13): its own object in storage, owned by this row. */
export interface MediaVariantsTable {
  media_id: string;
  /**
   * A photo's thumb, large and mls (docs/api.md §13) and the public pages' medium; a video's poster
   * and web (§25), and the public pages' stripped (the original's streams with none of its tags).
   */
  name: 'thumb' | 'medium' | 'large' | 'mls' | 'poster' | 'web' | 'stripped' | 'thumb_wm' | 'large_wm';
  account_id: string;
  listing_id: string;
  storage_key: string;
  content_type: string;
  width: number;
  height: number;
  size: number;
  created_at: string;
  /**
   * docs/api.md §29: what a watermarked preview (`thumb_wm`, `large_wm`) carries; §31: `staged` on a
   * large or mls variant drawn with the "Virtually staged" label; null otherwise.
   */
  mark: Generated<string | null>;
}

type GalleryLinkKind = 'client' | 'share' | 'feed';

/**
 * A link that opens a gallery's page (docs/api.md §14, §25, §28): the assigned client's link (kind
 * `client`, at most one per gallery) or a share link (kind `share`, up to 50 per gallery). The
 * page, its gate, counters, favorites and comments are the same for both. A `feed` link (docs/api.md
 * §33) opens only its gallery's mls variants, for the RESO feed's MediaURL, until its expires_at.
 */
export interface GalleryLinksTable {
  /** `shl_` for a share link; a client link's id is never shown. */
  id: string;
  kind: GalleryLinkKind;
  listing_id: string;
  account_id: string;
  /** The client of a `client` link; null on a share link. */
  client_id: string | null;
  /** A share link's label and recipient; null on a client link. */
  label: string | null;
  email: string | null;
  /** The capability in the URL: at least 128 random bits, base64url. */
  token: string;
  views: Generated<number>;
  downloads: Generated<number>;
  first_viewed_at: string | null;
  last_viewed_at: string | null;
  created_at: string;
  updated_at: string;
  /** docs/api.md §25: null, or when the link stops (410). */
  expires_at: string | null;
  /** scrypt of the link's password, or null when it has none. */
  password_hash: string | null;
  /** 0 or 1. */
  downloads_enabled: Generated<number>;
  /** 0 or 1 (docs/api.md §28): whether the page offers favorites and comments. */
  favorites_enabled: Generated<number>;
  /** docs/api.md §28: how many photos the selection needs at least and at most, or null. */
  selection_min: number | null;
  selection_max: number | null;
  favorites_note: string | null;
  favorites_submitted_at: string | null;
  favorites_updated_at: string | null;
}

/** A gallery's published property pages (docs/api.md §25): one row while published. */
export interface PropertyPagesTable {
  listing_id: string;
  account_id: string;
  /** The branded page's capability: PUBLIC_URL/p/<token>. */
  token: string;
  /** The unbranded page's, another unguessable token. */
  unbranded_token: string;
  published_at: string;
  views: Generated<number>;
}

/** The photos marked as favorites at a link (docs/api.md §25). */
interface GalleryLinkFavoritesTable {
  link_id: string;
  media_id: string;
  account_id: string;
  created_at: string;
}

/** A comment on a photo at a link (docs/api.md §28). */
interface GalleryLinkCommentsTable {
  link_id: string;
  media_id: string;
  account_id: string;
  text: string;
  updated_at: string;
}

/** Wrong passwords at a link, per client address (the limit of 10 in 15 minutes). */
interface GalleryLinkPasswordFailuresTable {
  link_id: string;
  account_id: string;
  address: string;
  failed_at: string;
}

/** docs/api.md §15: the event types, in the order the contract lists them. */
export const EVENT_TYPES = [
  'listing.created',
  'listing.updated',
  'listing.deleted',
  'listing.assigned',
  'listing.unassigned',
  'media.created',
  'media.updated',
  'media.deleted',
  'media.variants_ready',
  'media.analyzed',
  'client.created',
  'client.updated',
  'client.deleted',
  'notification.sent',
  'notification.failed',
  'client_link.viewed',
  'client_link.downloaded',
  'client_link.selection_submitted',
  'share_link.created',
  'share_link.updated',
  'share_link.deleted',
  'share_link.viewed',
  'share_link.downloaded',
  'share_link.selection_submitted',
  ...billing.BILLING_EVENT_TYPES,
  // docs/api.md §32: the kit, when a build is done.
  'listing.kit_ready',
  ...mls.MLS_EVENT_TYPES,
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
/** Sent by POST /v1/webhook_endpoints/:id/test to that endpoint only; never listed. */
type TestEventType = 'webhook.test';

export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  url: string;
  /** JSON array of event types, or ["*"]. */
  events: string;
  description: string | null;
  /** 0 or 1. */
  enabled: number;
  /** Why it is disabled (docs/api.md §22): null while enabled. */
  disabled_reason: 'manual' | 'gone' | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
  created_at: string;
  updated_at: string;
}

export interface EventsTable {
  id: string;
  account_id: string;
  type: EventType | TestEventType;
  /** The event's `data` ({"object": ...}) as JSON text. */
  data: string;
  /** 0 for webhook.test events. */
  listed: Generated<number>;
  created_at: string;
  /**
   * JSON array of the ids of the endpoints that get a delivery of this event, chosen when it was
   * recorded, until the delivery runner has made those deliveries; then null (decisions/0012).
   */
  fanout: string | null;
}

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface WebhookDeliveriesTable {
  id: string;
  account_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: EventType | TestEventType;
  status: DeliveryStatus;
  attempts: Generated<number>;
  response_status: number | null;
  response_excerpt: string | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
}

/** A resumable (tus) upload, from its creation until it expires (docs/api.md §16). */
export interface UploadsTable {
  id: string;
  account_id: string;
  listing_id: string;
  /** Where its bytes are (MediaStorage key); the media row's storage_key once complete. */
  storage_key: string;
  filename: string | null;
  length: number;
  /** The tus server's record of the upload (JSON). */
  info: string | null;
  /** On S3: the multipart upload's parts stored so far (JSON [{PartNumber, ETag, Size}]). */
  parts: string | null;
  /** Set in the transaction that makes it a media row. */
  media_id: string | null;
  expires_at: string;
  lock_token: string | null;
  lock_until: string | null;
  release_wanted: Generated<number>;
  created_at: string;
}

interface MediaCleanupTable {
  storage_key: string;
  delete_after: string;
  created_at: string;
}

/** A signed-in dashboard session; the token itself is never stored. */
export interface SessionsTable {
  token_hash: string;
  account_id: string;
  /** The session's synchronizer token for the dashboard's forms. */
  csrf_token: string;
  created_at: string;
  last_seen_at: string;
  /** Absolute end, whatever the activity. */
  expires_at: string;
  /**
   * What the session's next page shows once (a new API key), sealed with a key derived from the
   * cookie's token: unreadable from the database alone. Null when nothing is waiting.
   */
  one_time: string | null;
  /** The person signed in (docs/api.md §27); their removal deletes the row. */
  user_id: string | null;
}

/** Sign-in failures by client address and by account; reset-link requests likewise, apart. */
export type SignInScope = 'address' | 'account' | 'reset_address' | 'reset_account';

interface SignInFailuresTable {
  id: string;
  scope: SignInScope;
  /** A client address (IPv6 by its /64) or a normalized email. */
  subject: string;
  created_at: string;
}

/** A password reset link asked for; the token itself is never stored, only its SHA-256. */
export interface PasswordResetsTable {
  token_hash: string;
  account_id: string;
  /** Whose password the link sets. */
  user_id: string | null;
  created_at: string;
  /** The link works until then (30 minutes), once. */
  expires_at: string;
}

/** docs/api.md §27: who may do what in the dashboard. */
export type UserRole = 'owner' | 'member';

/** A person of a studio's team: the owner (the studio's first sign-in) or a member. */
export interface UsersTable {
  id: string;
  account_id: string;
  email: string;
  email_normalized: string;
  role: UserRole;
  password_hash: string;
  /** The TOTP secret, sealed (two-factor.service.ts): pending while totp_enabled is 0, in use once 1. */
  totp_secret: string | null;
  totp_enabled: number;
  /** The last accepted time step: a code is never accepted twice. */
  totp_last_step: number | null;
  created_at: string;
  updated_at: string;
}

/** An invitation emailed to join a team; only the SHA-256 of its link's token is kept. */
export interface InvitationsTable {
  id: string;
  account_id: string;
  email: string;
  email_normalized: string;
  role: UserRole;
  token_hash: string;
  created_at: string;
  /** The link works until then (7 days), once. */
  expires_at: string;
}

/** One unused recovery code (SHA-256); using it deletes the row. */
interface RecoveryCodesTable {
  user_id: string;
  code_hash: string;
  created_at: string;
}

/** A sign-in waiting for its second factor. */
interface TwoFactorChallengesTable {
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
}

interface SetupMarkerTable {
  id: string;
  account_id: string;
  created_at: string;
}

type IdempotencyState = 'in_flight' | 'completed';

export interface IdempotencyKeysTable {
  account_id: string;
  idempotency_key: string;
  /** SHA-256 of method, path and canonical JSON body (uploads: method and path). */
  fingerprint: string;
  state: IdempotencyState;
  /** Which request holds the row; completing or releasing it needs this token. */
  token: string;
  /** An in-flight row whose lease has run out belonged to a request that died; it may be taken over. */
  locked_until: string;
  response_status: number | null;
  /** JSON object of the replayed response headers (content-type, location). */
  response_headers: string | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
}

/**
 * Maintained counts: one row per (account, counter), changed in the same transaction as every
 * write that changes what it counts (src/mechanisms/counts/). A missing row means 0.
 */
interface AccountCountsTable {
  account_id: string;
  /** `listings`, `listings:<status>`, `clients`, `media`, `notifications`, `notifications:<status>`. */
  counter: string;
  n: number;
}

/**
 * Conditional requests (docs/api.md §17): one number per account, raised by database triggers in the
 * transaction of every change to a row some /v1 JSON read shows (migration 2026-11-26-0014). A
 * missing row means 0.
 */
interface AccountVersionsTable {
  account_id: string;
  version: number;
  /** Raised by public page activity alone (2026-12-07-1000): only tags that show its counters use it. */
  views_version: Generated<number>;
  /**
   * Raised by the event log's rows, its counts and the webhook deliveries alone (2026-12-07-1200):
   * only the tags of the reads that show them use it.
   */
  events_version: Generated<number>;
}

/** SQLite only: a stable integer key per client for the FTS5 search index (src/db/search.ts). */
interface ClientsSearchKeysTable {
  rowid: Generated<number>;
  client_id: string;
  account_id: string;
  created_at: string;
}

/** SQLite only: the contentless FTS5 trigram index over the lower-cased name and email. */
interface ClientsFtsTable {
  rowid: number;
  name: string;
  email: string;
  /** The hidden column named after the table: the left side of MATCH. */
  clients_fts: string;
}

/** SQLite only: a stable integer key per gallery for the FTS5 search index (src/modules/listings/listings.list.repository.ts). */
interface ListingsSearchKeysTable {
  rowid: Generated<number>;
  listing_id: string;
  account_id: string;
}

/** SQLite only: the contentless FTS5 trigram index (case folded by FTS5) over address and MLS number. */
interface ListingsFtsTable {
  rowid: number;
  address: string;
  mls_number: string;
  listings_fts: string;
}

/** Per-deployment secrets, made by migrations (`list_cursor` signs list cursors, `totp_secret_key` seals TOTP secrets). */
interface InstanceSecretsTable {
  name: string;
  value: string;
}

export interface Database extends mls.MlsTables {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  listings: ListingsTable;
  clients: ClientsTable;
  notifications: NotificationsTable;
  jobs: JobsTable;
  media: MediaTable;
  media_variants: MediaVariantsTable;
  gallery_links: GalleryLinksTable;
  gallery_link_favorites: GalleryLinkFavoritesTable;
  gallery_link_comments: GalleryLinkCommentsTable;
  gallery_link_password_failures: GalleryLinkPasswordFailuresTable;
  property_pages: PropertyPagesTable;
  webhook_endpoints: WebhookEndpointsTable;
  events: EventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  media_cleanup: MediaCleanupTable;
  uploads: UploadsTable;
  sessions: SessionsTable;
  sign_in_failures: SignInFailuresTable;
  setup_marker: SetupMarkerTable;
  password_resets: PasswordResetsTable;
  users: UsersTable;
  invitations: InvitationsTable;
  recovery_codes: RecoveryCodesTable;
  two_factor_challenges: TwoFactorChallengesTable;
  idempotency_keys: IdempotencyKeysTable;
  account_counts: AccountCountsTable;
  account_versions: AccountVersionsTable;
  clients_search_keys: ClientsSearchKeysTable;
  clients_fts: ClientsFtsTable;
  listings_search_keys: ListingsSearchKeysTable;
  listings_fts: ListingsFtsTable;
  instance_secrets: InstanceSecretsTable;
  products: billing.ProductsTable;
  invoices: billing.InvoicesTable;
  invoice_items: billing.InvoiceItemsTable;
  payments: billing.PaymentsTable;
  invoice_numbers: billing.InvoiceNumbersTable;
  stripe_accounts: stripe.StripeAccountsTable;
  stripe_checkouts: stripe.StripeCheckoutsTable;
  listing_kits: kit.ListingKitsTable;
  listing_kit_items: kit.ListingKitItemsTable;
}
