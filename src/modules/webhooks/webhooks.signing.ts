// Standard Webhooks signatures (docs/api.md §15), made with the reference `standardwebhooks`
// package, the one receivers verify with, so the signed string's format is theirs by
// construction: HMAC-SHA256 over `${id}.${seconds}.${payload}`, keyed by the secret's bytes.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new endpoint secret: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export interface SignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export interface SignatureInput {
  /** The event id: the same on every attempt, so receivers can deduplicate. */
  id: string;
  /** The time of this attempt (every attempt is signed afresh); sent in whole seconds. */
  timestamp: Date;
  /** The exact body that is sent. */
  payload: string;
  /** The endpoint's secrets: one, or two for the 24 hours after a rotation. */
  secrets: readonly string[];
}

/** Signers by secret (decoding a secret on every delivery is wasted work); bounded, cleared when full. */
const signers = new Map<string, Webhook>();
const MAX_SIGNERS = 1024;

function signer(secret: string): Webhook {
  let found = signers.get(secret);
  if (found === undefined) {
    if (signers.size >= MAX_SIGNERS) signers.clear();
    found = new Webhook(secret);
    signers.set(secret, found);
  }
  return found;
}

/**
 * The three headers of a delivery. With two secrets the signature header holds both signatures,
 * space-separated (`v1,<a> v1,<b>`), and a receiver holding either secret verifies it.
 */
export function signatureHeaders({ id, timestamp, payload, secrets }: SignatureInput): SignatureHeaders {
  if (secrets.length === 0) throw new Error('an endpoint has at least one secret');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => signer(secret).sign(id, timestamp, payload)).join(' '),
  };
}
