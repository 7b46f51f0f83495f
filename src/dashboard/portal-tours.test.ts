// The dashboard's part of docs/api.md §28 (and §27): the tours editor, a plain form on the gallery's
// page that saves the whole list through the API's service, keeps a refused list as typed with what
// to fix, and removes a tour whose row is cleared; and the client's portal link on their page, with
// a button that replaces it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Browser } from '../../test/support/dashboard-browser.ts';
import { call, createAccount, createTestContext, type TestContext } from '../../test/support/test-app.ts';

const PASSWORD = 'correct horse battery';
let ctx: TestContext;

before(async () => {
  ctx = await createTestContext();
});
after(() => ctx.close());

test('tours: added, shown as typed when refused, changed and removed from the gallery page', async () => {
  const owner = await createAccount(ctx, 'Tours Studio');
  const browser = new Browser(ctx.app);
  assert.equal((await browser.signIn(owner.email, PASSWORD)).statusCode, 303);
  const g = (await call(ctx, 'POST', '/v1/listings', { key: owner.key, body: { address: '4 Tour Rd' } })).json();
  const page = await browser.get(`/dashboard/galleries/${g.id}`);
  assert.equal(page.statusCode, 200);
  // Two empty rows to start with, in a form of their own.
  assert.match(page.body, /action="\/dashboard\/galleries\/[^"]+\/tours"/);
  assert.ok(page.body.includes('name="tour_url_1"') && !page.body.includes('name="tour_url_2"'));
  const token = browser.token();
  const post = (fields: Record<string, string>) =>
    browser.post(`/dashboard/galleries/${g.id}/tours`, fields, { csrf: token });

  const saved = await post({
    tour_url_0: ' https://youtu.be/dQw4w9WgXcQ ',
    tour_label_0: 'Film',
    tour_unbranded_0: '1',
    tour_url_1: 'https://tours.example.com/4',
    tour_label_1: 'Floor plan',
  });
  assert.equal(saved.statusCode, 303, saved.body);
  assert.equal(saved.headers.location, `/dashboard/galleries/${g.id}?notice=tours-saved#tours`);
  const read = async () =>
    (await call(ctx, 'GET', `/v1/listings/${g.id}`, { key: owner.key })).json<{ tours: unknown[] }>().tours;
  assert.deepEqual(await read(), [
    { url: 'https://youtu.be/dQw4w9WgXcQ', label: 'Film', unbranded: true },
    { url: 'https://tours.example.com/4', label: 'Floor plan', unbranded: false },
  ]);
  const shown = (await browser.get(`/dashboard/galleries/${g.id}?notice=tours-saved`)).body;
  assert.match(shown, /Tours saved/);
  assert.match(shown, /Plays in the page \(YouTube\)/);
  assert.match(shown, /Shown as a link/);
  assert.ok(shown.includes('name="tour_url_3"'), 'two spare rows after the two tours');

  // Refused: a URL that is not https, a row without a label. Nothing is saved; the form keeps them.
  const refused = await post({
    tour_url_0: 'http://insecure.example/tour',
    tour_label_0: 'Old tour',
    tour_url_1: 'https://tours.example.com/5',
  });
  assert.equal(refused.statusCode, 400);
  assert.match(refused.body, /Give the tour a label/);
  assert.ok(refused.body.includes('value="http://insecure.example/tour"'));
  assert.equal((await read()).length, 2, 'nothing changed');
  const bad = await post({ tour_url_0: 'http://insecure.example/tour', tour_label_0: 'Old tour' });
  assert.equal(bad.statusCode, 400);
  assert.match(bad.body, /The URL must be a full https:\/\/ address/);

  // A cleared row removes its tour.
  const removed = await post({ tour_url_0: 'https://tours.example.com/4', tour_label_0: 'Floor plan' });
  assert.equal(removed.statusCode, 303);
  assert.deepEqual(await read(), [{ url: 'https://tours.example.com/4', label: 'Floor plan', unbranded: false }]);
  assert.equal((await post({})).statusCode, 303);
  assert.deepEqual(await read(), []);

  // Another studio's gallery is not found.
  const other = await createAccount(ctx, 'Other');
  const theirs = (await call(ctx, 'POST', '/v1/listings', { key: other.key, body: { address: '5 Rd' } })).json();
  const foreign = await browser.post(`/dashboard/galleries/${theirs.id}/tours`, {}, { csrf: token });
  assert.equal(foreign.statusCode, 404);
});

test("the client's page shows their portal link and replaces it", async () => {
  const owner = await createAccount(ctx, 'Portal Studio');
  const browser = new Browser(ctx.app);
  assert.equal((await browser.signIn(owner.email, PASSWORD)).statusCode, 303);
  const client = (
    await call(ctx, 'POST', '/v1/clients', { key: owner.key, body: { name: 'Ann', email: 'ann@portal.test' } })
  ).json();
  const page = await browser.get(`/dashboard/clients/${client.id}`);
  assert.equal(page.statusCode, 200);
  assert.ok(page.body.includes(`value="${client.portal_url}"`), 'the portal link is shown');
  const rotated = await browser.post(`/dashboard/clients/${client.id}/portal/rotate`, {}, { csrf: browser.token() });
  assert.equal(rotated.statusCode, 303);
  assert.equal(rotated.headers.location, `/dashboard/clients/${client.id}?notice=portal-rotated#portal`);
  const now = (await call(ctx, 'GET', `/v1/clients/${client.id}`, { key: owner.key })).json().portal_url;
  assert.notEqual(now, client.portal_url);
  const after = await browser.get(`/dashboard/clients/${client.id}?notice=portal-rotated`);
  assert.ok(after.body.includes(`value="${now}"`));
  assert.match(after.body, /The portal has a new link/);
  assert.equal((await ctx.app.inject({ url: new URL(client.portal_url).pathname })).statusCode, 404);
});
