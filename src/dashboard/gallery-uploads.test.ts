// Resumable uploads (tus, docs/api.md §16) from the dashboard's gallery page over HTTP (app.inject):
// the /v1 routes mounted under /dashboard/galleries/:id/uploads for the signed-in account, each
// write carrying the session's form token in X-CSRF-Token.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Browser } from '../../test/support/dashboard-browser.ts';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';
import { jpeg } from '../../test/support/media-fixtures.ts';

let ctx: TestContext;

before(async () => {
  ctx = await createTestContext();
});
after(async () => {
  await ctx.close();
});

async function signedIn(name: string): Promise<{ owner: TestAccount; browser: Browser }> {
  const owner = await createAccount(ctx, name);
  const browser = new Browser(ctx.app);
  assert.equal((await browser.signIn(owner.email, 'correct horse battery')).statusCode, 303);
  return { owner, browser };
}

async function newGallery(owner: TestAccount, address: string): Promise<string> {
  return (await call(ctx, 'POST', '/v1/listings', { key: owner.key, body: { address } })).json<{ id: string }>().id;
}

describe('resumable uploads (tus) in the dashboard', () => {
  test('the session and its token in a header: create, append in two pieces, then the media', async () => {
    const { owner, browser } = await signedIn('Tus Studio');
    const g = { id: await newGallery(owner, '2 Tide Lane') };
    await browser.get(`/dashboard/galleries/${g.id}`);
    const token = browser.token();
    const photo = await jpeg(120, 80);
    const tus = (method: string, url: string, headers: Record<string, string>, payload?: Buffer) =>
      ctx.app.inject({
        method: method as 'POST',
        url,
        remoteAddress: browser.address,
        headers: {
          cookie: browser.cookieHeader(),
          'tus-resumable': '1.0.0',
          origin: 'http://localhost',
          'sec-fetch-site': 'same-origin',
          ...headers,
        },
        ...(payload === undefined ? {} : { payload }),
      });
    const create = {
      'upload-length': String(photo.length),
      'upload-metadata': `filename ${Buffer.from('hall.jpg').toString('base64')}`,
    };
    // Without the token, or with another's: refused, nothing begun.
    assert.equal((await tus('POST', `/dashboard/galleries/${g.id}/uploads`, create)).statusCode, 403);
    assert.equal(
      (await tus('POST', `/dashboard/galleries/${g.id}/uploads`, { ...create, 'x-csrf-token': 'x'.repeat(43) }))
        .statusCode,
      403,
    );
    const made = await tus('POST', `/dashboard/galleries/${g.id}/uploads`, { ...create, 'x-csrf-token': token });
    assert.equal(made.statusCode, 201, made.body);
    const location = String(made.headers.location);
    assert.match(location, new RegExp(`^/dashboard/galleries/${g.id}/uploads/upl_`));
    const half = Math.floor(photo.length / 2);
    const octets = { 'content-type': 'application/offset+octet-stream', 'x-csrf-token': token };
    const first = await tus('PATCH', location, { ...octets, 'upload-offset': '0' }, photo.subarray(0, half));
    assert.equal(first.statusCode, 204, first.body);
    const head = await tus('HEAD', location, {});
    assert.equal(head.headers['upload-offset'], String(half));
    const last = await tus('PATCH', location, { ...octets, 'upload-offset': String(half) }, photo.subarray(half));
    assert.equal(last.statusCode, 204, last.body);
    const mediaId = String(last.headers['lightbox-media-id']);
    const list = (await call(ctx, 'GET', `/v1/listings/${g.id}/media`, { key: owner.key })).json<{
      data: { id: string; filename: string }[];
    }>().data;
    assert.deepEqual(
      list.map((m) => [m.id, m.filename]),
      [[mediaId, 'hall.jpg']],
    );
    // Another account's gallery: not found; signed out: nothing.
    const other = await createAccount(ctx, 'Tus Other');
    const theirs = { id: await newGallery(other, '1 Far Away') };
    const refused = await tus('POST', `/dashboard/galleries/${theirs.id}/uploads`, {
      ...create,
      'x-csrf-token': token,
    });
    assert.equal(refused.statusCode, 404);
  });
});
