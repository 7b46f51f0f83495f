// docs/api.md §25 and §15: the link controls and favorites reach a webhook receiver as the API shows
// them. The delivered client_link.selection_submitted event carries the gallery object whose
// client_link has expires_at, password_protected, downloads_enabled and favorites_count (one
// serializer for the API, events and the client libraries), and never the password.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';
import { jpeg } from '../../test/support/media-fixtures.ts';
import { makeVariantsNow, uploaded } from '../../test/support/media-helpers.ts';
import { linkedGallery } from '../../test/support/gallery.ts';
import {
  createEndpoint,
  deliveryRunner,
  until,
  verifyingReceiver,
  type DeliveryRunner,
  type VerifyingReceiver,
} from '../../test/support/webhooks.ts';

describe('link controls and favorites in a delivered webhook', () => {
  let ctx: TestContext;
  let owner: TestAccount;
  let runner: DeliveryRunner;
  let receiver: VerifyingReceiver;
  const secrets: string[] = [];

  before(async () => {
    ctx = await createTestContext({ PUBLIC_URL: 'http://127.0.0.1:3000', WEBHOOK_ALLOW_PRIVATE: 'true' });
    owner = await createAccount(ctx, 'Harbour Light Studio');
    receiver = await verifyingReceiver(() => secrets);
    const endpoint = await createEndpoint(ctx, owner, {
      url: receiver.url(),
      events: ['client_link.selection_submitted'],
    });
    secrets.push(endpoint.secret);
    runner = deliveryRunner(ctx.deps);
    runner.start();
  });
  after(async () => {
    await runner.close();
    await receiver.close();
    await ctx.close();
  });

  test('client_link.selection_submitted carries expires_at, password_protected, downloads_enabled, favorites_count', async () => {
    const g = await linkedGallery(ctx, owner);
    const [photo] = await uploaded(ctx, owner.key, g.listingId, [
      { filename: 'a.jpg', contentType: 'image/jpeg', data: await jpeg(40, 30) },
    ]);
    await makeVariantsNow(ctx);
    const expires = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const patched = await call(ctx, 'PATCH', `/v1/listings/${g.listingId}/client_link`, {
      key: owner.key,
      body: { expires_at: expires, downloads_enabled: false },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const post = (url: string, fields: Record<string, string>) =>
      ctx.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(fields).toString(),
        remoteAddress: '127.0.0.1',
      });
    assert.equal((await post(`${g.path}/favorites/${photo!.id}`, { on: '1' })).statusCode, 303);
    assert.equal((await post(`${g.path}/favorites`, { note: 'these' })).statusCode, 303);

    await until(() => Promise.resolve(receiver.events().length > 0));
    const [event] = receiver.events();
    assert.equal(event!.type, 'client_link.selection_submitted');
    const object = event!.data.object as { id: string; client_link: Record<string, unknown> };
    assert.equal(object.id, g.listingId);
    assert.equal(object.client_link.expires_at, expires);
    assert.equal(object.client_link.password_protected, false);
    assert.equal(object.client_link.downloads_enabled, false);
    assert.equal(object.client_link.favorites_count, 1);
    assert.ok(!('password' in object.client_link) && !('password_hash' in object.client_link));

    // The same object as GET /v1/listings/:id shows it.
    const listing = await call(ctx, 'GET', `/v1/listings/${g.listingId}`, { key: owner.key });
    const shown = listing.json<{ client_link: Record<string, unknown> }>().client_link;
    for (const field of ['expires_at', 'password_protected', 'downloads_enabled', 'favorites_count']) {
      assert.deepEqual(object.client_link[field], shown[field], field);
    }
  });
});
