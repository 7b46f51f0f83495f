// What `npm run bench` seeds: deterministic, realistic rows shaped exactly as the services write
// them (ids with their prefixes in creation order, fixed-width ISO timestamps, normalized
// columns as the services normalize them), so the bulk path stores what the API would have
// stored. The bench imports nothing from src/: these shapes follow the schema (migrations/), and
// `lightbox doctor` checks what it can of them after every seed.
import { createHash } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/** The id prefixes of src/lib/ids.ts the bench writes. */
type IdPrefix = 'acc' | 'cli' | 'lst' | 'med';

/** What the services store for an email they compare (src/lib/email-address.ts). */
const normalizeEmail = (value: string): string => value.trim().toLowerCase();

const pick = <T>(rand: () => number, values: readonly T[]): T => values[Math.floor(rand() * values.length)] as T;

/** Ids as src/lib/ids.ts makes them (prefix + ULID), with the ULID's time taken from `created_at`. */
export function idMaker(prefix: IdPrefix): (timeMs: number) => string {
  const next = monotonicFactory();
  return (timeMs) => `${prefix}_${next(timeMs)}`;
}

const FIRST = [
  'James', 'Mary', 'Robert', 'Patricia', 'John', 'Jennifer', 'Michael', 'Linda', 'David', 'Elizabeth',
  'William', 'Barbara', 'Richard', 'Susan', 'Joseph', 'Jessica', 'Thomas', 'Sarah', 'Carlos', 'Karen',
  'Ana', 'Lucas', 'Sofia', 'Mateo', 'Chloe', 'Noah', 'Emma', 'Liam', 'Olivia', 'Hiroshi', 'Priya', 'Omar',
]; // prettier-ignore
const LAST = [
  'Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez',
  'Hernandez', 'Lopez', 'Gonzalez', 'Wilson', 'Anderson', 'Thomas', 'Taylor', 'Moore', 'Jackson', 'Martin',
  'Lee', 'Perez', 'Thompson', 'White', 'Harris', 'Sanchez', 'Clark', 'Ramirez', 'Lewis', 'Robinson',
  'Walker', 'Young', 'Allen', 'King', 'Wright', 'Scott', 'Torres', 'Nguyen', 'Hill', 'Flores', 'Sanders',
  'Alexander', 'Henderson', 'Okafor', 'Kowalski', 'Novak', 'Tanaka', 'Fischer', 'Rossi', 'Dubois',
]; // prettier-ignore
const STREETS = [
  'Maple', 'Oak', 'Cedar', 'Pine', 'Elm', 'Washington', 'Lake', 'Hill', 'Sunset', 'Park', 'River', 'Main',
  'Church', 'Highland', 'Meadow', 'Willow', 'Forest', 'Spring', 'Harbor', 'Valley',
]; // prettier-ignore
const SUFFIXES = ['St', 'Ave', 'Rd', 'Ln', 'Dr', 'Ct', 'Blvd', 'Way'];
const CITIES = [
  'Springfield, IL 62704', 'Austin, TX 78701', 'Portland, OR 97205', 'Denver, CO 80202', 'Madison, WI 53703',
  'Raleigh, NC 27601', 'Boise, ID 83702', 'Tucson, AZ 85701', 'Savannah, GA 31401', 'Burlington, VT 05401',
]; // prettier-ignore
const COMPANIES = ['Keller Homes', 'Blue Door Realty', 'Summit Properties', 'Northside Group', 'Harbor & Co'];

/**
 * Gallery search terms by frequency (decision 0024), from the address's shape: a street number
 * (1-9999) ending in 12, then Harbor (one street in 20): 1 in 2,000; ending in 2: 1 in 200.
 */
export const RARE_TERM = '12 Harbor';
export const MID_TERM = '2 Harbor';

/** A substring many, but not most, client names contain (Anderson, Sanders, Alexander, Henderson). */
export const SEARCH_TERM = 'ander';

/** A clients row exactly as the services write it. */
export interface ClientRow {
  id: string;
  account_id: string;
  name: string;
  name_normalized: string;
  email: string;
  email_normalized: string;
  phone: string | null;
  company: string | null;
  notes: string | null;
  created_at: string;
  updated_at: string;
}

export const CLIENT_COLUMNS = [
  'id', 'account_id', 'name', 'name_normalized', 'email', 'email_normalized', 'phone', 'company', 'notes',
  'created_at', 'updated_at',
] as const; // prettier-ignore

export function makeClient(rand: () => number, id: string, accountId: string, n: number, at: string): ClientRow {
  const first = pick(rand, FIRST);
  const last = pick(rand, LAST);
  const name = `${first} ${last}`;
  // The sequence number keeps emails unique within the account, as the API requires.
  const email = `${first}.${last}.${n}@example.com`;
  return {
    id,
    account_id: accountId,
    name,
    // What ClientsService.create stores for a trimmed name and email.
    name_normalized: name.toLowerCase(),
    email,
    email_normalized: normalizeEmail(email),
    phone:
      rand() < 0.7
        ? `+1 555 ${String(100 + Math.floor(rand() * 900))} ${String(Math.floor(rand() * 10000)).padStart(4, '0')}`
        : null,
    company: rand() < 0.3 ? pick(rand, COMPANIES) : null,
    notes: rand() < 0.2 ? 'Prefers email; twilight shots for the exterior.' : null,
    created_at: at,
    updated_at: at,
  };
}

/** A listings row exactly as the services write it, counters included. */
export interface ListingRow {
  id: string;
  account_id: string;
  client_id: string | null;
  address: string;
  beds: number | null;
  baths: number | null;
  sqft: number | null;
  status: 'active' | 'archived' | 'draft';
  description: string | null;
  mls_number: string | null;
  media_count: number;
  cover_media_id: string | null;
  created_at: string;
  updated_at: string;
}

export const LISTING_COLUMNS = [
  'id', 'account_id', 'client_id', 'address', 'beds', 'baths', 'sqft', 'status', 'description', 'mls_number',
  'media_count', 'cover_media_id', 'created_at', 'updated_at',
] as const; // prettier-ignore

export function makeListing(
  rand: () => number,
  id: string,
  accountId: string,
  clientId: string | null,
  media: number,
  at: string,
): ListingRow {
  const r = rand();
  // 60% active, 25% archived, 15% draft: a studio's galleries after a few years.
  const status = r < 0.6 ? 'active' : r < 0.85 ? 'archived' : 'draft';
  const beds = 1 + Math.floor(rand() * 6);
  return {
    id,
    account_id: accountId,
    client_id: clientId,
    address: `${String(1 + Math.floor(rand() * 9999))} ${pick(rand, STREETS)} ${pick(rand, SUFFIXES)}, ${pick(rand, CITIES)}`,
    beds,
    baths: Math.max(1, beds - 1 + (rand() < 0.5 ? 0.5 : 0)),
    sqft: 600 + Math.floor(rand() * 4000),
    status,
    description: rand() < 0.5 ? 'Bright corner unit, renovated kitchen, south-facing garden.' : null,
    mls_number: rand() < 0.8 ? `MLS-${String(Math.floor(rand() * 1e8)).padStart(8, '0')}` : null,
    media_count: media,
    cover_media_id: null,
    created_at: at,
    updated_at: at,
  };
}

/** The smallest valid PNG (1×1, transparent): every seeded media row has real stored bytes. */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const TINY_PNG_SHA256 = createHash('sha256').update(TINY_PNG).digest('hex');

export const MEDIA_COLUMNS = [
  'id', 'account_id', 'listing_id', 'kind', 'filename', 'content_type', 'size', 'sha256', 'width', 'height',
  'position', 'storage_key', 'caption', 'hidden', 'variants_status', 'created_at',
] as const; // prettier-ignore

export function makeMedia(id: string, accountId: string, listingId: string, at: string): Record<string, unknown> {
  return {
    id,
    account_id: accountId,
    listing_id: listingId,
    kind: 'photo',
    filename: 'front.png',
    content_type: 'image/png',
    size: TINY_PNG.length,
    sha256: TINY_PNG_SHA256,
    width: 1,
    height: 1,
    position: 1,
    // The key MediaService.upload builds.
    storage_key: `${accountId}/${listingId}/${id}`,
    caption: null,
    hidden: 0,
    // The bulk path makes no variants (and queues none, so a benchmark measures only what it
    // asks for): the photo reads as one whose variants could not be made.
    variants_status: 'failed',
    created_at: at,
  };
}
