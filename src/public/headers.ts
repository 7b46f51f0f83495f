// The headers of every public page (/g, /p, and the portal and share links to come): no referrer
// (a token is in the URL), nothing loaded from another site, no sniffing, and framed by no one
// unless a page says otherwise (the property pages' embeddable view).
import type { FastifyReply } from 'fastify';
import { TOUR_FRAME_SRC } from '../modules/listings/tours.ts';

export interface PublicHeaderOptions {
  /** Where the page's forms may post: 'self' where it has forms, 'none' where it has none. */
  formAction: "'self'" | "'none'";
  /** Private (a capability page: 'private, no-cache') or public and taken down at once ('no-cache'). */
  cacheControl: string;
  /** Search engines turned away (a capability page), or not (a public listing). */
  indexable: boolean;
}

/** Nothing from another origin, no inline script or style; images, video and our own files only. */
const publicCsp = (formAction: PublicHeaderOptions['formAction'], frameAncestors: string, frames = ''): string =>
  "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'self'; script-src 'self'; " +
  `font-src 'self'; connect-src 'self'; ${frames}base-uri 'none'; form-action ${formAction}; ` +
  `frame-ancestors ${frameAncestors}`;

export function publicHeaders(options: PublicHeaderOptions): Readonly<Record<string, string>> {
  return {
    'content-security-policy': publicCsp(options.formAction, "'none'"),
    'referrer-policy': 'no-referrer',
    ...(options.indexable ? {} : { 'x-robots-tag': 'noindex, nofollow' }),
    'cache-control': options.cacheControl,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
  };
}

/** A page any site may frame (the property pages' embeddable view, docs/api.md §25). */
export function allowFraming(reply: FastifyReply, formAction: PublicHeaderOptions['formAction']): void {
  void reply.header('content-security-policy', publicCsp(formAction, '*')).removeHeader('x-frame-options');
}

/**
 * A page that embeds a tour (docs/api.md §28): the same policy, and `frame-src` naming exactly the
 * tour providers' player hosts. Framed by no one still.
 */
export function allowTourFrames(reply: FastifyReply, formAction: PublicHeaderOptions['formAction']): void {
  void reply.header('content-security-policy', publicCsp(formAction, "'none'", `frame-src ${TOUR_FRAME_SRC}; `));
}
