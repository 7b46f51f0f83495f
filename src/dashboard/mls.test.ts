// MLS rules in the dashboard over HTTP (app.inject), docs/api.md §31: the owner's profiles under
// Settings (every field of the contract; refused forms come back 400 as typed, each message
// beside its field; an untouched save writes nothing; a deletion leaves its galleries with none),
// a gallery's profile chosen on its page (another studio's refused) with the compliance panel
// (each issue, its fix or what to do, a link to the photo), and the list's badge.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Browser, inputValue, textOf } from '../../test/support/dashboard-browser.ts';
import { makeVariantsNow, uploaded, type MediaJson } from '../../test/support/media-helpers.ts';
import { newMlsProfile, writeAnalysis } from '../../test/support/mls.ts';
import { sceneJpeg } from '../../test/support/photos.ts';
import { addMember } from '../../test/support/team.ts';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';

let ctx: TestContext;

before(async () => {
  ctx = await createTestContext();
});
after(async () => {
  await ctx.close();
});

const PASSWORD = 'correct horse battery';

/** A browser signed in, whose forms all carry the session's form token. */
async function signIn(email: string): Promise<Browser> {
  const browser = new Browser(ctx.app);
  assert.equal((await browser.signIn(email, PASSWORD)).statusCode, 303);
  await browser.get('/dashboard/galleries');
  const token = browser.token();
  const post = browser.post.bind(browser);
  browser.post = (url, fields, options) => post(url, fields, { csrf: token, ...options });
  return browser;
}

async function signedIn(name: string): Promise<{ owner: TestAccount; browser: Browser }> {
  const owner = await createAccount(ctx, name);
  return { owner, browser: await signIn(owner.email) };
}

const idIn = (location: string | undefined, prefix: string): string =>
  new RegExp(`/(${prefix}_[A-Za-z0-9]+)`).exec(location ?? '')?.[1] ?? '';

/** The error paragraph beside a field, or undefined. */
const errorBeside = (page: string, name: string): string | undefined =>
  new RegExp(`<p class="field-error" id="f-${name}-error">([^<]*)</p>`).exec(page)?.[1];

const FULL = {
  name: 'Bright MLS',
  max_long_edge: '1,600',
  min_long_edge: '800',
  max_bytes: '8,000,000',
  max_photos: '40',
  forbid_text: '1',
  forbid_qr_codes: '1',
  forbid_people: '1',
  disclose_staging: '1',
};

interface ProfileJson {
  id: string;
  name: string;
  max_long_edge: number;
  min_long_edge: number;
  max_bytes: number;
  max_photos: number;
  forbid_text: boolean;
  forbid_qr_codes: boolean;
  forbid_people: boolean;
  first_photo_exterior: boolean;
  disclose_staging: boolean;
  updated_at: string;
}

describe('MLS profiles in the dashboard', () => {
  test('create with every field, refused as typed beside each field, edit, an untouched save, delete', async () => {
    const { owner, browser } = await signedIn('Profiles Studio');
    const empty = await browser.get('/dashboard/settings/mls');
    assert.equal(empty.statusCode, 200);
    assert.match(textOf(empty.body), /No MLS profiles yet/);
    assert.match((await browser.get('/dashboard/settings/studio')).body, /href="\/dashboard\/settings\/mls"/);

    // The new form offers the contract's defaults.
    const form = await browser.get('/dashboard/settings/mls/new');
    assert.deepEqual(
      ['max_long_edge', 'min_long_edge', 'max_bytes', 'max_photos'].map((n) => inputValue(form.body, `f-${n}`)),
      ['2048', '1024', '10,000,000', '50'],
    );
    for (const rule of [
      'forbid_text',
      'forbid_qr_codes',
      'forbid_people',
      'first_photo_exterior',
      'disclose_staging',
    ]) {
      assert.match(form.body, new RegExp(`name="${rule}" value="1"[^>]*checked`), rule);
    }

    const refused = await browser.post('/dashboard/settings/mls', {
      ...FULL,
      name: '  ',
      max_long_edge: 'big',
      max_bytes: '5',
      max_photos: '0',
    });
    assert.equal(refused.statusCode, 400);
    assert.equal(errorBeside(refused.body, 'name'), 'Enter the name of the listing service');
    assert.equal(errorBeside(refused.body, 'max_long_edge'), 'Enter a number from 16 to 8,192');
    assert.equal(errorBeside(refused.body, 'max_bytes'), 'Enter a number from 10,000 to 100,000,000');
    assert.equal(errorBeside(refused.body, 'max_photos'), 'Enter a number from 1 to 1,000');
    assert.equal(errorBeside(refused.body, 'min_long_edge'), undefined);
    assert.equal(inputValue(refused.body, 'f-max_long_edge'), 'big');
    assert.match(refused.body, /id="f-max_bytes"[^>]*aria-invalid="true"/);
    assert.match(textOf(refused.body), /Please fix these and try again: .*Largest file: Enter a number/);

    // The service's own rule: the smallest long edge at most the largest.
    const crossed = await browser.post('/dashboard/settings/mls', { ...FULL, min_long_edge: '2000' });
    assert.equal(crossed.statusCode, 400);
    assert.equal(errorBeside(crossed.body, 'min_long_edge'), 'Enter at most 1,600, the largest long edge');
    assert.equal((await call(ctx, 'GET', '/v1/mls_profiles', { key: owner.key })).json<{ data: [] }>().data.length, 0);

    const made = await browser.post('/dashboard/settings/mls', FULL);
    assert.equal(made.statusCode, 303);
    const id = idIn(made.headers.location, 'mlp');
    const stored = (await call(ctx, 'GET', `/v1/mls_profiles/${id}`, { key: owner.key })).json<ProfileJson>();
    assert.deepEqual(
      { ...stored, id: undefined, updated_at: undefined },
      {
        ...stored,
        id: undefined,
        updated_at: undefined,
        name: 'Bright MLS',
        max_long_edge: 1600,
        min_long_edge: 800,
        max_bytes: 8_000_000,
        max_photos: 40,
        forbid_text: true,
        forbid_qr_codes: true,
        forbid_people: true,
        first_photo_exterior: false,
        disclose_staging: true,
      },
    );
    const shown = await browser.follow(made);
    assert.match(textOf(shown.body), /Profile added/);
    assert.equal(inputValue(shown.body, 'f-max_bytes'), '8,000,000');
    assert.match(textOf((await browser.get('/dashboard/settings/mls')).body), /Bright MLS 800–1,600 px · up to 8 MB · at most 40/); // prettier-ignore

    // An untouched save writes nothing; a change writes only itself.
    const same = await browser.post(`/dashboard/settings/mls/${id}`, FULL);
    assert.equal(same.statusCode, 303);
    const after1 = (await call(ctx, 'GET', `/v1/mls_profiles/${id}`, { key: owner.key })).json<ProfileJson>();
    assert.equal(after1.updated_at, stored.updated_at);
    const edited = await browser.post(`/dashboard/settings/mls/${id}`, {
      ...FULL,
      max_photos: '25',
      forbid_people: '',
      first_photo_exterior: '1',
    });
    assert.equal(edited.statusCode, 303);
    assert.match(String(edited.headers.location), /notice=mls-saved/);
    const after2 = (await call(ctx, 'GET', `/v1/mls_profiles/${id}`, { key: owner.key })).json<ProfileJson>();
    assert.deepEqual(
      [after2.max_photos, after2.forbid_people, after2.first_photo_exterior, after2.max_long_edge],
      [25, false, true, 1600],
    );
    const badEdit = await browser.post(`/dashboard/settings/mls/${id}`, { ...FULL, max_long_edge: '700' });
    assert.equal(badEdit.statusCode, 400);
    assert.equal(errorBeside(badEdit.body, 'min_long_edge'), 'Enter at most 700, the largest long edge');
    assert.equal(inputValue(badEdit.body, 'f-max_long_edge'), '700');

    // Deleted after a page that asks; a gallery that used it is left with none.
    const gallery = (await call(ctx, 'POST', '/v1/listings', { key: owner.key, body: { address: '4 Quay St' } })).json<{ id: string }>().id; // prettier-ignore
    await call(ctx, 'PATCH', `/v1/listings/${gallery}`, { key: owner.key, body: { mls_profile_id: id } });
    assert.match(textOf((await browser.get(`/dashboard/settings/mls/${id}/delete`)).body), /Delete “Bright MLS”\?/);
    const gone = await browser.post(`/dashboard/settings/mls/${id}/delete`, {});
    assert.equal(gone.statusCode, 303);
    assert.match(textOf((await browser.follow(gone)).body), /The profile was deleted/);
    assert.equal((await call(ctx, 'GET', `/v1/mls_profiles/${id}`, { key: owner.key })).statusCode, 404);
    const detached = await call(ctx, 'GET', `/v1/listings/${gallery}`, { key: owner.key });
    assert.equal(detached.json<{ mls_profile_id: string | null }>().mls_profile_id, null);
    assert.equal((await browser.get(`/dashboard/settings/mls/${id}`)).statusCode, 404);
  });

  test("another studio's profile is not found; a member is refused the profiles", async () => {
    const { owner, browser } = await signedIn('Own Studio');
    const other = await createAccount(ctx, 'Other Studio');
    const theirs = await newMlsProfile(ctx, other);
    assert.equal((await browser.get(`/dashboard/settings/mls/${theirs}`)).statusCode, 404);
    assert.equal((await browser.post(`/dashboard/settings/mls/${theirs}`, FULL)).statusCode, 404);
    assert.equal((await browser.post(`/dashboard/settings/mls/${theirs}/delete`, {})).statusCode, 404);
    assert.equal((await call(ctx, 'GET', `/v1/mls_profiles/${theirs}`, { key: other.key })).statusCode, 200);

    await addMember(ctx, owner.accountId, 'helper@own.test', PASSWORD);
    const member = await signIn('helper@own.test');
    assert.equal((await member.get('/dashboard/settings/mls')).statusCode, 403);
  });
});

describe("a gallery's MLS panel and the list's badge", () => {
  async function photos(owner: TestAccount, listingId: string, sizes: [number, number][]): Promise<MediaJson[]> {
    return uploaded(
      ctx,
      owner.key,
      listingId,
      await Promise.all(
        sizes.map(async ([w, h], i) => ({
          filename: `room-${i + 1}.jpg`,
          contentType: 'image/jpeg',
          data: await sceneJpeg(w, h, i * 50),
        })),
      ),
    );
  }

  test('chosen on the page; the report with each issue, its fix or what to do, and the photo; the badge', async () => {
    const { owner, browser } = await signedIn('Compliance Studio');
    const profile = (
      await call(ctx, 'POST', '/v1/mls_profiles', {
        key: owner.key,
        body: { name: 'Coastal MLS', max_long_edge: 1200, min_long_edge: 500 },
      })
    ).json<{ id: string }>().id;
    const id = (await call(ctx, 'POST', '/v1/listings', { key: owner.key, body: { address: '9 Tide Lane' } })).json<{ id: string }>().id; // prettier-ignore
    assert.equal((await call(ctx, 'POST', '/v1/listings', { key: owner.key, body: { address: '1 Plain Road' } })).statusCode, 201); // prettier-ignore
    const [front, text, person, small, large, staged] = await photos(owner, id, [
      [800, 600],
      [800, 600],
      [800, 600],
      [400, 300],
      [1600, 1200],
      [800, 600],
    ]);
    assert.ok(front && text && person && small && large && staged);
    await writeAnalysis(ctx, front.id, { analysis_room: 'Exterior Front' });
    await writeAnalysis(ctx, text.id, { analysis_text: '[{"text":"CALL 555-0100","confidence":0.9}]' });
    await writeAnalysis(ctx, person.id, { analysis_people: 2 });
    await writeAnalysis(ctx, small.id);
    await writeAnalysis(ctx, large.id);
    await writeAnalysis(ctx, staged.id, { virtually_staged: 1 });

    // No profile yet: the select offers None and the studio's profiles; no report.
    const before = await browser.get(`/dashboard/galleries/${id}`);
    assert.match(before.body, /<option value="" selected>None<\/option>/);
    assert.match(before.body, new RegExp(`<option value="${profile}" >Coastal MLS</option>`));
    assert.doesNotMatch(before.body, /class="mls-status"/);

    const set = await browser.post(`/dashboard/galleries/${id}/mls-profile`, { mls_profile_id: profile });
    assert.equal(set.statusCode, 303);
    assert.equal(set.headers.location, `/dashboard/galleries/${id}?notice=mls-profile-set#mls`);
    const stored = await call(ctx, 'GET', `/v1/listings/${id}`, { key: owner.key });
    assert.equal(stored.json<{ mls_profile_id: string }>().mls_profile_id, profile);
    assert.match(textOf((await browser.follow(set)).body), /MLS profile saved/);
    await makeVariantsNow(ctx);

    const page = await browser.get(`/dashboard/galleries/${id}`);
    const text_ = textOf(page.body);
    assert.match(page.body, new RegExp(`<option value="${profile}" selected>Coastal MLS</option>`));
    assert.match(text_, /fail Coastal MLS would refuse this listing: 4 issues to fix, 1 warning\./);
    assert.match(text_, /Photo 2: room-2\.jpg fail Fails The photo shows text \(1 word read\)\. Left out of the unbranded property page\./); // prettier-ignore
    assert.match(text_, /Photo 3: room-3\.jpg fail Fails The photo shows 2 people\. Left out of the unbranded property page\./); // prettier-ignore
    assert.match(text_, /Fails The photo's long edge is 400 px; the profile asks for at least 500\. Upload a larger original \(at least 500 px on its long edge\)/); // prettier-ignore
    // The oversized photo is fixed by its mls variant, made to fit the profile: said as fixed.
    assert.match(text_, /Photo 5: room-5\.jpg warn Warning The original's long edge is 1600 px, over 1200\. Fixed: Its mls variant is 1200x900 px/); // prettier-ignore
    assert.match(text_, /Fails The photo is virtually staged, and names no original photo to show beside it\. Choose its original photo on the photo's page ?\./); // prettier-ignore
    assert.match(page.body, new RegExp(`<a href="/dashboard/galleries/${id}/media/${staged.id}">the photo's page</a>`));
    assert.match(page.body, new RegExp(`<a href="#m-${text.id}">Photo 2: room-2.jpg</a>`));
    assert.match(page.body, new RegExp(`id="m-${text.id}"`), 'the anchor is a tile of the grid');
    assert.match(text_, /1 other photo passes\./);
    assert.match(
      text_,
      /Done automatically 1 MLS photo was made smaller to fit the profile\. 1 staged photo carries a “Virtually staged” label on its MLS photo\. 2 photos are left out of the unbranded property page/,
    );
    assert.doesNotMatch(page.body, new RegExp(`href="#m-${front.id}"`), 'a passing photo is not listed');

    // The list: a badge for the gallery with a profile, none for the other.
    const list = await browser.get('/dashboard/galleries');
    assert.match(textOf(list.body), /9 Tide Lane draft MLS fail/);
    assert.match(list.body, /class="badge badge-mls-fail">MLS fail</);
    assert.match(textOf(list.body), /1 Plain Road draft not assigned/);

    // Fixed by the studio: the staging disclosed and the offending photos hidden; the report and badge follow.
    await call(ctx, 'PATCH', `/v1/listings/${id}/media/${staged.id}`, { key: owner.key, body: { original_media_id: front.id } }); // prettier-ignore
    for (const m of [text, person, small]) {
      await call(ctx, 'PATCH', `/v1/listings/${id}/media/${m.id}`, { key: owner.key, body: { hidden: true } });
    }
    const fixed = textOf((await browser.get(`/dashboard/galleries/${id}`)).body);
    assert.match(fixed, /warn Nothing Coastal MLS refuses; 1 warning worth a look\./);
    assert.match(textOf((await browser.get('/dashboard/galleries')).body), /9 Tide Lane draft MLS warn/);

    // Another studio's profile is refused, and nothing changes; None takes the profile away.
    const theirs = await newMlsProfile(ctx, await createAccount(ctx, 'Elsewhere'));
    const refused = await browser.post(`/dashboard/galleries/${id}/mls-profile`, { mls_profile_id: theirs });
    assert.equal(refused.headers.location, `/dashboard/galleries/${id}?notice=mls-profile-refused#mls`);
    assert.match(textOf((await browser.follow(refused)).body), /Not saved: choose one of the studio’s MLS profiles/);
    const long = await browser.post(`/dashboard/galleries/${id}/mls-profile`, { mls_profile_id: 'x'.repeat(500) });
    assert.equal(long.headers.location, `/dashboard/galleries/${id}?notice=mls-profile-refused#mls`);
    assert.equal((await call(ctx, 'GET', `/v1/listings/${id}`, { key: owner.key })).json<{ mls_profile_id: string }>().mls_profile_id, profile); // prettier-ignore
    const none = await browser.post(`/dashboard/galleries/${id}/mls-profile`, { mls_profile_id: '' });
    assert.equal(none.headers.location, `/dashboard/galleries/${id}?notice=mls-profile-cleared#mls`);
    assert.equal((await call(ctx, 'GET', `/v1/listings/${id}`, { key: owner.key })).json<{ mls_profile_id: null }>().mls_profile_id, null); // prettier-ignore
    assert.doesNotMatch(textOf((await browser.get('/dashboard/galleries')).body), /MLS/);
  });

  test("pending while a photo is analysed; a member chooses the profile and is not sent to the owner's page", async () => {
    const { owner } = await signedIn('Pending Studio');
    const profile = await newMlsProfile(ctx, owner);
    const id = (await call(ctx, 'POST', '/v1/listings', { key: owner.key, body: { address: '2 Mill Row' } })).json<{ id: string }>().id; // prettier-ignore
    const [done, waiting] = await photos(owner, id, [
      [1200, 800],
      [1200, 800],
    ]);
    assert.ok(done && waiting);
    await writeAnalysis(ctx, done.id, { analysis_room: 'Exterior Front' });
    await ctx.deps.db.kysely.updateTable('media').set({ analysis_status: 'pending' }).where('id', '=', waiting.id).execute(); // prettier-ignore

    await addMember(ctx, owner.accountId, 'assistant@pending.test', PASSWORD);
    const member = await signIn('assistant@pending.test');
    const page = await member.get(`/dashboard/galleries/${id}`);
    assert.doesNotMatch(page.body, /href="\/dashboard\/settings\/mls"/, "a member is not offered the owner's page");
    const set = await member.post(`/dashboard/galleries/${id}/mls-profile`, { mls_profile_id: profile });
    assert.equal(set.statusCode, 303);
    const shown = textOf((await member.follow(set)).body);
    assert.match(shown, /pending 1 photo is still being analysed: the report is complete once they are\./);
    assert.match(textOf((await member.get('/dashboard/galleries')).body), /2 Mill Row draft MLS pending/);
  });
});
