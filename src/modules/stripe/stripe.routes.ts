// Stripe's events for a studio (docs/api.md §29): POST /stripe/webhooks/<account's token>, the
// body read as bytes (the signature covers them exactly) and verified with the studio's signing
// secret. 400 for a bad or old signature (nothing changes), 404 for a token that is nobody's or a
// studio whose online payment is off, else 200 (Stripe stops retrying): a payment recorded, or
// nothing to do (a repeat, another event type).
import type { App } from '../../http/types.ts';
import { BadWebhook, type StripeService } from './stripe.service.ts';

/** Stripe's events are a few kilobytes; a Checkout session's is well under this. */
const EVENT_BODY_LIMIT = 512 * 1024;

export function registerStripeWebhooks(scope: App, { stripe }: { stripe: StripeService }): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: EVENT_BODY_LIMIT },
    (_request, body, done) => done(null, body),
  );

  scope.post<{ Params: { token: string } }>('/webhooks/:token', { schema: { hide: true } }, async (request, reply) => {
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const signature = request.headers['stripe-signature'];
    let outcome;
    try {
      outcome = await stripe.webhook(
        request.params.token,
        body,
        typeof signature === 'string' ? signature : undefined,
        request.log,
      );
    } catch (err) {
      if (!(err instanceof BadWebhook)) throw err;
      request.log.info({ reason: err.message }, 'a Stripe event was refused');
      return reply.code(400).send({ error: 'bad_signature' });
    }
    if (outcome === undefined) return reply.code(404).send({ error: 'not_found' });
    return reply.code(200).send({ received: true, outcome });
  });
}
