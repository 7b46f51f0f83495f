// Protective response headers on every response, set before any route runs, so a route that
// needs its own (media content's sandbox, the dashboard's policy, swagger-ui's assets) simply
// overrides them; and the refusal of compressed request bodies. There is no Server or
// X-Powered-By banner to remove: neither Node nor Fastify sends one (test/protection.test.ts).
import type { FastifyReply, FastifyRequest, preParsingHookHandler } from 'fastify';
import { AppError } from '../errors.ts';

/** JSON and errors: nothing in them may load, run or be framed. */
const API_CSP = "default-src 'none'; frame-ancestors 'none'";
/**
 * Swagger UI (/docs) loads its own scripts, styles and images from this origin, sets inline
 * styles, and calls the API from the page ("Try it out"); nothing else, and never framed.
 */
const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

type Headers = readonly (readonly [string, string])[];

const COMMON: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};
/** The headers of every API answer; also written by hand on answers Node makes below the app. */
export const API: Headers = Object.entries({
  ...COMMON,
  'content-security-policy': API_CSP,
  // Answers are per caller and change with every write: no cache may keep them.
  'cache-control': 'no-store',
});
const DOCS: Headers = Object.entries({ ...COMMON, 'content-security-policy': DOCS_CSP });

const isDocs = (url: string): boolean => url === '/docs' || url.startsWith('/docs/') || url.startsWith('/docs?');

/** Sets each header unless something earlier (a plugin's own hook) already chose its value. */
export function applySecurityHeaders(request: FastifyRequest, reply: FastifyReply): void {
  for (const [name, value] of isDocs(request.url) ? DOCS : API) {
    if (!reply.hasHeader(name)) void reply.header(name, value);
  }
}

/**
 * Request bodies are taken as sent, never decompressed: a 10 KB gzip bomb inflating to gigabytes
 * cannot be opened here, and JSON is small enough (1 MiB) not to need compression. RFC 7694:
 * 415 with Accept-Encoding naming what is accepted. The body is left unread, so the connection
 * closes rather than have Node drain it.
 */
function refuseEncodedBody(request: FastifyRequest): void {
  const encoding = request.headers['content-encoding'];
  if (encoding === undefined) return;
  const codings = encoding
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length === 0) return;
  throw new AppError(
    'unsupported_media_type',
    `Content-Encoding ${codings.join(', ')} is not accepted on request bodies; send the body uncompressed`,
    undefined,
    { 'accept-encoding': 'identity', connection: 'close' },
  );
}

/** Protective headers, before routing (onRequest). */
export function securityHook(request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void {
  applySecurityHeaders(request, reply);
  done();
}

/**
 * The encoding check runs as preParsing: after every onRequest hook, so a /v1 request is
 * authenticated and charged first (401 before 415; the 415 carries the RateLimit fields and is
 * counted, docs/api.md §9), and before anything reads the body.
 */
export const encodedBodyHook: preParsingHookHandler = (request, _reply, payload, done) => {
  // An unrouted request is answered 404/405 unread (answerUnroutedFirst): the method comes first.
  if (request.is404) {
    done(null, payload);
    return;
  }
  try {
    refuseEncodedBody(request);
  } catch (err) {
    done(err as Error);
    return;
  }
  done(null, payload);
};
