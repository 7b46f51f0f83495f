// The tours of a gallery on its public pages (docs/api.md §28): a tour at a provider's address (the
// README lists the forms) plays in the page, in a frame of that provider's player; any other is a
// plain link that opens in a new tab. A page that embeds one sends a CSP whose `frame-src` names
// exactly the providers' player hosts (src/public/headers.ts); a page without one frames nothing.
import type { FastifyReply } from 'fastify';
import { html, type SafeHtml } from '../../lib/html.ts';
import { TOUR_PROVIDERS, tourEmbed, type TourType } from '../../modules/listings/tours.ts';
import { allowTourFrames, type PublicHeaderOptions } from '../headers.ts';

const ICON_OPEN = html`<svg class="icon" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
  <path
    fill="currentColor"
    d="M14 4h6v6h-2V7.4l-7.3 7.3-1.4-1.4L16.6 6H14V4ZM5 6h6v2H6v10h10v-5h2v6a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V7a1 1 0 0 1 1-1Z"
  />
</svg>`;

/** The tours a page shows: every one, or on the unbranded property page only those marked `unbranded`. */
export const toursFor = (tours: readonly TourType[], unbranded: boolean): TourType[] =>
  unbranded ? tours.filter((t) => t.unbranded) : [...tours];

/** Whether any of these tours is embedded (its page then needs the providers in `frame-src`). */
const embedsAny = (tours: readonly TourType[]): boolean => tours.some((t) => tourEmbed(t.url) !== undefined);

/** Lets the page frame the providers' players when it embeds a tour; else its CSP stays as it is. */
export function tourFrames(
  reply: FastifyReply,
  tours: readonly TourType[],
  formAction: PublicHeaderOptions['formAction'],
): void {
  if (embedsAny(tours)) allowTourFrames(reply, formAction);
}

function tourItem(tour: TourType): SafeHtml {
  const embed = tourEmbed(tour.url);
  if (embed === undefined) {
    return html`<li class="tour tour--link">
      <a class="button button--quiet" href="${tour.url}" target="_blank" rel="noopener noreferrer"
        >${ICON_OPEN} ${tour.label}</a
      >
    </li>`;
  }
  const provider = TOUR_PROVIDERS[embed.provider].name;
  // The player is told this site's origin only, never the page's path with its token (YouTube's
  // player refuses to play with no referrer at all). Loaded when near: a tour player is heavy.
  return html`<li class="tour tour--embed">
    <div class="tour__frame">
      <iframe
        src="${embed.src}"
        title="${tour.label} (${provider})"
        loading="lazy"
        referrerpolicy="strict-origin"
        allow="fullscreen; autoplay; xr-spatial-tracking; gyroscope; accelerometer; picture-in-picture"
        allowfullscreen
      ></iframe>
    </div>
    <p class="tour__caption">
      <span class="tour__label">${tour.label}</span>
      <a class="tour__open" href="${tour.url}" target="_blank" rel="noopener noreferrer"
        >Open on ${provider}<span class="visually-hidden"> (${tour.label}, new tab)</span></a
      >
    </p>
  </li>`;
}

/** The page's tours section, or nothing when it has none. */
export function toursSection(tours: readonly TourType[]): SafeHtml | '' {
  if (tours.length === 0) return '';
  return html`<section class="tours" aria-labelledby="tours-title">
    <h2 id="tours-title">${tours.length === 1 ? 'Tour' : 'Tours'} <span class="count">${tours.length}</span></h2>
    <ul class="tours__list">
      ${tours.map(tourItem)}
    </ul>
  </section>`;
}
