// A route's deprecation (docs/api-stability.md): `config: { deprecated: { since, sunset, link } }`
// on the route makes every answer of it, errors included, carry
//   Deprecation: @<unix seconds>              (RFC 9745: when it was, or will be, deprecated)
//   Sunset: <HTTP-date>                       (RFC 8594: when it may stop answering)
//   Link: <...>; rel="deprecation", <...>; rel="sunset"   (where to read what replaces it)
// and marks its operation `deprecated: true` in the OpenAPI document (src/http/openapi.ts), so
// integrators' tools and logs see it long before scripts/api-compat.ts would let it go.
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

export interface Deprecation {
  /** When the route was (or will be) deprecated: an ISO 8601 date or time. */
  since: string;
  /** When it may be removed: an ISO 8601 date or time, after `since`. */
  sunset?: string;
  /** A page that says what to use instead. */
  link?: string;
}

const time = (value: string, what: string, url: string): number => {
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(ms))
    throw new Error(`${url}: deprecated.${what} must be an ISO 8601 date (got ${JSON.stringify(value)})`);
  return ms;
};

/** The headers of a deprecated route's answers. */
export function deprecationHeaders(d: Deprecation, url = 'route'): Record<string, string> {
  const since = time(d.since, 'since', url);
  const headers: Record<string, string> = { deprecation: `@${String(Math.floor(since / 1000))}` };
  const links: string[] = [];
  if (d.link !== undefined) links.push(`<${d.link}>; rel="deprecation"; type="text/html"`);
  if (d.sunset !== undefined) {
    const sunset = time(d.sunset, 'sunset', url);
    if (sunset <= since) throw new Error(`${url}: deprecated.sunset must come after deprecated.since`);
    // toUTCString() writes RFC 9110's IMF-fixdate: Fri, 01 Jan 2027 00:00:00 GMT.
    headers.sunset = new Date(sunset).toUTCString();
    if (d.link !== undefined) links.push(`<${d.link}>; rel="sunset"; type="text/html"`);
  }
  if (links.length > 0) headers.link = links.join(', ');
  return headers;
}

/** onRoute: a malformed deprecation stops the start, rather than sending bad headers later. */
export function checkDeprecation(route: RouteOptions): void {
  const d = route.config?.deprecated;
  if (d !== undefined) deprecationHeaders(d, route.url);
}

/** onRequest, at the root: the headers go on every answer of a deprecated route. */
export function deprecationHook(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  const d = request.routeOptions.config.deprecated;
  if (d !== undefined) void reply.headers(deprecationHeaders(d, request.routeOptions.url));
  done();
}
