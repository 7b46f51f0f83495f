// docs/api.md §31 in the dashboard: one photo's page has a "Virtually staged" box and an "Original
// photo" select (the gallery's other photos, or none), saved through the same form and the same
// media write as its caption, by the owner and by a member (docs/api.md §27); a refused original
// (a cycle) changes nothing; a document has neither.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Browser, textOf } from '../../test/support/dashboard-browser.ts';
import { jpeg, pdf } from '../../test/support/media-fixtures.ts';
import { uploaded, type MediaJson } from '../../test/support/media-helpers.ts';
import { addMember } from '../../test/support/team.ts';
import { call, createAccount, createTestContext, type TestContext } from '../../test/support/test-app.ts';

const PASSWORD = 'correct horse battery';
let ctx: TestContext;

before(async () => {
  ctx = await createTestContext();
});
after(() => ctx.close());

type Staged = MediaJson & { virtually_staged: boolean; original_media_id: string | null };

async function signedIn(
  email: string,
): Promise<{ browser: Browser; post: (url: string, f: Record<string, string>) => ReturnType<Browser['post']> }> {
  const browser = new Browser(ctx.app);
  assert.equal((await browser.signIn(email, PASSWORD)).statusCode, 303);
  await browser.get('/dashboard');
  const csrf = browser.token();
  return { browser, post: (url, fields) => browser.post(url, fields, { csrf }) };
}

describe("a photo's staging on its page", () => {
  test('the box and the select are saved by the owner and by a member; a cycle is refused; a document has neither', async () => {
    const owner = await createAccount(ctx, 'Staging Studio');
    const created = await call(ctx, 'POST', '/v1/listings', { key: owner.key, body: { address: '4 Quay Street' } });
    const id = created.json<{ id: string }>().id;
    const [before, after, plan] = (await uploaded(ctx, owner.key, id, [
      { filename: 'before.jpg', data: await jpeg(40, 30) },
      { filename: 'after.jpg', data: await jpeg(40, 30) },
      { filename: 'plan.pdf', data: pdf('Plan') },
    ])) as Staged[];
    const mediaOf = async (mediaId: string): Promise<Staged> =>
      (await call(ctx, 'GET', `/v1/listings/${id}/media/${mediaId}`, { key: owner.key })).json<Staged>();
    const itemUrl = (m: Staged) => `/dashboard/galleries/${id}/media/${m.id}`;

    const studio = await signedIn(owner.email);
    const page = await studio.browser.get(itemUrl(after!));
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<input type="checkbox" name="virtually_staged" value="1"\s*\/>/);
    assert.match(textOf(page.body), /Virtually staged/);
    assert.ok(page.body.includes(`<label for="orig-${after!.id}">Original photo</label>`));
    // The other photos, not itself nor the document.
    const options = [...page.body.matchAll(/<option value="([^"]*)"/g)].map((m) => m[1]);
    assert.deepEqual(options, ['', before!.id]);

    const saved = await studio.post(itemUrl(after!), {
      back: 'photo',
      caption: '',
      hidden_shown: '1',
      virtually_staged: '1',
      virtually_staged_shown: '1',
      original_media_id: before!.id,
    });
    assert.equal(saved.headers.location, `${itemUrl(after!)}?notice=media-saved`);
    const staged = await mediaOf(after!.id);
    assert.deepEqual([staged.virtually_staged, staged.original_media_id], [true, before!.id]);
    const again = await studio.browser.get(itemUrl(after!));
    assert.match(again.body, /name="virtually_staged" value="1" checked/);
    assert.match(again.body, new RegExp(`<option value="${before!.id}" selected`));

    // The original cannot name the photo staged from it: refused, nothing changed.
    const refused = await studio.post(itemUrl(before!), {
      back: 'photo',
      virtually_staged: '1',
      virtually_staged_shown: '1',
      original_media_id: after!.id,
    });
    assert.equal(refused.headers.location, `${itemUrl(before!)}?notice=media-refused`);
    const untouched = await mediaOf(before!.id);
    assert.deepEqual([untouched.virtually_staged, untouched.original_media_id], [false, null]);

    // A member unticks it and clears the original ("None").
    const memberEmail = `member.${Date.now()}@staging.test`;
    await addMember(ctx, owner.accountId, memberEmail, PASSWORD);
    const member = await signedIn(memberEmail);
    const cleared = await member.post(itemUrl(after!), {
      back: 'photo',
      virtually_staged_shown: '1',
      original_media_id: '',
    });
    assert.equal(cleared.headers.location, `${itemUrl(after!)}?notice=media-saved`);
    const unstaged = await mediaOf(after!.id);
    assert.deepEqual([unstaged.virtually_staged, unstaged.original_media_id], [false, null]);

    // Signed out: sent to sign in, nothing changed.
    const anonymous = new Browser(ctx.app);
    const out = await anonymous.post(
      itemUrl(after!),
      { virtually_staged: '1', virtually_staged_shown: '1' },
      { csrf: null },
    );
    assert.notEqual(out.statusCode, 200);
    assert.equal((await mediaOf(after!.id)).virtually_staged, false);

    const doc = await studio.browser.get(itemUrl(plan!));
    assert.doesNotMatch(doc.body, /name="virtually_staged"|name="original_media_id"/);
  });
});
