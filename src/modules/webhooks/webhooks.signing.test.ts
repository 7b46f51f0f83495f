// Signatures are checked the way a receiver checks them: with the standardwebhooks package.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { newWebhookSecret, signatureHeaders } from './webhooks.signing.ts';

const payload = JSON.stringify({ id: 'evt_01J', type: 'listing.created', data: { object: { id: 'lst_1' } } });

describe('newWebhookSecret', () => {
  test('is whsec_ and the base64 of 32 random bytes', () => {
    const secrets = new Set(Array.from({ length: 50 }, () => newWebhookSecret()));
    assert.equal(secrets.size, 50);
    for (const secret of secrets) {
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.equal(Buffer.from(secret.slice('whsec_'.length), 'base64').length, 32);
    }
  });
});

describe('signatureHeaders', () => {
  test('one secret: the receiver verifies the delivery', () => {
    const secret = newWebhookSecret();
    const now = new Date();
    const headers = signatureHeaders({ id: 'evt_01J', timestamp: now, payload, secrets: [secret] });
    assert.equal(headers['webhook-id'], 'evt_01J');
    assert.equal(headers['webhook-timestamp'], String(Math.floor(now.getTime() / 1000)));
    assert.match(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(new Webhook(secret).verify(payload, headers), JSON.parse(payload));
  });

  test('two secrets after a rotation: both signatures are sent and either secret verifies', () => {
    const [oldSecret, newSecret] = [newWebhookSecret(), newWebhookSecret()];
    const headers = signatureHeaders({ id: 'evt_2', timestamp: new Date(), payload, secrets: [newSecret, oldSecret] });
    const parts = headers['webhook-signature'].split(' ');
    assert.equal(parts.length, 2);
    for (const part of parts) assert.match(part, /^v1,/);
    assert.deepEqual(new Webhook(oldSecret).verify(payload, headers), JSON.parse(payload));
    assert.deepEqual(new Webhook(newSecret).verify(payload, headers), JSON.parse(payload));
    assert.throws(() => new Webhook(newWebhookSecret()).verify(payload, headers), WebhookVerificationError);
  });

  test('a tampered payload, id or timestamp fails verification', () => {
    const secret = newWebhookSecret();
    const timestamp = new Date();
    const headers = signatureHeaders({ id: 'evt_3', timestamp, payload, secrets: [secret] });
    const receiver = new Webhook(secret);
    assert.throws(() => receiver.verify(payload.replace('lst_1', 'lst_2'), headers), /No matching signature/);
    assert.throws(() => receiver.verify(payload, { ...headers, 'webhook-id': 'evt_4' }), /No matching signature/);
    const later = String(Number(headers['webhook-timestamp']) + 1);
    assert.throws(() => receiver.verify(payload, { ...headers, 'webhook-timestamp': later }), /No matching signature/);
    // An old signature replayed long after is refused by the receiver's tolerance (5 minutes).
    const old = signatureHeaders({
      id: 'evt_3',
      timestamp: new Date(Date.now() - 600_000),
      payload,
      secrets: [secret],
    });
    assert.throws(() => receiver.verify(payload, old), /too old/);
  });

  test("matches the Standard Webhooks specification's example signature", () => {
    // From the specification's reference test vectors (standard-webhooks/standard-webhooks).
    const headers = signatureHeaders({
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      timestamp: new Date(1614265330 * 1000),
      payload: '{"test": 2432232314}',
      secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    });
    assert.equal(headers['webhook-signature'], 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  test('refuses to sign with no secret', () => {
    assert.throws(
      () => signatureHeaders({ id: 'evt_5', timestamp: new Date(), payload, secrets: [] }),
      /at least one secret/,
    );
  });
});
