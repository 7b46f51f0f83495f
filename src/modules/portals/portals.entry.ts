// The client's portal (docs/api.md §28): one unguessable page per client, PUBLIC_URL/c/<token>,
// listing every gallery assigned to them. Its token is kept on the client's row as the client
// links keep theirs (the client object shows the URL, so the token is kept as issued), issued
// when the client is made and replaced by POST /v1/clients/:id/portal/rotate. The /c scope's reads
// are portals.service.ts.
import { randomBytes } from 'node:crypto';

/** 192 random bits, base64url: 32 URL-safe characters (as a client link's). */
export const newPortalToken = (): string => randomBytes(24).toString('base64url');

/** A token of the shape we issue (anything else is not looked up). */
export const hasPortalTokenShape = (token: string): boolean => /^[A-Za-z0-9_-]{32}$/.test(token);

/** The portal's address for a token. */
export const portalUrl = (publicUrl: string, token: string): string => `${publicUrl}/c/${token}`;
