// The messages a redirect can ask a dashboard page to show (`?notice=`), from a fixed list: a URL
// cannot inject text. Pages with notices of their own (galleries, clients) add theirs in front.
import type { FastifyRequest } from 'fastify';
import { ClientLinkUpdateBody } from '../modules/listings/listings.schemas.ts';
import { maxLengthOf, minLengthOf } from './form.ts';
import type { Notice } from './views/layout.ts';

/** After a new key's redirect: the page shows the key instead, when this session still holds it. */
export const KEY_CREATED: Notice = { kind: 'success', text: 'Your new API key is ready.' };
/** The same page again (a reload, Back, another tab): the key is not there to show. */
export const KEY_SHOWN_ONCE: Notice = {
  kind: 'info',
  text: 'A new key is shown only once, on the page right after it is generated. If it was not copied, revoke it below and generate another.',
};

/** After a new endpoint's or a rotation's redirect: the page shows the secret instead, when held. */
export const WEBHOOK_SECRET_READY: Notice = { kind: 'success', text: 'The signing secret is ready.' };
export const WEBHOOK_SECRET_SHOWN_ONCE: Notice = {
  kind: 'info',
  text: 'A signing secret is shown only once, on the page right after it is made. If it was not copied, rotate the secret to get a new one.',
};

const NOTICES: Record<string, Notice> = {
  'key-created': KEY_CREATED,
  'webhook-created': WEBHOOK_SECRET_READY,
  'webhook-rotated': WEBHOOK_SECRET_READY,
  'webhook-enabled': { kind: 'success', text: 'The endpoint is enabled: events are sent to it again.' },
  'webhook-disabled': {
    kind: 'success',
    text: 'The endpoint is disabled: nothing is sent to it, and its pending retries wait until it is enabled.',
  },
  'webhook-test-sent': {
    kind: 'success',
    text: 'A webhook.test event is on its way. Its delivery is listed under the endpoint: reload to see how it went.',
  },
  'webhook-test-disabled': { kind: 'error', text: 'That endpoint is disabled: enable it to send it a test event.' },
  'webhook-retried': { kind: 'success', text: 'The delivery is being sent again now. Reload to see how it went.' },
  'webhook-deleted': { kind: 'success', text: 'The endpoint was deleted. Nothing more is sent to it.' },
  welcome: { kind: 'success', text: 'Your studio is set up and you are signed in.' },
  'signed-out': { kind: 'info', text: 'You have signed out.' },
  'session-ended': { kind: 'info', text: 'Your session has ended. Sign in again to continue.' },
  'already-set-up': { kind: 'info', text: 'This Lightbox is already set up. Sign in with your studio account.' },
  'key-revoked': { kind: 'success', text: 'The key was revoked. Requests that use it are now refused.' },
  'test-data-deleted': {
    kind: 'success',
    text: 'All test data was deleted. Your live data is as it was; test keys carry on, on empty test data.',
  },
  'studio-saved': { kind: 'success', text: 'Studio settings saved.' },
  'logo-saved': { kind: 'success', text: 'Logo saved: locked galleries show it across their previews from now on.' },
  'logo-removed': {
    kind: 'success',
    text: 'Logo removed: locked galleries show your studio name across their previews.',
  },
  'music-saved': { kind: 'success', text: 'Music saved: listing kit videos built from now on carry it.' },
  'music-removed': { kind: 'success', text: 'Music removed: listing kit videos built from now on are silent.' },
  'paper-saved': {
    kind: 'success',
    text: "Flyer paper saved: kits built from now on use it. Rebuild a gallery's kit to remake its flyer.",
  },
  'rooms-saved': { kind: 'success', text: 'Room order saved: suggested photo orders follow it.' },
  'stripe-on': {
    kind: 'success',
    text: 'Online payment is on: open invoices carry a Pay button. The keys are kept sealed and never shown again.',
  },
  'stripe-off': { kind: 'success', text: 'Online payment is off: invoices say how to pay you instead.' },
  'link-saved': { kind: 'success', text: 'Link settings saved. The client meets them on their next visit.' },
  'link-refused': {
    kind: 'error',
    text: `Those link settings were not saved: the expiry must be a future day and a password ${minLengthOf(ClientLinkUpdateBody, 'password')} to ${maxLengthOf(ClientLinkUpdateBody, 'password')} characters.`,
  },
  'email-resent': {
    kind: 'success',
    text: 'The gallery email is on its way to the client again. It is listed under Latest notification emails.',
  },
  'password-changed': { kind: 'success', text: 'Password changed. Every other session has been signed out.' },
  'invitation-sent': { kind: 'success', text: 'The invitation is on its way. Its link works for 7 days.' },
  'invitation-revoked': { kind: 'success', text: 'The invitation was withdrawn: its link no longer works.' },
  'member-removed': { kind: 'success', text: 'The member was removed and signed out everywhere.' },
  'two-factor-reset': {
    kind: 'success',
    text: 'Two-factor sign-in is off for that person, and they were signed out. They can set it up again.',
  },
  'two-factor-off': { kind: 'success', text: 'Two-factor sign-in is off. Your password alone signs you in.' },
  joined: { kind: 'success', text: 'Welcome to the team: you are signed in.' },
  'sign-in-again': { kind: 'info', text: 'Your sign-in took too long. Sign in again.' },
  'password-reset-sign-in': {
    kind: 'success',
    text: 'Your new password is set. Every session has been signed out: sign in with it and your code.',
  },
  'password-reset': {
    kind: 'success',
    text: 'Your new password is set and you are signed in. Every other session has been signed out.',
  },
};

/** The message a redirect asked for (`?notice=`), from a fixed list: a URL cannot inject text. */
export function noticeOf(request: FastifyRequest): Notice | null {
  const code = (request.query as Record<string, unknown> | undefined)?.notice;
  return typeof code === 'string' ? (NOTICES[code] ?? null) : null;
}
