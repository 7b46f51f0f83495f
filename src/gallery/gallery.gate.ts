// The gate of docs/api.md §25 in front of every byte of a client gallery: an expired link shows a page
// naming the studio and the date (410) and nothing else; a password-protected one shows the
// password form until this browser gave the right password (remembered for 7 days by a cookie
// signed with the password's own hash, so a new or removed password forgets every browser).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { ClientLinkRow } from '../modules/client-links/client-links.entry.ts';

/** How long a browser is remembered after the right password. */
const REMEMBER_MS = 7 * 24 * 60 * 60 * 1000;
/** Wrong answers allowed per link and client address in the window, then 429. */
export const PASSWORD_ATTEMPTS = 10;
export const PASSWORD_WINDOW_MS = 15 * 60 * 1000;

const COOKIE = 'lightbox_gallery';

/** The link's page is 410: it names the studio and the date. */
export class LinkExpired extends Error {
  readonly studioName: string;
  readonly expiresAt: string;
  constructor(studioName: string, expiresAt: string) {
    super('This gallery link has expired');
    this.studioName = studioName;
    this.expiresAt = expiresAt;
  }
}

/** Every route of the link answers the password form until the browser gives the password. */
export class PasswordNeeded extends Error {
  readonly studioName: string;
  readonly address: string;
  readonly token: string;
  constructor(studioName: string, address: string, token: string) {
    super('This gallery asks for a password');
    this.studioName = studioName;
    this.address = address;
    this.token = token;
  }
}

export const isExpired = (link: ClientLinkRow, now: number): boolean =>
  link.expires_at !== null && Date.parse(link.expires_at) <= now;

const mac = (link: ClientLinkRow, passwordHash: string, until: number): string =>
  createHmac('sha256', passwordHash).update(`${link.listing_id}.${link.token}.${until}`).digest('base64url');

/** The cookie that remembers this browser for the link's current password, for 7 days. */
export function rememberCookie(link: ClientLinkRow, now: number, secure: boolean): string {
  if (link.password_hash === null) throw new Error('the link has no password');
  const until = now + REMEMBER_MS;
  return (
    `${COOKIE}=${until}.${mac(link, link.password_hash, until)}; Path=/g/${link.token}; ` +
    `Max-Age=${REMEMBER_MS / 1000}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`
  );
}

function cookieValue(header: string | undefined): string[] {
  if (header === undefined) return [];
  const values: string[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === COOKIE) values.push(part.slice(eq + 1).trim());
  }
  return values;
}

/** Whether this request's browser gave the link's current password within 7 days. */
export function remembered(request: FastifyRequest, link: ClientLinkRow, now: number): boolean {
  const hash = link.password_hash;
  if (hash === null) return true;
  return cookieValue(request.headers.cookie).some((value) => {
    const [untilText, given] = value.split('.');
    const until = Number(untilText);
    if (given === undefined || !Number.isSafeInteger(until) || until <= now || until > now + REMEMBER_MS) {
      return false;
    }
    const expected = Buffer.from(mac(link, hash, until));
    const actual = Buffer.from(given);
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  });
}

/** The day a link expired, as a person reads it (UTC). */
export const expiryDate = (iso: string): string =>
  new Date(iso).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
