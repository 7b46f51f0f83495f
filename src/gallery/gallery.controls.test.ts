// The link controls of docs/api.md §25 over HTTP: PATCH /v1/listings/:id/client_link (expiry, password,
// downloads), and what they do to every URL of the link: an expired link answers 410 naming the
// studio and the date, a protected one the password form, on every byte route, until the browser
// gives the password (remembered 7 days, forgotten when the password changes); wrong answers are
// limited per address and link; with downloads off, originals, the ZIP and a video without a web
// rendition are 404.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  call,
  createAccount,
  createTestContext,
  expectError,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';
import { jpeg, mp4, pdf } from '../../test/support/media-fixtures.ts';
import { makeVariantsNow, uploaded } from '../../test/support/media-helpers.ts';
import { fakeClock, newGallery } from '../../test/support/notification-helpers.ts';
import {
  assertGalleryHeaders,
  clientLink,
  linkedGallery,
  visit,
  type ClientLinkJson,
} from '../../test/support/gallery.ts';

const PUBLIC_URL = 'http://127.0.0.1:3000';
const DAY = 24 * 60 * 60 * 1000;

describe('client link controls', () => {
  let ctx: TestContext;
  let owner: TestAccount;
  const clock = fakeClock(Date.parse('2026-05-01T10:00:00.000Z'));

  before(async () => {
    ctx = await createTestContext({ PUBLIC_URL }, { clock: clock.clock });
    owner = await createAccount(ctx, 'Harbour Light Studio');
  });
  after(() => ctx.close());

  const patch = (listingId: string, body: Record<string, unknown>) =>
    call(ctx, 'PATCH', `/v1/listings/${listingId}/client_link`, { key: owner.key, body });

  /** A linked gallery with a photo, a video and a document, variants made: every URL its link serves. */
  async function galleryWithFiles() {
    const linked = await linkedGallery(ctx, owner, { status: 'active' });
    const [photo, video, doc] = await uploaded(ctx, owner.key, linked.listingId, [
      { filename: 'porch.jpg', contentType: 'image/jpeg', data: await jpeg(40, 30) },
      { filename: 'walk.mp4', contentType: 'video/mp4', data: mp4() },
      { filename: 'plan.pdf', contentType: 'application/pdf', data: pdf('plan') },
    ]);
    await makeVariantsNow(ctx);
    const p = linked.path;
    const pages = [p, `${p}/photo/${photo!.id}`];
    const images = [
      `${p}/thumb/${photo!.id}`,
      `${p}/large/${photo!.id}`,
      `${p}/cover.jpg`,
      `${p}/media/${video!.id}/play`,
    ];
    const downloads = [
      `${p}/media/${photo!.id}/download`,
      `${p}/media/${video!.id}/download`,
      `${p}/media/${doc!.id}/download`,
      `${p}/download.zip`,
    ];
    for (const url of [...pages, ...images, ...downloads]) {
      assert.equal((await visit(ctx, url)).statusCode, 200, url);
    }
    return { ...linked, photo: photo!, video: video!, doc: doc!, pages, images, downloads };
  }

  test('PATCH sets and clears each control; the gallery object shows them, never the password', async () => {
    const g = await linkedGallery(ctx, owner);
    const initial = await clientLink(ctx, owner.key, g.listingId);
    assert.equal(initial?.expires_at, null);
    assert.equal(initial?.password_protected, false);
    assert.equal(initial?.downloads_enabled, true);
    assert.equal(initial?.favorites_count, 0);

    const expires = new Date(clock.now() + 3 * DAY).toISOString();
    const res = await patch(g.listingId, { expires_at: expires, password: 'open sesame', downloads_enabled: false });
    assert.equal(res.statusCode, 200, res.body);
    assert.doesNotMatch(res.body, /open sesame|scrypt/);
    const link = res.json<{ client_link: ClientLinkJson }>().client_link;
    assert.deepEqual(
      { e: link.expires_at, p: link.password_protected, d: link.downloads_enabled },
      { e: expires, p: true, d: false },
    );
    assert.deepEqual(await clientLink(ctx, owner.key, g.listingId), link);

    const cleared = await patch(g.listingId, { expires_at: null, password: null, downloads_enabled: true });
    const after = cleared.json<{ client_link: ClientLinkJson }>().client_link;
    assert.deepEqual(
      { e: after.expires_at, p: after.password_protected, d: after.downloads_enabled },
      { e: null, p: false, d: true },
    );
  });

  test("each change of the link's controls moves the gallery's updated_at (docs/api.md §19)", async () => {
    const g = await linkedGallery(ctx, owner);
    const updatedAt = async () => {
      const res = await call(ctx, 'GET', `/v1/listings/${g.listingId}`, { key: owner.key });
      return res.json<{ updated_at: string }>().updated_at;
    };
    for (const change of [
      { expires_at: new Date(clock.now() + 5 * DAY).toISOString() },
      { password: 'a long password' },
      { downloads_enabled: false },
    ]) {
      const before = await updatedAt();
      clock.advance(1000);
      const res = await patch(g.listingId, change);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json<{ updated_at: string }>().updated_at, new Date(clock.now()).toISOString());
      assert.ok((await updatedAt()) > before, JSON.stringify(change));
    }
  });

  test('PATCH validates: a past expiry, a short or long password, an empty body, unknown fields are 400', async () => {
    const g = await linkedGallery(ctx, owner);
    expectError(
      await patch(g.listingId, { expires_at: new Date(clock.now() - 1000).toISOString() }),
      400,
      'validation_error',
    );
    expectError(await patch(g.listingId, { expires_at: 'tomorrow' }), 400, 'validation_error');
    expectError(await patch(g.listingId, { password: 'short' }), 400, 'validation_error');
    expectError(await patch(g.listingId, { password: 'x'.repeat(201) }), 400, 'validation_error');
    expectError(await patch(g.listingId, { downloads_enabled: 'no' }), 400, 'validation_error');
    expectError(await patch(g.listingId, {}), 400, 'validation_error');
    expectError(await patch(g.listingId, { colour: 'red' }), 400, 'validation_error');
    assert.equal((await patch(g.listingId, { password: 'x'.repeat(200) })).statusCode, 200);
  });

  test("PATCH on a gallery without a client is 409; another account's gallery is 404", async () => {
    const listing = await newGallery(ctx, owner);
    expectError(await patch(listing.id, { downloads_enabled: false }), 409, 'conflict');
    const other = await createAccount(ctx, 'Other');
    const g = await linkedGallery(ctx, other);
    expectError(await patch(g.listingId, { downloads_enabled: false }), 404, 'not_found');
    assert.equal((await clientLink(ctx, other.key, g.listingId))?.downloads_enabled, true);
  });

  test('an expired link answers 410 naming the studio and the date on every URL, and serves no byte', async () => {
    const g = await galleryWithFiles();
    const before = await clientLink(ctx, owner.key, g.listingId);
    assert.equal((await patch(g.listingId, { expires_at: new Date(clock.now() + DAY).toISOString() })).statusCode, 200);
    assert.equal((await visit(ctx, g.path)).statusCode, 200, 'not yet expired');
    clock.advance(DAY);
    for (const url of [...g.pages, ...g.images, ...g.downloads]) {
      const res = await visit(ctx, url, { headers: { range: 'bytes=0-' } });
      assert.equal(res.statusCode, 410, url);
      assert.match(String(res.headers['content-type']), /^text\/html/, url);
      assert.match(res.body, /Harbour Light Studio/, url);
      assert.match(res.body, /2 May 2026/, url);
      assert.equal(res.headers['content-range'], undefined, url);
      assertGalleryHeaders(res, url);
    }
    const head = await visit(ctx, `${g.path}/download.zip`, { method: 'HEAD' });
    assert.equal(head.statusCode, 410);
    const now = await clientLink(ctx, owner.key, g.listingId);
    assert.equal(now?.views, (before?.views ?? 0) + 1, 'only the page load before expiry counted');
    assert.equal(now?.downloads, before?.downloads);
    // A later expiry opens it again.
    assert.equal((await patch(g.listingId, { expires_at: new Date(clock.now() + DAY).toISOString() })).statusCode, 200);
    assert.equal((await visit(ctx, g.path)).statusCode, 200);
  });

  test('a protected link shows the password form on every URL until the right password is given', async () => {
    const g = await galleryWithFiles();
    assert.equal((await patch(g.listingId, { password: 'correct horse' })).statusCode, 200);
    const before = await clientLink(ctx, owner.key, g.listingId);
    for (const url of [...g.pages, ...g.images, ...g.downloads]) {
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await visit(ctx, url, { method, headers: { range: 'bytes=0-' } });
        assert.equal(res.statusCode, 403, `${method} ${url}`);
        if (method === 'GET') {
          assert.match(res.body, /<form[^>]+method="post"[^>]+action="\/g\/[^"]+\/unlock"/, url);
          assert.match(res.body, /type="password"/);
          assert.doesNotMatch(res.body, /porch\.jpg|walk\.mp4|plan\.pdf|\/thumb\//, 'nothing of the gallery');
        }
        assert.equal(res.headers['content-range'], undefined);
        assertGalleryHeaders(res, url);
      }
    }
    assert.match(String((await visit(ctx, g.path)).headers['content-security-policy']), /form-action 'self'/);

    const wrong = await unlock(g.path, 'not it', '10.1.0.1');
    assert.equal(wrong.statusCode, 403);
    assert.match(wrong.body, /not right/);
    assert.equal(wrong.headers['set-cookie'], undefined);

    const right = await unlock(g.path, 'correct horse', '10.1.0.1');
    assert.equal(right.statusCode, 303);
    assert.equal(right.headers.location, g.path);
    const cookie = String(right.headers['set-cookie']);
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
    assert.match(cookie, new RegExp(`Path=${g.path}(;|$)`));
    assert.match(cookie, /Max-Age=604800/);
    const jar = cookie.split(';')[0]!;
    for (const url of [...g.pages, ...g.images, ...g.downloads]) {
      assert.equal((await visit(ctx, url, { headers: { cookie: jar } })).statusCode, 200, url);
    }
    // Views and downloads were counted only once the password was given.
    const now = await clientLink(ctx, owner.key, g.listingId);
    assert.equal(now?.views, (before?.views ?? 0) + 1);

    // A forged or altered cookie is not remembered.
    const [name, value] = jar.split('=');
    const [until] = value!.split('.');
    const tampered = [`${name}=${Number(until) + 1000}.${value!.split('.')[1]}`, `${name}=${until}.AAAA`, `${name}=x`];
    for (const bad of tampered) assert.equal((await visit(ctx, g.path, { headers: { cookie: bad } })).statusCode, 403);

    // 7 days later the browser is asked again.
    clock.advance(7 * DAY + 1000);
    assert.equal((await visit(ctx, g.path, { headers: { cookie: jar } })).statusCode, 403);
  });

  test('changing or removing the password forgets every browser', async () => {
    const g = await galleryWithFiles();
    await patch(g.listingId, { password: 'first password' });
    const jar = String((await unlock(g.path, 'first password', '10.2.0.1')).headers['set-cookie']).split(';')[0]!;
    assert.equal((await visit(ctx, g.path, { headers: { cookie: jar } })).statusCode, 200);
    // The same password set again is a change too: a new hash.
    await patch(g.listingId, { password: 'first password' });
    assert.equal((await visit(ctx, g.path, { headers: { cookie: jar } })).statusCode, 403);
    const jar2 = String((await unlock(g.path, 'first password', '10.2.0.1')).headers['set-cookie']).split(';')[0]!;
    await patch(g.listingId, { password: null });
    assert.equal((await visit(ctx, g.path)).statusCode, 200, 'no password: open');
    await patch(g.listingId, { password: 'second password' });
    assert.equal((await visit(ctx, g.path, { headers: { cookie: jar2 } })).statusCode, 403);
    // Other controls leave the remembered browsers alone.
    const jar3 = String((await unlock(g.path, 'second password', '10.2.0.1')).headers['set-cookie']).split(';')[0]!;
    await patch(g.listingId, { downloads_enabled: false });
    assert.equal((await visit(ctx, g.path, { headers: { cookie: jar3 } })).statusCode, 200);
    // A new token (POST client_link) is a new link: its cookie path differs, so it asks again.
    const rotated = await call(ctx, 'POST', `/v1/listings/${g.listingId}/client_link`, { key: owner.key });
    const path = new URL(rotated.json<{ client_link: ClientLinkJson }>().client_link.url).pathname;
    assert.equal((await visit(ctx, path, { headers: { cookie: jar3 } })).statusCode, 403);
  });

  test('wrong passwords: 10 per address and link in 15 minutes, then 429 even for the right one', async () => {
    const g = await galleryWithFiles();
    const other = await galleryWithFiles();
    await patch(g.listingId, { password: 'right answer' });
    await patch(other.listingId, { password: 'right answer' });
    for (let i = 0; i < 10; i += 1) assert.equal((await unlock(g.path, `wrong ${i}`, '10.3.0.1')).statusCode, 403);
    const limited = await unlock(g.path, 'right answer', '10.3.0.1');
    assert.equal(limited.statusCode, 429);
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal(limited.headers['set-cookie'], undefined);
    assertGalleryHeaders(limited, 'the 429');
    // Another address, another link: their own budgets.
    assert.equal((await unlock(g.path, 'right answer', '10.3.0.2')).statusCode, 303);
    assert.equal((await unlock(other.path, 'right answer', '10.3.0.1')).statusCode, 303);
    // 15 minutes later the address may try again.
    clock.advance(15 * 60 * 1000 + 1000);
    assert.equal((await unlock(g.path, 'right answer', '10.3.0.1')).statusCode, 303);
  });

  test('an unlock on an expired or unknown link gives no cookie; a link without a password redirects', async () => {
    const g = await galleryWithFiles();
    assert.equal((await unlock(g.path, 'anything at all', '10.4.0.1')).statusCode, 303);
    await patch(g.listingId, { password: 'right answer', expires_at: new Date(clock.now() + 1000).toISOString() });
    clock.advance(2000);
    const expired = await unlock(g.path, 'right answer', '10.4.0.1');
    assert.equal(expired.statusCode, 410);
    assert.equal(expired.headers['set-cookie'], undefined);
    const unknown = await unlock('/g/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'right answer', '10.4.0.1');
    assert.equal(unknown.statusCode, 404);
  });

  test('downloads off: no download control on the page, originals and the ZIP are 404, images still show', async () => {
    const g = await galleryWithFiles();
    const on = await visit(ctx, g.path);
    assert.match(on.body, /download\.zip/);
    assert.match(on.body, /\/download"/);
    await patch(g.listingId, { downloads_enabled: false });
    const off = await visit(ctx, g.path);
    assert.equal(off.statusCode, 200);
    assert.doesNotMatch(off.body, /download\.zip|\/download"|data-download=|Download all|\sdownload[\s>]/);
    assert.match(off.body, /data-downloads="off"/);
    const photoPage = await visit(ctx, `${g.path}/photo/${g.photo.id}`);
    assert.doesNotMatch(photoPage.body, /\/download"/);
    for (const url of g.downloads) {
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await visit(ctx, url, { method });
        assert.equal(res.statusCode, 404, `${method} ${url}`);
        assert.match(String(res.headers['content-type']), /^text\/html/);
      }
    }
    // Images still show; the video has no web rendition, so it does not play (that would serve its original).
    for (const url of g.images) {
      assert.equal((await visit(ctx, url)).statusCode, url.endsWith('/play') ? 404 : 200, url);
    }
    await patch(g.listingId, { downloads_enabled: true });
    assert.equal((await visit(ctx, `${g.path}/media/${g.video.id}/play`)).statusCode, 200);
    for (const url of g.downloads) assert.equal((await visit(ctx, url)).statusCode, 200, url);
  });

  test('each control change is a listing.updated event with the link as it now is, and moves the ETag', async () => {
    const g = await linkedGallery(ctx, owner);
    const first = await call(ctx, 'GET', `/v1/listings/${g.listingId}`, { key: owner.key });
    const etag = String(first.headers.etag);
    await patch(g.listingId, { downloads_enabled: false });
    const second = await call(ctx, 'GET', `/v1/listings/${g.listingId}`, {
      key: owner.key,
      headers: { 'if-none-match': etag },
    });
    assert.equal(second.statusCode, 200);
    assert.notEqual(second.headers.etag, etag);
    const events = await call(ctx, 'GET', '/v1/events', {
      key: owner.key,
      query: { type: 'listing.updated', limit: '1' },
    });
    const object = events.json<{ data: { data: { object: { id: string; client_link: ClientLinkJson } } }[] }>().data[0]!
      .data.object;
    assert.equal(object.id, g.listingId);
    assert.equal(object.client_link.downloads_enabled, false);
    assert.equal(object.client_link.password_protected, false);
  });

  function unlock(path: string, password: string, remoteAddress: string) {
    return ctx.app.inject({
      method: 'POST',
      url: `${path}/unlock`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ password }).toString(),
      remoteAddress,
    });
  }
});
