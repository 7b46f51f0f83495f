// The dashboard's browser-facing defences: response headers, cookies, and the two CSRF checks
// (the request's origin, and a token in the form).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { newToken, sameToken, SESSION_ABSOLUTE_MS, TOKEN_SHAPE } from '../modules/accounts/sessions.service.ts';

/**
 * Only our own stylesheet and script; no inline code, no framing, forms post only to us. The
 * script talks only to us too (a gallery's uploads and order).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "script-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  // docs/api.md §32: the kit music's player on Settings > Studio.
  "media-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function setPageHeaders(reply: FastifyReply): void {
  void reply.headers({
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
    'x-content-type-options': 'nosniff',
    // Pages hold keys, tokens and account data: never kept by a browser or a proxy.
    'cache-control': 'no-store',
  });
}

export interface CookiePolicy {
  secure: boolean;
  session: string;
  csrf: string;
  /** A sign-in whose password was right, waiting for its code (docs/api.md §27). */
  twoFactor: string;
  /** `__Host-` cookies must have Path=/; otherwise they are kept to the dashboard. */
  path: string;
}

/**
 * Secure (and `__Host-`, which a sibling subdomain cannot set or shadow) when the public URL is
 * https. Over plain http (a laptop, a test) the browser would drop a Secure cookie.
 */
export function cookiePolicy(publicUrl: string): CookiePolicy {
  const secure = publicUrl.startsWith('https:');
  return secure
    ? { secure, session: '__Host-lbx_session', csrf: '__Host-lbx_csrf', twoFactor: '__Host-lbx_2fa', path: '/' }
    : { secure, session: 'lbx_session', csrf: 'lbx_csrf', twoFactor: 'lbx_2fa', path: '/dashboard' };
}

export function setSessionCookie(reply: FastifyReply, policy: CookiePolicy, token: string): void {
  void reply.setCookie(policy.session, token, {
    path: policy.path,
    httpOnly: true,
    // Lax: following a link to the dashboard from an email keeps the owner signed in; every
    // state change is a POST, which Lax does not send cross-site, and carries a token anyway.
    sameSite: 'lax',
    secure: policy.secure,
    maxAge: Math.floor(SESSION_ABSOLUTE_MS / 1000),
  });
}

export function clearSessionCookie(reply: FastifyReply, policy: CookiePolicy): void {
  void reply.clearCookie(policy.session, { path: policy.path, httpOnly: true, sameSite: 'lax', secure: policy.secure });
}

/** The pending sign-in's cookie: HttpOnly, Strict, gone when the code step's time is up. */
export function setTwoFactorCookie(reply: FastifyReply, policy: CookiePolicy, token: string, maxAgeMs: number): void {
  void reply.setCookie(policy.twoFactor, token, {
    path: policy.path,
    httpOnly: true,
    sameSite: 'strict',
    secure: policy.secure,
    maxAge: Math.floor(maxAgeMs / 1000),
  });
}

export function clearTwoFactorCookie(reply: FastifyReply, policy: CookiePolicy): void {
  void reply.clearCookie(policy.twoFactor, {
    path: policy.path,
    httpOnly: true,
    sameSite: 'strict',
    secure: policy.secure,
  });
}

/**
 * The setup and sign-in forms have no session yet: their token is a double-submit cookie
 * (HttpOnly, SameSite=Strict) that the form must repeat. Returns the token to put in the form.
 */
export function preSessionToken(request: FastifyRequest, reply: FastifyReply, policy: CookiePolicy): string {
  const existing = request.cookies[policy.csrf];
  if (existing !== undefined && TOKEN_SHAPE.test(existing)) return existing;
  const token = newToken();
  void reply.setCookie(policy.csrf, token, {
    path: policy.path,
    httpOnly: true,
    sameSite: 'strict',
    secure: policy.secure,
  });
  return token;
}

export function preSessionTokenValid(request: FastifyRequest, policy: CookiePolicy, presented: string | undefined) {
  const cookie = request.cookies[policy.csrf];
  return cookie !== undefined && TOKEN_SHAPE.test(cookie) && sameToken(cookie, presented);
}

/**
 * A form post must come from a page of this dashboard. Browsers say where a request comes from
 * (Sec-Fetch-Site, Origin); a request that says "another site" is refused before its token is
 * even looked at. A client that sends neither (not a browser) still needs the token.
 */
export function fromThisSite(request: FastifyRequest, publicUrl: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // includes the opaque origin "null" (sandboxed frames, some redirects)
  }
  if (url.origin === new URL(publicUrl).origin) return true;
  // Or the host the browser sent this request to (as it names it: a default port is left out).
  try {
    return url.host === new URL(`${url.protocol}//${request.host}`).host;
  } catch {
    return false;
  }
}
