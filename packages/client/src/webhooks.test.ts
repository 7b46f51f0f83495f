// lb.webhooks.verify against deliveries from the real service: an endpoint created with the
// client, a receiver on 127.0.0.1 keeping each request's raw body and headers, the delivery job
// run in-process. A genuine delivery verifies and gives its event; a changed body, another
// secret or a missing header is a WebhookVerificationError.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyWebhook, WebhookVerificationError, type Lightbox } from './node.ts';
import { startClientWebhookServer, type ClientWebhookServer } from '../../../test/support/client.ts';
import type { DeliveryRunner } from '../../../test/support/webhooks.ts';
import type { Receiver } from '../../../test/support/loopback-receivers.ts';

describe('client: webhook verification of real deliveries', () => {
  let s: ClientWebhookServer;
  let lb: Lightbox;
  let receiver: Receiver;
  let runner: DeliveryRunner;

  before(async () => {
    s = await startClientWebhookServer();
    ({ lb, receiver, runner } = s);
  });
  after(() => s.close());

  test('a delivery verifies with the endpoint secret and gives the event; anything else is refused', async () => {
    const endpoint = await lb.webhookEndpoints.create({ url: receiver.url(), events: ['listing.created'] });
    const listing = await lb.listings.create({ address: '5 Signal Row' });
    await runner.drain();
    const delivery = receiver.received.at(-1);
    assert.ok(delivery !== undefined, 'a delivery arrived');

    const event = lb.webhooks.verify(delivery.body, delivery.headers, endpoint.secret);
    assert.equal(event.type, 'listing.created');
    assert.equal(event.data.object.id, listing.id);
    assert.equal(event.id, delivery.headers['webhook-id']);
    // The same with fetch's Headers and bytes, as a receiver on an edge runtime has them.
    const headers = new Headers(Object.entries(delivery.headers).map(([k, v]) => [k, String(v)]));
    assert.equal(verifyWebhook(new TextEncoder().encode(delivery.body), headers, endpoint.secret).id, event.id);

    const changed = delivery.body.replace('5 Signal Row', '6 Signal Row');
    assert.throws(() => lb.webhooks.verify(changed, delivery.headers, endpoint.secret), WebhookVerificationError);
    const other = await lb.webhookEndpoints.create({ url: receiver.url('/other') });
    assert.throws(() => lb.webhooks.verify(delivery.body, delivery.headers, other.secret), WebhookVerificationError);
    const unsigned = { ...delivery.headers };
    delete unsigned['webhook-signature'];
    const err = (() => {
      try {
        lb.webhooks.verify(delivery.body, unsigned, endpoint.secret);
      } catch (e) {
        return e;
      }
      return null;
    })();
    assert.ok(err instanceof WebhookVerificationError);
    assert.equal(err.code, 'webhook_verification_failed');
    assert.match(err.message, /webhook-signature/);
  });

  test('after rotate_secret, deliveries verify with the new secret', async () => {
    const endpoint = await lb.webhookEndpoints.create({ url: receiver.url('/rotated'), events: ['listing.updated'] });
    const rotated = await lb.webhookEndpoints.rotateSecret(endpoint.id);
    const listing = await lb.listings.create({ address: '7 Key Street' });
    await lb.listings.update(listing.id, { beds: 2 });
    await runner.drain();
    const delivery = receiver.received.filter((r) => r.url === '/rotated').at(-1);
    assert.ok(delivery !== undefined);
    assert.equal(lb.webhooks.verify(delivery.body, delivery.headers, rotated.secret).type, 'listing.updated');
  });
});
