// Conditional requests on /v1 (docs/api.md §17, docs/decisions/0014-account-versions.md).
// Every GET (and HEAD) of a JSON resource or list answers with a weak ETag built from the
// account's version (one primary-key read, raised by the database in the transaction of every
// write) and the request's URL; a matching If-None-Match answers 304 before the handler runs, so
// a 304 costs the version read, not the queries and serialization of the 200 it replaces. Public
// page counters and the event log (with its deliveries) raise versions of their own instead, which
// only the tags of the reads that show them are built on (`showsOf`).
// Routes that serve stored bytes declare their own 304 and keep their own strong ETags.
//
// The tag also keys this node's cache of 200 bodies (HTTP_RESPONSE_CACHE_MB, decisions/0016): a
// body is stored under the tag it was sent with and sent again for a request whose tag is the
// same, as a 304 would tell a client to reuse its own copy. The version in the tag is read from
// the database on every request, so a write through any node, path or job makes every older
// entry unreachable at once; entries are never served by age, only by an exact tag.
import { hash } from 'node:crypto';
import type { FastifyReply, FastifyRequest, onSendHookHandler, RouteOptions } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { RouteHooksFor } from './route-hooks.ts';
import type { App } from './types.ts';

export interface ConditionalOptions {
  /**
   * The account's current versions, read from the database (never cached): `version`, raised by
   * every change a read shows but those below; `views`, raised by public page activity alone (a
   * gallery's view and download counters, a property page's views); `events`, raised by the event
   * log and the webhook deliveries alone. Only the reads that show the last two are built on them.
   */
  version(accountId: string): Promise<{ version: number; views: number; events: number }>;
  /**
   * What else the representations depend on, constant per process: the OpenAPI document (the
   * shapes), the public URL (absolute URLs in bodies). Read once, at the first request.
   */
  salt(): string;
  /** Bytes of 200 bodies kept by tag on this node (0: none kept). */
  cacheBytes: number;
}

/** A 200 body as it was sent, kept under its tag. */
interface CachedBody {
  body: Buffer;
  contentType: string;
}

/** Bodies larger than this are not kept (a few large pages would push out many small ones). */
const MAX_CACHED_BODY = 1024 * 1024;

/** A request's state between the precondition check and the response. */
export interface ConditionalState {
  etag: string;
  /** `If-None-Match: *`: any current representation matches, so a 200 becomes a 304. */
  any: boolean;
}

/** Longer If-None-Match values are ignored, as malformed ones are (documented in the OpenAPI document). */
const IF_NONE_MATCH_MAX = 8192;

/**
 * The entity-tags of an If-None-Match value (RFC 9110 section 13.1.2): `'*'`, the list of
 * opaque tags (with their quotes, without `W/`: If-None-Match compares weakly), or null when the
 * value is malformed or longer than IF_NONE_MATCH_MAX (then it is ignored, as if absent).
 */
export function parseIfNoneMatch(value: string): '*' | string[] | null {
  if (value.length > IF_NONE_MATCH_MAX) return null;
  const trimmed = value.trim();
  if (trimmed === '*') return '*';
  const tags: string[] = [];
  let i = 0;
  const n = value.length;
  while (i < n) {
    const c = value.charCodeAt(i);
    // Separators and optional white space; empty list elements are allowed (RFC 9110 5.6.1.2).
    if (c === 0x20 || c === 0x09 || c === 0x2c) {
      i += 1;
      continue;
    }
    if (value.startsWith('W/', i)) i += 2;
    if (value.charCodeAt(i) !== 0x22) return null;
    const end = value.indexOf('"', i + 1);
    if (end === -1) return null;
    const tag = value.slice(i, end + 1);
    // etagc: %x21 / %x23-7E / obs-text (no control characters, no space).
    for (let j = 1; j < tag.length - 1; j += 1) {
      const t = tag.charCodeAt(j);
      if (t < 0x21 || t === 0x7f) return null;
    }
    tags.push(tag);
    i = end + 1;
    // After a tag: only white space, then a comma or the end.
    while (i < n && (value.charCodeAt(i) === 0x20 || value.charCodeAt(i) === 0x09)) i += 1;
    if (i < n && value.charCodeAt(i) !== 0x2c) return null;
  }
  return tags;
}

/** Weak comparison (RFC 9110 8.8.3.2) of an If-None-Match value against the current tag. */
export function ifNoneMatch(value: string | undefined, etag: string): 'match' | 'any' | 'none' {
  if (value === undefined) return 'none';
  const parsed = parseIfNoneMatch(value);
  if (parsed === null) return 'none';
  if (parsed === '*') return 'any';
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  return parsed.includes(opaque) ? 'match' : 'none';
}

/** The part of the tag that is not the version: 12 bytes of SHA-256 (16 base64url characters). */
function resourceDigest(salt: string, accountId: string, url: string): string {
  return hash('sha256', `${salt}\n${accountId}\n${url}`, 'base64url').slice(0, 16);
}

/** Digests of the resources read lately: the same account and URL repeat; the version does not. */
const MAX_DIGESTS = 10_000;

/**
 * Whether a route gets the account-version ETag: the /v1 GETs (and their HEAD twins) that answer
 * a JSON body, except those that declare their own 304 (stored bytes) or need no key (the
 * OpenAPI document, tagged by its own hash). A HEAD-only route with no JSON 200 (a tus upload's
 * offset) is not a JSON read.
 */
export function isConditionalRoute(route: Pick<RouteOptions, 'method' | 'schema' | 'config'>): boolean {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if (!methods.every((m) => m === 'GET' || m === 'HEAD')) return false;
  const responses = (route.schema?.response ?? {}) as Record<string, { type?: unknown; content?: unknown } | undefined>;
  if ('304' in responses) return false;
  const ok = responses['200'];
  if (ok === undefined || ok.content !== undefined || ok.type === 'null') return false;
  return route.config?.auth !== false;
}

/** The named schemas (titles) of the event log's rows and of the webhook deliveries. */
const EVENT_LOG_SCHEMAS: ReadonlySet<unknown> = new Set(['Event', 'WebhookDelivery']);

/** Which versions a route's tag is built on besides the account's `version`. */
interface Shows {
  /**
   * Public page counters (a `views` field anywhere in its 200: the gallery object's `client_link`
   * and `property_page`), raised by a page view on /g or /p.
   */
  views: boolean;
  /** The event log's events or the webhook deliveries (by their schemas' titles). */
  events: boolean;
}

/**
 * What a route's 200 shows, from its response schema: only such tags are built on the views and
 * events versions too, so a page view or a visitor's event leaves every other tag of the studio as
 * it was (docs/decisions/0014-account-versions.md, the amendments).
 */
function showsOf(route: Pick<RouteOptions, 'schema'>): Shows {
  const ok = (route.schema?.response as Record<string, unknown> | undefined)?.['200'];
  const shows: Shows = { views: false, events: false };
  const pending: unknown[] = [ok];
  // Iterative and bounded: response schemas are ours, but a $ref loop must not hang start-up.
  for (let seen = 0; pending.length > 0 && seen < 10_000; seen += 1) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) continue;
    const properties = (node as { properties?: unknown }).properties;
    if (typeof properties === 'object' && properties !== null && Object.hasOwn(properties, 'views')) {
      shows.views = true;
    }
    if (EVENT_LOG_SCHEMAS.has((node as { title?: unknown }).title)) shows.events = true;
    pending.push(...(Object.values(node) as unknown[]));
  }
  return shows;
}

export function registerConditionalGets(v1: App, options: ConditionalOptions): RouteHooksFor {
  v1.decorateRequest('conditional', null);
  let salt: string | undefined;
  const digests = new Map<string, string>();
  const cache =
    options.cacheBytes > 0
      ? new LRUCache<string, CachedBody>({
          maxSize: options.cacheBytes,
          maxEntrySize: MAX_CACHED_BODY,
          sizeCalculation: (entry) => entry.body.length + 200,
        })
      : undefined;

  // After authentication, the rate limit, validation and the Idempotency-Key check (the hooks of
  // the scope, then the route hooks attached before this one): preconditions are evaluated last
  // (RFC 9110 13.2.1), so a refused request is refused whatever its If-None-Match.
  const checkFor = (shows: Shows) => async (request: FastifyRequest, reply: FastifyReply) => {
    salt ??= options.salt();
    const { accountId } = request.auth;
    const versions = await options.version(accountId);
    let version = String(versions.version);
    if (shows.views) version += `.${versions.views}`;
    if (shows.events) version += `.e${versions.events}`;
    const resource = `${accountId}\n${request.url}`;
    let digest = digests.get(resource);
    if (digest === undefined) {
      // Bounded by clearing: URLs are the caller's to choose, and a digest is cheap to make again.
      if (digests.size >= MAX_DIGESTS) digests.clear();
      digest = resourceDigest(salt, accountId, request.url);
      digests.set(resource, digest);
    }
    // A weak ETag: the version(s), then a hash of what else the body depends on (account, URL, build).
    const etag = `W/"${version}-${digest}"`;
    const outcome = ifNoneMatch(request.headers['if-none-match'], etag);
    if (outcome === 'match') return reply.code(304).header('etag', etag).send();
    if (outcome === 'none' && request.method === 'GET') {
      const cached = cache?.get(etag);
      if (cached !== undefined) {
        return reply.code(200).header('etag', etag).header('content-type', cached.contentType).send(cached.body);
      }
    }
    request.conditional = { etag, any: outcome === 'any' };
    return undefined;
  };

  // Only a 200 carries the tag: an error is not a representation of the resource.
  const stamp: onSendHookHandler = (request, reply, payload, done) => {
    // A HEAD's 304 from the check: Fastify's HEAD handler (before this one) said `0`; a 304 may
    // only state the length a 200 would have had, so it states none.
    if (reply.statusCode === 304) void reply.removeHeader('content-length');
    const state = request.conditional;
    if (state === null || reply.statusCode !== 200) {
      done(null, payload);
      return;
    }
    void reply.header('etag', state.etag);
    const contentType = reply.getHeader('content-type');
    if (
      cache !== undefined &&
      request.method === 'GET' &&
      typeof payload === 'string' &&
      typeof contentType === 'string'
    ) {
      cache.set(state.etag, { body: Buffer.from(payload), contentType });
    }
    if (state.any) {
      // `*` matches any current representation: there is one, since the handler found it.
      void reply.code(304).removeHeader('content-type').removeHeader('content-length');
      done(null, null);
      return;
    }
    done(null, payload);
  };

  // One check per combination a route can need, made once.
  const checks = new Map<string, ReturnType<typeof checkFor>>();
  return (route) => {
    if (!isConditionalRoute(route)) return undefined;
    const shows = showsOf(route);
    const key = `${shows.views}.${shows.events}`;
    let preHandler = checks.get(key);
    if (preHandler === undefined) {
      preHandler = checkFor(shows);
      checks.set(key, preHandler);
    }
    return { preHandler, onSend: stamp };
  };
}
