// Helpers for the client gallery suites (docs/api.md §14): a gallery with a client and its link, the
// link as the API reports it, the headers every /g response carries, and a reader of the ZIP the
// gallery serves (its central directory, ZIP64 included), independent of src/gallery/zip.ts.
import assert from 'node:assert/strict';
import { call, type Response, type TestAccount, type TestContext } from './test-app.ts';
import { newClient, newGallery } from './notification-helpers.ts';

export interface ClientLinkJson {
  url: string;
  created_at: string;
  views: number;
  first_viewed_at: string | null;
  last_viewed_at: string | null;
  downloads: number;
  expires_at: string | null;
  password_protected: boolean;
  downloads_enabled: boolean;
  favorites_count: number;
}

/** The gallery's `client_link` as GET /v1/listings/:id reports it. */
export async function clientLink(ctx: TestContext, key: string, listingId: string): Promise<ClientLinkJson | null> {
  const res = await call(ctx, 'GET', `/v1/listings/${listingId}`, { key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ client_link: ClientLinkJson | null }>().client_link;
}

/** The path of a link (`/g/<token>`), from its absolute URL. */
export function linkPath(link: ClientLinkJson | null): string {
  assert.ok(link !== null, 'the gallery has no client link');
  return new URL(link.url).pathname;
}

export interface LinkedGallery {
  listingId: string;
  clientId: string;
  /** `/g/<token>` */
  path: string;
}

/** A new gallery assigned (without an email) to a new client: its id, the client and the link's path. */
export async function linkedGallery(
  ctx: TestContext,
  account: TestAccount,
  body: Record<string, unknown> = {},
): Promise<LinkedGallery> {
  const listing = await newGallery(ctx, account, body);
  const client = await newClient(ctx, account);
  const res = await call(ctx, 'POST', `/v1/clients/${client.id}/listings/${listing.id}`, {
    key: account.key,
    query: { notify: 'false' },
  });
  assert.equal(res.statusCode, 200, res.body);
  return {
    listingId: listing.id,
    clientId: client.id,
    path: linkPath(res.json<{ client_link: ClientLinkJson }>().client_link),
  };
}

/** A GET (or another method) under /g, from a client address (127.0.0.1 unless told). */
export function visit(
  ctx: TestContext,
  url: string,
  options: { method?: 'GET' | 'HEAD'; headers?: Record<string, string>; remoteAddress?: string } = {},
): Promise<Response> {
  return ctx.app.inject({
    method: options.method ?? 'GET',
    url,
    headers: options.headers ?? {},
    remoteAddress: options.remoteAddress ?? '127.0.0.1',
  });
}

/**
 * What every response under /g carries (docs/api.md §14): no referrer, not indexed, private, and a
 * strict Content-Security-Policy (nothing from another host, no inline or eval, no data: script).
 */
export function assertGalleryHeaders(res: Response, label: string): void {
  const where = `${label} (${res.statusCode})`;
  assert.equal(res.headers['referrer-policy'], 'no-referrer', where);
  assert.match(String(res.headers['x-robots-tag']), /(^|,\s*)noindex(\s*,|$)/, where);
  assert.match(String(res.headers['cache-control']), /(^|,\s*)private(\s*,|$)/, where);
  const csp = res.headers['content-security-policy'];
  assert.equal(typeof csp, 'string', `${where}: no Content-Security-Policy`);
  const directives = new Map(
    String(csp)
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0] !== '')
      .map(([name, ...values]) => [name!.toLowerCase(), values] as const),
  );
  const defaults = directives.get('default-src');
  assert.ok(
    defaults !== undefined && defaults.length === 1 && ["'none'", "'self'"].includes(defaults[0]!),
    `${where}: default-src is not 'none' or 'self': ${String(csp)}`,
  );
  for (const [name, values] of directives) {
    for (const value of values) {
      assert.ok(!value.includes('*'), `${where}: ${name} allows a wildcard`);
      assert.ok(!/^(https?|wss?):/i.test(value) && !value.includes('.'), `${where}: ${name} names a host: ${value}`);
      assert.ok(!["'unsafe-inline'", "'unsafe-eval'", "'unsafe-hashes'"].includes(value), `${where}: ${name} ${value}`);
    }
  }
  const scripts = directives.get('script-src') ?? defaults;
  assert.ok(!scripts.some((v) => /^(data|blob):$/i.test(v)), `${where}: scripts from data: or blob:`);
}

/** The plain page an unknown token answers: what a revoked link must answer too. */
export async function notAvailablePage(ctx: TestContext): Promise<string> {
  const res = await visit(ctx, `/g/${'A'.repeat(32)}`);
  assert.equal(res.statusCode, 404);
  return res.body;
}

/** Asserts that `url` answers the unknown-token page, byte for byte, with status 404. */
export async function assertGone(ctx: TestContext, url: string, label: string): Promise<void> {
  const res = await visit(ctx, url);
  assert.equal(res.statusCode, 404, `${label}: ${url} still answers ${res.statusCode}`);
  assert.match(String(res.headers['content-type']), /^text\/html/, label);
  assert.equal(res.body, await notAvailablePage(ctx), `${label}: not the unknown-token page`);
  assertGalleryHeaders(res, label);
}

// ---- reading a ZIP (stored entries, ZIP64) ------------------------------------------------------

export interface ZipMember {
  name: string;
  method: number;
  crc32: number;
  size: number;
  /** Where its local header starts. */
  headerOffset: number;
}

const EOCD = 0x06054b50;
const EOCD64 = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MARK32 = 0xffffffff;

/**
 * The members of a ZIP from its last bytes: `tail` is the archive's bytes from `tailOffset` to the
 * end, and must hold the central directory and its end records (ZIP64 ones included).
 */
export function readZipDirectory(tail: Buffer, tailOffset: number): ZipMember[] {
  const end = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  assert.ok(end >= 0 && tail.readUInt32LE(end) === EOCD, 'no end of central directory record');
  let entries = tail.readUInt16LE(end + 10);
  let dirSize = tail.readUInt32LE(end + 12);
  let dirOffset = tail.readUInt32LE(end + 16);
  if (entries === 0xffff || dirSize === MARK32 || dirOffset === MARK32) {
    const record = Number(tail.readBigUInt64LE(end - 20 + 8)) - tailOffset;
    assert.equal(tail.readUInt32LE(record), EOCD64, 'no ZIP64 end of central directory record');
    entries = Number(tail.readBigUInt64LE(record + 32));
    dirSize = Number(tail.readBigUInt64LE(record + 40));
    dirOffset = Number(tail.readBigUInt64LE(record + 48));
  }
  const members: ZipMember[] = [];
  let at = dirOffset - tailOffset;
  assert.ok(at >= 0, 'the tail does not hold the central directory');
  for (let i = 0; i < entries; i++) {
    assert.equal(tail.readUInt32LE(at), CENTRAL, `central header ${i}`);
    const method = tail.readUInt16LE(at + 10);
    const crc32 = tail.readUInt32LE(at + 16);
    let size = tail.readUInt32LE(at + 24);
    let headerOffset = tail.readUInt32LE(at + 42);
    const nameLength = tail.readUInt16LE(at + 28);
    const extraLength = tail.readUInt16LE(at + 30);
    const commentLength = tail.readUInt16LE(at + 32);
    const name = tail.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    const extra = tail.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength);
    for (let x = 0; x < extra.length; x += 4 + extra.readUInt16LE(x + 2)) {
      if (extra.readUInt16LE(x) !== 1) continue;
      // The ZIP64 extra field holds, in this order, only the values whose 32-bit field is the marker.
      let v = x + 4;
      if (size === MARK32) {
        size = Number(extra.readBigUInt64LE(v));
        v += 8;
      }
      if (tail.readUInt32LE(at + 20) === MARK32) v += 8;
      if (headerOffset === MARK32) headerOffset = Number(extra.readBigUInt64LE(v));
    }
    members.push({ name, method, crc32, size, headerOffset });
    at += 46 + nameLength + extraLength + commentLength;
  }
  assert.equal(at, dirOffset - tailOffset + dirSize, 'the central directory size');
  return members;
}

/** Where a member's data starts, from the first bytes of its local header (name checked). */
export function dataOffsetOf(member: ZipMember, local: Buffer): number {
  assert.equal(local.readUInt32LE(0), LOCAL, `local header of ${member.name}`);
  const nameLength = local.readUInt16LE(26);
  assert.equal(local.subarray(30, 30 + nameLength).toString('utf8'), member.name, 'the local name');
  return member.headerOffset + 30 + nameLength + local.readUInt16LE(28);
}

/** The members of a whole ZIP held in memory, each with its data. */
export function readZip(zip: Buffer): (ZipMember & { dataOffset: number; data: Buffer })[] {
  return readZipDirectory(zip, 0).map((m) => {
    const dataOffset = dataOffsetOf(m, zip.subarray(m.headerOffset));
    return { ...m, dataOffset, data: zip.subarray(dataOffset, dataOffset + m.size) };
  });
}
