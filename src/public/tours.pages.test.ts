// docs/api.md §28: a gallery's tours on the client gallery and both property pages. A provider's
// address plays in the provider's player (an iframe on its one frame host), and only then does
// the page's CSP name hosts: `frame-src` with exactly the providers' players, nothing else loosened.
// Any other URL is a plain link; the unbranded page shows only the tours marked `unbranded`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, createAccount, createTestContext, type TestContext } from '../../test/support/test-app.ts';
import { assertGalleryHeaders, linkedGallery, visit } from '../../test/support/gallery.ts';
import {
  assertPropertyHeaders,
  cspOf,
  pathOf,
  publishedProperty,
  type PublishedProperty,
} from '../../test/support/property.ts';
import type { Response } from '../../test/support/test-app.ts';

const PLAYERS = [
  'https://kuula.co',
  'https://my.matterport.com',
  'https://player.vimeo.com',
  'https://www.youtube-nocookie.com',
  'https://www.zillow.com',
  'https://youriguide.com',
];

const MATTERPORT = { url: 'https://my.matterport.com/show/?m=SxQL3iGyoDo', label: '3D <walkthrough>', unbranded: true };
const YOUTUBE = { url: 'https://youtu.be/dQw4w9WgXcQ', label: 'Film by the studio', unbranded: false };
const OWN = { url: 'https://tours.example.com/12-quay?a=1&b=2', label: 'Floor plan', unbranded: true };

const iframesOf = (page: string): string[] => [...page.matchAll(/<iframe\s+src="([^"]+)"/g)].map((m) => m[1]!);

/** The CSP with its frame-src taken out, so the rest can be held to the no-host rules. */
function assertFrames(res: Response, label: string, framed: boolean): void {
  const directives = cspOf(res);
  if (framed) assert.deepEqual([...(directives.get('frame-src') ?? [])].sort(), PLAYERS, `${label}: frame-src`);
  else assert.equal(directives.get('frame-src'), undefined, `${label}: frames nothing`);
  for (const [name, values] of directives) {
    if (name === 'frame-src') continue;
    assert.ok(
      values.every((v) => !/^https?:/.test(v) && !v.includes('*')),
      `${label}: ${name} names a host: ${values.join(' ')}`,
    );
  }
  assert.deepEqual(directives.get('default-src'), ["'none'"], label);
  assert.deepEqual(directives.get('frame-ancestors'), ["'none'"], label);
}

/** The page with its CSP relieved of frame-src, for the suites' own header checks. */
const withoutFrames = (res: Response): Response => {
  const csp = String(res.headers['content-security-policy'])
    .split(';')
    .filter((d) => !d.trim().startsWith('frame-src'))
    .join(';');
  return { ...res, headers: { ...res.headers, 'content-security-policy': csp } };
};

describe('tours on the client gallery page', () => {
  let ctx: TestContext;

  before(async () => {
    ctx = await createTestContext();
  });
  after(() => ctx.close());

  test("embedded tours play in the providers' players; other URLs are links; frame-src names exactly the players", async () => {
    const owner = await createAccount(ctx);
    const linked = await linkedGallery(ctx, owner);
    const set = await call(ctx, 'PATCH', `/v1/listings/${linked.listingId}`, {
      key: owner.key,
      body: { tours: [MATTERPORT, YOUTUBE, OWN] },
    });
    assert.equal(set.statusCode, 200, set.body);
    const res = await visit(ctx, linked.path);
    assert.equal(res.statusCode, 200);
    assertFrames(res, 'the gallery page', true);
    assertGalleryHeaders(withoutFrames(res), 'the gallery page');
    const page = res.body;
    assert.deepEqual(iframesOf(page), [
      'https://my.matterport.com/show/?m=SxQL3iGyoDo',
      'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ',
    ]);
    assert.match(page, /title="3D &lt;walkthrough&gt; \(Matterport\)"/, 'labels escaped, frames titled');
    assert.match(page, /href="https:\/\/tours\.example\.com\/12-quay\?a=1&amp;b=2"[^>]*rel="noopener noreferrer"/);
    assert.ok(!iframesOf(page).some((src) => src.includes('tours.example.com')), 'another host is never framed');
    assert.match(page, /<h2 id="tours-title">Tours <span class="count">3<\/span>/);

    // Only links: the page frames nothing, and its CSP is the one without tours.
    await call(ctx, 'PATCH', `/v1/listings/${linked.listingId}`, { key: owner.key, body: { tours: [OWN] } });
    const plain = await visit(ctx, linked.path);
    assert.deepEqual(iframesOf(plain.body), []);
    assertFrames(plain, 'a page with a link only', false);
    assertGalleryHeaders(plain, 'a page with a link only');

    // None: no section.
    await call(ctx, 'PATCH', `/v1/listings/${linked.listingId}`, { key: owner.key, body: { tours: [] } });
    const none = await visit(ctx, linked.path);
    assert.ok(!none.body.includes('tours-title'));
    assertGalleryHeaders(none, 'a page without tours');
    // The photo pages and the error pages never frame anything.
    const gone = await visit(ctx, `/g/${'Z'.repeat(32)}`);
    assertGalleryHeaders(gone, 'the 404');
  });
});

describe('tours on the property pages', () => {
  let ctx: TestContext;
  let published: PublishedProperty;

  before(async () => {
    ctx = await createTestContext();
    published = await publishedProperty(ctx);
  });
  after(() => ctx.close());

  test('the branded page shows every tour; the unbranded page only those marked unbranded', async () => {
    const { account, listingId, page } = published;
    const set = await call(ctx, 'PATCH', `/v1/listings/${listingId}`, {
      key: account.key,
      body: { tours: [YOUTUBE, MATTERPORT, OWN] },
    });
    assert.equal(set.statusCode, 200, set.body);

    const branded = await visit(ctx, pathOf(page.url));
    assert.equal(branded.statusCode, 200);
    assertFrames(branded, 'the branded page', true);
    assertPropertyHeaders(withoutFrames(branded), 'the branded page');
    assert.deepEqual(iframesOf(branded.body), [
      'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ',
      'https://my.matterport.com/show/?m=SxQL3iGyoDo',
    ]);
    assert.ok(branded.body.includes('Film by the studio'));
    assert.ok(branded.body.includes('Floor plan'));

    const unbranded = await visit(ctx, pathOf(page.unbranded_url));
    assert.equal(unbranded.statusCode, 200);
    assertFrames(unbranded, 'the unbranded page', true);
    assertPropertyHeaders(withoutFrames(unbranded), 'the unbranded page');
    assert.deepEqual(iframesOf(unbranded.body), ['https://my.matterport.com/show/?m=SxQL3iGyoDo']);
    assert.ok(!unbranded.body.includes('Film by the studio'), 'a tour not marked unbranded is not shown');
    assert.ok(!unbranded.body.includes('youtube'), 'nor framed');
    assert.ok(unbranded.body.includes('Floor plan'));

    // Only branded tours embed: the unbranded page then frames nothing at all.
    await call(ctx, 'PATCH', `/v1/listings/${listingId}`, { key: account.key, body: { tours: [YOUTUBE] } });
    const bare = await visit(ctx, pathOf(page.unbranded_url));
    assertFrames(bare, 'the unbranded page without its tours', false);
    assertPropertyHeaders(bare, 'the unbranded page without its tours');
    assert.ok(!bare.body.includes('tours-title'));
    assertFrames(await visit(ctx, pathOf(page.url)), 'the branded page', true);

    // The embeddable view (oEmbed) stays as it was: framable by anyone, framing nothing.
    const embed = await visit(ctx, `${pathOf(page.url)}/embed`);
    assert.equal(cspOf(embed).get('frame-src'), undefined);
    assertPropertyHeaders(embed, 'the embeddable view', true);
  });
});
