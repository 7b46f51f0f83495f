// A gallery's tours (docs/api.md §28): at most 10 {url, label, unbranded}, set as a whole list with
// PATCH /v1/listings/:id and kept as JSON on the gallery's row. A tour at an address of one of the
// providers below (the forms the README lists) is embedded in the client gallery and the property
// pages, in a frame of the provider's player; any other https URL is shown as a plain link. The
// pages that embed one name exactly these providers' player hosts in their CSP `frame-src`.
import { Type, type Static } from '@sinclair/typebox';
import { AppError } from '../../errors.ts';

export const MAX_TOURS = 10;
export const MAX_TOUR_URL = 2048;

const Tour = Type.Object(
  {
    url: Type.String({
      minLength: 9,
      maxLength: MAX_TOUR_URL,
      format: 'uri',
      pattern: '^[Hh][Tt][Tt][Pp][Ss]://[^\\x00-\\x20\\x7f]+$',
      description:
        'An https URL (at most 2,048 characters). A Matterport, Zillow 3D Home, iGuide, Kuula, YouTube or Vimeo ' +
        'address (the README lists the forms) is embedded in the pages; any other is shown as a link.',
    }),
    label: Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^[^\\x00-\\x1f\\x7f\\uD800-\\uDFFF]*$',
      description: 'What the pages call it (1..100 characters, trimmed, one line).',
    }),
    unbranded: Type.Boolean({
      description: 'Whether the tour may appear on the unbranded property page (the other pages show every tour).',
    }),
  },
  { title: 'Tour', additionalProperties: false },
);
export type TourType = Static<typeof Tour>;

export const Tours = Type.Array(Tour, {
  maxItems: MAX_TOURS,
  description: 'Virtual tours and videos of the property, in the order the pages show them (at most 10).',
});

/** The tours as stored (null: none). */
export function parseTours(stored: string | null): TourType[] {
  if (stored === null || stored === '') return [];
  return JSON.parse(stored) as TourType[];
}

/** The list as the row keeps it: null when empty. */
export const storeTours = (tours: readonly TourType[]): string | null =>
  tours.length === 0 ? null : JSON.stringify(tours);

/** Characters as JSON Schema's maxLength counts them (code points): an emoji is one, not two. */
const characters = (text: string): number => Array.from(text).length;

/**
 * A PATCH's tours, trimmed as every string of the API is (docs/api.md §1), with what the schema
 * cannot say checked: a label that is only white space, and a URL that does not parse as an https
 * address with a host (or that carries a user name or password).
 */
export function normalizeTours(tours: readonly TourType[]): TourType[] {
  const problems: { field: string; message: string }[] = [];
  // The schema says as much to the API; the dashboard's form calls the service directly.
  if (tours.length > MAX_TOURS) problems.push({ field: 'tours', message: `must have at most ${MAX_TOURS} items` });
  const out = tours.map((tour, i) => {
    const label = tour.label.trim();
    const url = tour.url.trim();
    if (label === '') problems.push({ field: `tours.${i}.label`, message: 'must have at least 1 character' });
    // eslint-disable-next-line no-control-regex -- a line break or control character in a label
    if (characters(label) > 100 || /[\x00-\x1f\x7f]/.test(label)) {
      problems.push({ field: `tours.${i}.label`, message: 'must be one line of at most 100 characters' });
    }
    if (characters(url) > MAX_TOUR_URL) {
      problems.push({ field: `tours.${i}.url`, message: `must have at most ${MAX_TOUR_URL} characters` });
    }
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (parsed?.protocol !== 'https:' || parsed.hostname === '' || parsed.username !== '' || parsed.password !== '') {
      problems.push({ field: `tours.${i}.url`, message: 'must be an https URL with a host and no user name' });
    }
    return { url, label, unbranded: tour.unbranded };
  });
  if (problems.length > 0) throw new AppError('validation_error', 'Invalid tours', problems);
  return out;
}

/** The providers whose addresses are embedded, with the one host of their player. */
export const TOUR_PROVIDERS = {
  matterport: { name: 'Matterport', frameHost: 'my.matterport.com' },
  zillow: { name: 'Zillow 3D Home', frameHost: 'www.zillow.com' },
  iguide: { name: 'iGuide', frameHost: 'youriguide.com' },
  kuula: { name: 'Kuula', frameHost: 'kuula.co' },
  youtube: { name: 'YouTube', frameHost: 'www.youtube-nocookie.com' },
  vimeo: { name: 'Vimeo', frameHost: 'player.vimeo.com' },
} as const;
type TourProvider = keyof typeof TOUR_PROVIDERS;

/** The `frame-src` of a page that embeds a tour: exactly the providers' player hosts. */
export const TOUR_FRAME_SRC = Object.values(TOUR_PROVIDERS)
  .map((p) => `https://${p.frameHost}`)
  .join(' ');

export interface TourEmbed {
  provider: TourProvider;
  /** The player's address, on the provider's frame host. */
  src: string;
}

const YOUTUBE_ID = /^[A-Za-z0-9_-]{11}$/;
const SLUG = /^[A-Za-z0-9][A-Za-z0-9_-]{0,199}$/;
const MATTERPORT_ID = /^[A-Za-z0-9]{6,40}$/;
const KUULA_ID = /^[A-Za-z0-9]{3,40}$/;
const ZILLOW_ID = /^[A-Za-z0-9-]{6,80}$/;
const VIMEO_ID = /^[0-9]{1,20}$/;
const VIMEO_HASH = /^[0-9a-f]{4,40}$/;

/** The path's segments, without empty ones (a trailing slash). */
const segments = (url: URL): string[] => url.pathname.split('/').filter((s) => s !== '');

function youtube(url: URL, host: string): TourEmbed | undefined {
  const parts = segments(url);
  let id: string | null | undefined;
  if (host === 'youtu.be') id = parts.length === 1 ? parts[0] : undefined;
  else if (['youtube.com', 'www.youtube.com', 'm.youtube.com', 'www.youtube-nocookie.com'].includes(host)) {
    if (parts.length === 1 && parts[0] === 'watch') id = url.searchParams.get('v');
    else if (parts.length === 2 && ['embed', 'shorts', 'live'].includes(parts[0] ?? '')) id = parts[1];
  }
  if (id === undefined || id === null || !YOUTUBE_ID.test(id)) return undefined;
  return { provider: 'youtube', src: `https://www.youtube-nocookie.com/embed/${id}` };
}

function vimeo(url: URL, host: string): TourEmbed | undefined {
  const parts = segments(url);
  let id: string | undefined;
  let hash: string | null | undefined;
  if (host === 'vimeo.com' || host === 'www.vimeo.com') {
    if (parts.length === 1 || parts.length === 2) [id, hash] = parts;
  } else if (host === 'player.vimeo.com' && parts.length === 2 && parts[0] === 'video') {
    id = parts[1];
    hash = url.searchParams.get('h');
  }
  if (id === undefined || !VIMEO_ID.test(id)) return undefined;
  if (hash !== undefined && hash !== null && !VIMEO_HASH.test(hash)) return undefined;
  // dnt: the player sets no tracking cookie. h: an unlisted video's key.
  const query = hash === undefined || hash === null ? 'dnt=1' : `h=${hash}&dnt=1`;
  return { provider: 'vimeo', src: `https://player.vimeo.com/video/${id}?${query}` };
}

function matterport(url: URL, host: string): TourEmbed | undefined {
  const parts = segments(url);
  let id: string | null | undefined;
  if (host === 'my.matterport.com' && parts.length === 1 && parts[0] === 'show') id = url.searchParams.get('m');
  else if (host === 'discover.matterport.com' && parts.length === 2 && parts[0] === 'space') id = parts[1];
  if (id === undefined || id === null || !MATTERPORT_ID.test(id)) return undefined;
  return { provider: 'matterport', src: `https://my.matterport.com/show/?m=${id}` };
}

function zillow(url: URL, host: string): TourEmbed | undefined {
  const parts = segments(url);
  if ((host !== 'www.zillow.com' && host !== 'zillow.com') || parts.length !== 2) return undefined;
  const [kind, id] = parts;
  if ((kind !== 'view-imx' && kind !== 'view-3d-home') || id === undefined || !ZILLOW_ID.test(id)) return undefined;
  // wl=true: Zillow's own "unbranded" (white label) viewer, as its MLS links use.
  return { provider: 'zillow', src: `https://www.zillow.com/view-imx/${id}?setAttribution=mls&wl=true` };
}

function iguide(url: URL, host: string): TourEmbed | undefined {
  const parts = segments(url);
  if (host !== 'youriguide.com' && host !== 'www.youriguide.com') return undefined;
  const slug = parts.length === 1 ? parts[0] : parts.length === 2 && parts[0] === 'embed' ? parts[1] : undefined;
  if (slug === undefined || !SLUG.test(slug) || slug === 'embed') return undefined;
  return { provider: 'iguide', src: `https://youriguide.com/embed/${slug}` };
}

function kuula(url: URL, host: string): TourEmbed | undefined {
  const parts = segments(url);
  if (host !== 'kuula.co' && host !== 'www.kuula.co') return undefined;
  if (parts.length === 3 && parts[0] === 'share' && parts[1] === 'collection' && KUULA_ID.test(parts[2] ?? '')) {
    return { provider: 'kuula', src: `https://kuula.co/share/collection/${parts[2] ?? ''}` };
  }
  if (parts.length === 2 && (parts[0] === 'post' || parts[0] === 'share') && KUULA_ID.test(parts[1] ?? '')) {
    return { provider: 'kuula', src: `https://kuula.co/share/${parts[1] ?? ''}` };
  }
  return undefined;
}

/** The provider's player for a tour's URL, or undefined: the page shows the URL as a link. */
export function tourEmbed(address: string): TourEmbed | undefined {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '' || url.port !== '') return undefined;
  const host = url.hostname.toLowerCase();
  for (const match of [youtube, vimeo, matterport, zillow, iguide, kuula]) {
    const embed = match(url, host);
    if (embed !== undefined) return embed;
  }
  return undefined;
}
