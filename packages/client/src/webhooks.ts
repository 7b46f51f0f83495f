// lb.webhooks.verify: checks a delivery's Standard Webhooks signature (docs/api.md §15) with the
// `standardwebhooks` library, and answers the event it carries. Pass the raw body exactly as
// received (before any JSON parsing: a re-serialised body does not verify).
import { Webhook, WebhookVerificationError as SignatureError } from 'standardwebhooks';
import { WebhookVerificationError } from './errors.ts';
import type { Event } from './types.ts';

/** A delivered event: `type` is any EventType, or `webhook.test` from an endpoint's test. */
export type WebhookEvent = Omit<Event, 'type'> & { type: Event['type'] | 'webhook.test' };

/** Request headers as fetch (Headers), Node (IncomingHttpHeaders) or a plain object give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const NAMES = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

function pick(headers: WebhookHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  const lower =
    headers instanceof Headers
      ? null
      : Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  for (const name of NAMES) {
    const value = headers instanceof Headers ? headers.get(name) : lower?.[name];
    const text = Array.isArray(value) ? value.join(' ') : value;
    if (typeof text !== 'string' || text === '') {
      throw new WebhookVerificationError({
        status: null,
        code: 'webhook_verification_failed',
        message: `missing ${name} header`,
      });
    }
    out[name] = text;
  }
  return out;
}

/**
 * Verifies a delivery and answers its event; throws WebhookVerificationError when the signature,
 * the secret (`whsec_...`) or the timestamp (more than 5 minutes off) is wrong.
 */
export function verifyWebhook(payload: string | Uint8Array, headers: WebhookHeaders, secret: string): WebhookEvent {
  const body = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
  try {
    return new Webhook(secret).verify(body, pick(headers)) as WebhookEvent;
  } catch (err) {
    if (err instanceof WebhookVerificationError) throw err;
    const message = err instanceof SignatureError || err instanceof Error ? err.message : String(err);
    throw new WebhookVerificationError({ status: null, code: 'webhook_verification_failed', message, cause: err });
  }
}

export class Webhooks {
  /** See verifyWebhook. */
  verify(payload: string | Uint8Array, headers: WebhookHeaders, secret: string): WebhookEvent {
    return verifyWebhook(payload, headers, secret);
  }
}
