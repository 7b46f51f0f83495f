// The headers of every response under /p (docs/api.md §25): the client gallery's (docs/api.md §14)
// except X-Robots-Tag, a strict CSP, and framing refused everywhere but the embeddable view.
import type { FastifyReply } from 'fastify';

/** Nothing from another origin, no inline script or style, no form; framed by no one. */
const propertyCsp = (frameAncestors: string): string =>
  "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'self'; script-src 'self'; " +
  `font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors ${frameAncestors}`;

export const PROPERTY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': propertyCsp("'none'"),
  'referrer-policy': 'no-referrer',
  // Public, but taken down at once when unpublished: every cache asks again.
  'cache-control': 'no-cache',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

/** The embeddable view alone: any site may frame it (docs/api.md §25). */
export function allowFraming(reply: FastifyReply): void {
  void reply.header('content-security-policy', propertyCsp('*')).removeHeader('x-frame-options');
}
