// docs/api.md §32: what a property page offers of its listing kit (src/property/property.kit.ts),
// under the page's own path: the slideshow played in the page (the cover as its poster; nothing
// loads until play) with a download, then the other files as the page's documents are listed, and
// the social images as thumbnails that download. The unbranded page's list is its unbranded
// slideshow alone, named as nothing of the studio.
import { html, type SafeHtml } from '../../lib/html.ts';
import { fileSize, ICON_DOWNLOAD } from '../../gallery/views/parts.ts';
import { variantUrl } from '../../public/views/images.ts';
import type { PageKitItem } from '../property.kit.ts';
import type { PropertyView } from '../property.load.ts';

const ICON_FILE = html`<svg class="icon icon--large" viewBox="0 0 24 24" width="28" height="28" aria-hidden="true">
  <path
    fill="currentColor"
    d="M6 2h8l6 6v12a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2Zm7 1.5V9h5.5L13 3.5ZM8 13v1.5h8V13H8Zm0 3v1.5h6V16H8Z"
  />
</svg>`;
const ICON_VIDEO = html`<svg class="icon icon--large" viewBox="0 0 24 24" width="28" height="28" aria-hidden="true">
  <path
    fill="currentColor"
    d="M4 5h12a2 2 0 0 1 2 2v2.5l4-2.5v10l-4-2.5V17a2 2 0 0 1-2 2H4a2 2 0 0 1-2-2V7a2 2 0 0 1 2-2Zm0 2v10h12V7H4Z"
  />
</svg>`;

const TITLES: Partial<Record<PageKitItem['name'], string>> = {
  flyer: 'Flyer',
  slideshow: 'Slideshow',
  slideshow_unbranded: 'Slideshow',
  reel: 'Vertical video',
  teaser: 'Short video',
  social_square: 'Square',
  social_portrait: 'Portrait',
  social_story: 'Story',
};

/** 75 seconds as 1:15. */
function length(seconds: number): string {
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

const titleOf = (i: PageKitItem): string => TITLES[i.name] ?? i.name;

function factsOf(i: PageKitItem): string {
  if (i.kind === 'pdf') return `PDF · ${fileSize(i.size)}`;
  if (i.kind === 'image') return `${i.width ?? ''} × ${i.height ?? ''} · ${fileSize(i.size)}`;
  const parts = ['MP4'];
  if (i.seconds !== null) parts.push(length(i.seconds));
  if (i.width !== null && i.height !== null) parts.push(`${i.width} × ${i.height}`);
  parts.push(fileSize(i.size));
  return parts.join(' · ');
}

/** The slideshow in the page: the cover its poster, nothing fetched until it plays. */
function player(view: PropertyView, base: string, i: PageKitItem): SafeHtml {
  const cover = view.cover;
  const src = `${base}/kit/${i.name}`;
  return html`<li class="file file--video kit__player">
    ${
      cover === undefined
        ? html`<video controls preload="metadata" playsinline src="${src}#t=0.1" aria-label="${titleOf(i)}"></video>`
        : html`<video
            controls
            preload="none"
            playsinline
            poster="${variantUrl(base, cover, 'large')}"
            width="${i.width ?? 1920}"
            height="${i.height ?? 1080}"
            src="${src}"
            aria-label="${titleOf(i)}"
          ></video>`
    }
    <a class="file__link" href="${src}" download>
      <span class="file__text">
        <span class="file__name">${titleOf(i)}</span>
        <span class="file__size">${factsOf(i)}</span>
      </span>
      <span class="file__action">${ICON_DOWNLOAD} Download<span class="visually-hidden"> ${titleOf(i)}</span></span>
    </a>
  </li>`;
}

function fileItem(base: string, i: PageKitItem): SafeHtml {
  return html`<li class="file file--document">
    <a class="file__link" href="${base}/kit/${i.name}" download>
      ${i.kind === 'pdf' ? ICON_FILE : ICON_VIDEO}
      <span class="file__text">
        <span class="file__name">${titleOf(i)}</span>
        <span class="file__size">${factsOf(i)}</span>
      </span>
      <span class="file__action">${ICON_DOWNLOAD} Download<span class="visually-hidden"> ${titleOf(i)}</span></span>
    </a>
  </li>`;
}

function socialItem(base: string, i: PageKitItem): SafeHtml {
  return html`<li class="kit__image">
    <a href="${base}/kit/${i.name}" download>
      <img
        src="${base}/kit/${i.name}"
        width="${i.width ?? 1080}"
        height="${i.height ?? 1080}"
        alt="${titleOf(i)} image for social media"
        loading="lazy"
        decoding="async"
      />
      <span class="kit__image-text">
        <span class="file__name">${titleOf(i)}</span>
        <span class="file__size">${factsOf(i)}</span>
      </span>
    </a>
  </li>`;
}

/** The page's kit section; nothing when the page offers none. */
export function kitSection(view: PropertyView, items: readonly PageKitItem[]): SafeHtml | '' {
  if (items.length === 0) return '';
  const base = `/p/${view.token}`;
  const shown = items.find((i) => i.name === 'slideshow' || i.name === 'slideshow_unbranded');
  const files = items.filter((i) => i !== shown && i.kind !== 'image');
  const images = items.filter((i) => i.kind === 'image');
  const title = view.branded ? 'Flyer and videos' : 'Slideshow';
  return html`<section class="kit" aria-labelledby="kit-title">
    <h2 id="kit-title">${title}</h2>
    ${
      shown === undefined
        ? ''
        : html`<ul class="files files--videos">
            ${player(view, base, shown)}
          </ul>`
    }
    ${
      files.length === 0
        ? ''
        : html`<ul class="files files--documents kit__files">
            ${files.map((i) => fileItem(base, i))}
          </ul>`
    }
    ${
      images.length === 0
        ? ''
        : html`<h3 class="kit__subtitle">Images for social media</h3>
            <ul class="kit__images">
              ${images.map((i) => socialItem(base, i))}
            </ul>`
    }
  </section>`;
}
