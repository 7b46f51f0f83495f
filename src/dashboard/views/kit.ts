// A gallery's listing kit on its dashboard page (docs/api.md §32): its status in words, a Build (or
// Rebuild) button, and each item made with a preview (the social images as thumbnails, the videos
// as players) and a download. Every byte comes through the dashboard's own route
// (gallery-kit.routes.ts), never the API's URL, which wants a key. A plain form: no script needed.
import { html, type SafeHtml } from '../../lib/html.ts';
import type { ListingType } from '../../modules/listings/listings.schemas.ts';
import type { KitType } from '../../modules/kit/kit.schemas.ts';
import { when } from './format.ts';
import { bytes } from './gallery-media.ts';
import { csrfField } from './layout.ts';

type Video = NonNullable<KitType['slideshow']>;
type Social = NonNullable<KitType['social']>[number];

const STATUS_WORDS: Record<KitType['status'], string> = {
  none: 'Not built',
  building: 'Building',
  ready: 'Ready',
  stale: 'Out of date',
  failed: 'Failed',
};

const VIDEOS: readonly {
  name: 'slideshow' | 'slideshow_unbranded' | 'reel' | 'teaser';
  title: string;
  what: string;
}[] = [
  { name: 'slideshow', title: 'Slideshow', what: 'Opens and closes on a card with the address and your studio name.' },
  { name: 'slideshow_unbranded', title: 'Unbranded slideshow', what: 'No text at all, for listing services that forbid branding.' }, // prettier-ignore
  { name: 'reel', title: 'Reel', what: 'Vertical, at most a minute: for Reels, Shorts and Stories.' },
  { name: 'teaser', title: 'Teaser', what: 'At most 15 seconds: the cover and the best photos.' },
];

const SOCIAL_TITLES: Record<Social['format'], string> = {
  square: 'Square',
  portrait: 'Portrait',
  story: 'Story',
};

const itemUrl = (l: ListingType, name: string): string => `/dashboard/galleries/${l.id}/kit/${name}`;

/** 75 seconds as 1:15. */
function duration(seconds: number): string {
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

function download(l: ListingType, name: string, label: string): SafeHtml {
  return html`<a class="button button-secondary button-small" href="${itemUrl(l, name)}" download
    >Download<span class="visually-hidden"> ${label}</span></a
  >`;
}

/** An item: its preview (or a box saying what the file is), its name, what it is, its size, a download. */
function item(
  l: ListingType,
  o: { name: string; title: string; preview: SafeHtml; facts: string; what: string; video?: true },
) {
  return html`<li class="${o.video === true ? 'kit-item kit-item-video' : 'kit-item'}">
    <div class="kit-preview">${o.preview}</div>
    <div class="kit-text">
      <h3 class="kit-title">${o.title}</h3>
      <p class="kit-what">${o.what}</p>
      <p class="kit-facts muted">${o.facts}</p>
      ${download(l, o.name, o.title)}
    </div>
  </li>`;
}

const fileBox = (kind: string): SafeHtml => html`<span class="kit-file" aria-hidden="true">${kind}</span>`;

function videoItem(l: ListingType, v: Video, o: (typeof VIDEOS)[number]): SafeHtml {
  const shape = v.height > v.width ? ' kit-video-tall' : '';
  return item(l, {
    name: o.name,
    title: o.title,
    preview: html`<video
      class="kit-video${shape}"
      controls
      preload="metadata"
      playsinline
      width="${v.width}"
      height="${v.height}"
      src="${itemUrl(l, o.name)}#t=1"
      aria-label="${o.title}"
    ></video>`,
    facts: `MP4 · ${v.width} × ${v.height} · ${duration(v.duration_seconds)} · ${bytes(v.size)}`,
    what: o.what,
    video: true,
  });
}

function socialItems(l: ListingType, social: KitType['social']): SafeHtml[] {
  return (social ?? []).map((s) => {
    const name = `social_${s.format}`;
    const title = `${SOCIAL_TITLES[s.format]} image`;
    return item(l, {
      name,
      title,
      preview: html`<img
        class="kit-image"
        src="${itemUrl(l, name)}"
        width="${s.width}"
        height="${s.height}"
        alt="${title} for social media: the cover with the address and facts"
        loading="lazy"
      />`,
      facts: `JPEG · ${s.width} × ${s.height} · ${bytes(s.size)}`,
      what: 'The cover with the address and facts set over it, your studio name small.',
    });
  });
}

function items(l: ListingType, kit: KitType): SafeHtml | '' {
  const list: SafeHtml[] = [];
  if (kit.mls_zip !== null) {
    list.push(
      item(l, {
        name: 'mls_zip',
        title: 'MLS pack',
        preview: fileBox('ZIP'),
        facts: `ZIP · ${bytes(kit.mls_zip.size)}`,
        what: 'The photos sized for the MLS and named in order, with photos.csv and the compliance report.',
      }),
    );
  }
  if (kit.flyer !== null) {
    list.push(
      item(l, {
        name: 'flyer',
        title: 'Flyer',
        preview: fileBox('PDF'),
        facts: `PDF · one page · ${bytes(kit.flyer.size)}`,
        what: 'The cover, the facts, the description and more photos, with a QR code to the property page.',
      }),
    );
  }
  list.push(...socialItems(l, kit.social));
  for (const o of VIDEOS) {
    const v = kit[o.name];
    if (v !== null) list.push(videoItem(l, v, o));
  }
  if (list.length === 0) return '';
  return html`<ul class="kit-items">
    ${list}
  </ul>`;
}

/** What the status means, in a sentence. */
function statusText(kit: KitType): SafeHtml {
  switch (kit.status) {
    case 'none':
      return html`Not built yet. A kit is made from the gallery's visible photos: an MLS pack, a flyer, three social
      images and four videos.`;
    case 'building':
      return kit.built_at === null
        ? html`Building now: the videos take a few minutes. Reload this page to see the kit.`
        : html`Building again now: until it is done, the items below are the ones built ${when(kit.built_at)}.`;
    case 'ready':
      return html`Built ${when(kit.built_at)} from the gallery as it is now.`;
    case 'stale':
      return html`The gallery changed since the kit was built ${when(kit.built_at)}: it is rebuilt within a minute.
      Until then, the items below show the gallery as it was.`;
    case 'failed':
      return html`The last build failed. Try again; if it fails again, check that the gallery's photos open.`;
  }
}

function buildForm(l: ListingType, kit: KitType, csrf: string): SafeHtml | '' {
  if (l.status !== 'active') {
    return html`<p class="hint">Only an active gallery's kit is built: set its status to active first.</p>`;
  }
  if (kit.status === 'building') return '';
  const label = { none: 'Build the kit', ready: 'Rebuild', stale: 'Rebuild now', failed: 'Try again' }[kit.status];
  return html`<form method="post" action="/dashboard/galleries/${l.id}/kit" class="inline">
    ${csrfField(csrf)}
    <button type="submit" class="button${kit.status === 'none' ? '' : ' button-secondary'}">${label}</button>
  </form>`;
}

export function kitSection(o: { listing: ListingType; kit: KitType; csrf: string }): SafeHtml {
  const { listing: l, kit } = o;
  return html`<section class="card" id="kit" aria-labelledby="kit-title">
    <div class="kit-head">
      <h2 id="kit-title">Listing kit</h2>
      <span class="badge badge-kit-${kit.status}">${STATUS_WORDS[kit.status]}</span>
    </div>
    <p class="kit-status">${statusText(kit)}</p>
    ${buildForm(l, kit, o.csrf)} ${items(l, kit)}
    ${
      l.property_page === null
        ? ''
        : html`<p class="hint">
            When the kit is ready, the property page offers its flyer, branded videos and social images, and the
            unbranded page its unbranded slideshow.
          </p>`
    }
  </section>`;
}
