// Clients in the dashboard over HTTP (app.inject), docs/api.md §27: the list with search and
// cursor pages, create (refused fields, a taken email), a client's page with their galleries,
// edit, delete (their galleries stay, unassigned), for the signed-in account only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Browser, textOf } from '../../test/support/dashboard-browser.ts';
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

async function signedIn(name: string): Promise<{ owner: TestAccount; browser: Browser; token: string }> {
  const owner = await createAccount(ctx, name);
  const browser = new Browser(ctx.app);
  assert.equal((await browser.signIn(owner.email, 'correct horse battery')).statusCode, 303);
  await browser.get('/dashboard/clients');
  return { owner, browser, token: browser.token() };
}

async function newClient(owner: TestAccount, name: string, email: string): Promise<string> {
  const res = await call(ctx, 'POST', '/v1/clients', { key: owner.key, body: { name, email } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ id: string }>().id;
}

describe('clients in the dashboard', () => {
  test('the list: newest first, search, cursor pages; only this account', async () => {
    const { owner, browser } = await signedIn('Client List Studio');
    const other = await createAccount(ctx, 'Other');
    await newClient(other, 'Zed Other', 'zed@other.test');
    for (let i = 1; i <= 27; i += 1) await newClient(owner, `Person ${i}`, `p${i}@client.test`);
    const first = await browser.get('/dashboard/clients');
    const text = textOf(first.body);
    assert.match(text, /27 clients/);
    assert.ok(!text.includes('Zed'));
    assert.ok(text.indexOf('Person 27') < text.indexOf('Person 26'));
    const next = /href="(\/dashboard\/clients\?cursor=[^"]+)"/.exec(first.body)?.[1]?.replace(/&amp;/g, '&');
    assert.ok(next !== undefined);
    const second = textOf((await browser.get(next)).body);
    assert.match(second, /Person 1 /);
    assert.ok(!second.includes('Person 27'));
    const found = textOf((await browser.get('/dashboard/clients?search=P13%40')).body);
    assert.match(found, /1 client /);
    assert.match(found, /Person 13/);
  });

  test('create, edit, delete; a taken email is said on the form; another account’s client is 404', async () => {
    const { owner, browser, token } = await signedIn('Client Edit Studio');
    const post = (url: string, fields: Record<string, string>) => browser.post(url, fields, { csrf: token });
    await newClient(owner, 'Ann Lee', 'ann@client.test');
    const refused = await post('/dashboard/clients', { name: '', email: 'nope' });
    assert.equal(refused.statusCode, 400);
    assert.match(textOf(refused.body), /Name: Enter the name/);
    assert.match(textOf(refused.body), /Email: Enter an email address/);
    const taken = await post('/dashboard/clients', { name: 'Ann Again', email: 'ANN@client.test' });
    assert.equal(taken.statusCode, 409);
    assert.match(textOf(taken.body), /Another client has this email address/);

    const made = await post('/dashboard/clients', {
      name: ' Bo Chen ',
      email: 'bo@client.test',
      company: 'Chen Estates',
    });
    assert.equal(made.statusCode, 303);
    const id = /\/dashboard\/clients\/(cli_[^?]+)/.exec(made.headers.location ?? '')?.[1] ?? '';
    const got = await call(ctx, 'GET', `/v1/clients/${id}`, { key: owner.key });
    assert.deepEqual(
      [got.json<{ name: string }>().name, got.json<{ company: string }>().company],
      ['Bo Chen', 'Chen Estates'],
    );

    // Their page lists their galleries.
    const gallery = (
      await call(ctx, 'POST', '/v1/listings', { key: owner.key, body: { address: '6 Rope Walk' } })
    ).json<{
      id: string;
    }>();
    await call(ctx, 'POST', `/v1/clients/${id}/listings/${gallery.id}`, { key: owner.key, query: { notify: 'false' } });
    const page = await browser.get(`/dashboard/clients/${id}`);
    assert.match(textOf(page.body), /Galleries \(1\) 6 Rope Walk draft/);

    const edited = await post(`/dashboard/clients/${id}`, {
      name: 'Bo Chen',
      email: 'bo@client.test',
      phone: '555 0101',
    });
    assert.equal(edited.statusCode, 303);
    const after = (await call(ctx, 'GET', `/v1/clients/${id}`, { key: owner.key })).json<{
      phone: string;
      company: null;
    }>();
    assert.equal(after.phone, '555 0101');
    assert.equal(after.company, null);
    const clash = await post(`/dashboard/clients/${id}`, { name: 'Bo Chen', email: 'ann@client.test' });
    assert.equal(clash.statusCode, 409);

    const other = await createAccount(ctx, 'Not Theirs');
    const theirs = await newClient(other, 'Cy', 'cy@client.test');
    assert.equal((await browser.get(`/dashboard/clients/${theirs}`)).statusCode, 404);
    assert.equal((await post(`/dashboard/clients/${theirs}/delete`, {})).statusCode, 404);

    assert.equal((await browser.get(`/dashboard/clients/${id}/delete`)).statusCode, 200);
    const gone = await post(`/dashboard/clients/${id}/delete`, {});
    assert.equal(gone.headers.location, '/dashboard/clients?notice=client-deleted');
    assert.equal((await call(ctx, 'GET', `/v1/clients/${id}`, { key: owner.key })).statusCode, 404);
    const kept = (await call(ctx, 'GET', `/v1/listings/${gallery.id}`, { key: owner.key })).json<{ client_id: null }>();
    assert.equal(kept.client_id, null);
  });
});
