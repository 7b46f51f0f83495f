// What `npm run bench` measures on each size, beside the bare server: the endpoints, their
// requests (rotating over the seeded galleries and clients), and where each one applies.
import { MID_TERM, RARE_TERM, SEARCH_TERM } from './data.ts';
import type { GalleryFixture } from './paths.ts';
import type { Seeded } from './seed.ts';

export interface Endpoint {
  name: string;
  label: string;
  method: 'GET' | 'POST' | 'PATCH';
  paths(seeded: Seeded & { gallery?: GalleryFixture; deepCursor?: string }): string[];
  body?: string;
  /**
   * Each request's body: `{run}` replaced by a token new to each measurement, `{n}` by the
   * request's number within it (a client's email is unique within the account).
   */
  bodyTemplate?: string;
  /** No API key: the client's gallery, whose link's token is the credential. */
  anonymous?: boolean;
  /** Only with the newer paths' gallery (--no-paths leaves it out). */
  needsGallery?: boolean;
  /** Only where the heavy account has this many galleries (page 1000 must hold rows). */
  minGalleries?: number;
  /** Connections for this one, instead of --connections (latency of one caller alone). */
  connections?: number;
  /** Left out of --quick (its 5 minutes): measured by the full run and by --endpoints. */
  fullRunOnly?: boolean;
}

export const ENDPOINTS: Endpoint[] = [
  { name: 'list', label: 'list galleries p1 status=active', method: 'GET', paths: () => ['/v1/listings?status=active'] }, // prettier-ignore
  { name: 'page1000', label: 'list galleries page 1000', method: 'GET', paths: () => ['/v1/listings?page=1000&limit=20'], minGalleries: 20_000 }, // prettier-ignore
  // docs/api.md §19: the unfiltered first page, a cursor 1000 pages in (keyset: as cheap as page
  // 1), and the filters of the issue (client_id, updated_since, search), each against page 1.
  { name: 'page1', label: 'list galleries p1 (unfiltered)', method: 'GET', paths: () => ['/v1/listings?limit=20'], fullRunOnly: true }, // prettier-ignore
  { name: 'cursor1000', label: 'list galleries by cursor, page 1000', method: 'GET', paths: (s) => [`/v1/listings?limit=20&cursor=${s.deepCursor ?? ''}`], minGalleries: 20_020, fullRunOnly: true }, // prettier-ignore
  { name: 'byclient', label: 'list galleries client_id=<client>', method: 'GET', paths: (s) => s.clientIds.slice(0, 50).map((id) => `/v1/listings?limit=20&client_id=${id}`), fullRunOnly: true }, // prettier-ignore
  { name: 'updated', label: 'list galleries updated_since, sort=-updated_at', method: 'GET', paths: () => ['/v1/listings?limit=20&sort=-updated_at&updated_since=2000-01-01T00:00:00Z'], fullRunOnly: true }, // prettier-ignore
  { name: 'bysearch', label: 'list galleries search=Harbor', method: 'GET', paths: () => ['/v1/listings?limit=20&search=Harbor'], fullRunOnly: true }, // prettier-ignore
  // Decision 0024: a rare term (street numbers ending in 12 on Harbor: about 1 in 2,000, some
  // 450 galleries at 1M), and one near the plans' crossover (ending in 2: 1 in 200, some 4,500).
  { name: 'raresearch', label: `list galleries search=${RARE_TERM}`, method: 'GET', paths: () => [`/v1/listings?limit=20&search=${encodeURIComponent(RARE_TERM)}`], fullRunOnly: true }, // prettier-ignore
  { name: 'midsearch', label: `list galleries search=${MID_TERM}`, method: 'GET', paths: () => [`/v1/listings?limit=20&search=${encodeURIComponent(MID_TERM)}`], fullRunOnly: true }, // prettier-ignore
  { name: 'get', label: 'get one gallery', method: 'GET', paths: (s) => s.galleryIds.map((id) => `/v1/listings/${id}`) }, // prettier-ignore
  { name: 'search', label: `list clients search=${SEARCH_TERM}`, method: 'GET', paths: () => [`/v1/clients?search=${SEARCH_TERM}`] }, // prettier-ignore
  // The search target is a latency (p50 < 5 ms): at -c50 p50 is mostly queueing (50 / req/s).
  { name: 'search1', label: `list clients search=${SEARCH_TERM}, 1 conn`, method: 'GET', paths: () => [`/v1/clients?search=${SEARCH_TERM}`], connections: 1 }, // prettier-ignore
  { name: 'client', label: 'get one client + galleries', method: 'GET', paths: (s) => s.clientIds.map((id) => `/v1/clients/${id}`) }, // prettier-ignore
  // The account's other lists: its notification emails and its webhook endpoints.
  { name: 'notifications', label: 'list notifications', method: 'GET', paths: () => ['/v1/notifications'], fullRunOnly: true }, // prettier-ignore
  { name: 'webhooks', label: 'list webhook endpoints', method: 'GET', paths: () => ['/v1/webhook_endpoints'], fullRunOnly: true }, // prettier-ignore
  // The client's gallery page (a core read for a gallery's visitors) and the API's media list of
  // the same gallery (its own baseline), both beside the bare server: packages/bench/src/lib/paths.ts.
  { name: 'gallery', label: 'gallery page /g/<token>', method: 'GET', paths: (s) => [s.gallery?.linkPath ?? '/'], anonymous: true, needsGallery: true }, // prettier-ignore
  { name: 'media', label: 'list media of the gallery', method: 'GET', paths: (s) => [`/v1/listings/${s.gallery?.listingId ?? ''}/media`], needsGallery: true }, // prettier-ignore
  {
    name: 'create',
    label: 'create gallery',
    method: 'POST',
    paths: () => ['/v1/listings'],
    body: JSON.stringify({ address: '742 Evergreen Terrace, Springfield', beds: 4, baths: 2.5, sqft: 2100, description: 'Benchmark gallery', mls_number: 'MLS-BENCH' }), // prettier-ignore
  },
  {
    name: 'update',
    label: 'update gallery (PATCH)',
    method: 'PATCH',
    paths: (s) => s.galleryIds.map((id) => `/v1/listings/${id}`),
    body: JSON.stringify({ description: 'Benchmark update', beds: 5 }),
    fullRunOnly: true,
  },
  // The same two writes of a client (docs/api.md §7): a create with a new email each time, and a
  // PATCH of the client's phone and notes (no email change: none of its emails to re-address).
  {
    name: 'createclient',
    label: 'create client',
    method: 'POST',
    paths: () => ['/v1/clients'],
    bodyTemplate: JSON.stringify({ name: 'Bench Client {run} {n}', email: 'bench-{run}-{n}@bench.invalid', phone: '555-0100', company: 'Bench Realty' }), // prettier-ignore
    fullRunOnly: true,
  },
  {
    name: 'updateclient',
    label: 'update client (PATCH)',
    method: 'PATCH',
    paths: (s) => s.clientIds.map((id) => `/v1/clients/${id}`),
    body: JSON.stringify({ phone: '555-0199', notes: 'Benchmark update' }),
    fullRunOnly: true,
  },
  {
    name: 'assign',
    label: 'assign gallery to client',
    method: 'POST',
    // Client and gallery samples have coprime lengths, so the pairs rarely repeat: almost every
    // request is a real reassignment that queues a notification email.
    paths: (s) => Array.from({ length: 20_000 }, (_, i) => `/v1/clients/${s.clientIds[i % s.clientIds.length] ?? ''}/listings/${s.galleryIds[i % s.galleryIds.length] ?? ''}`), // prettier-ignore
  },
];

let measurements = 0;

/** An endpoint's body for one measurement: its fixed body, or its template with `{run}` made new. */
export function bodyOf(e: Endpoint): { body?: string; bodyTemplate?: string } {
  if (e.bodyTemplate !== undefined) return { bodyTemplate: e.bodyTemplate.replaceAll('{run}', `r${(measurements += 1)}`) }; // prettier-ignore
  return e.body === undefined ? {} : { body: e.body };
}
