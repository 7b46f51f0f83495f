// docs/api.md §30 in the dashboard over HTTP (app.inject): the gallery's media grid shows each
// photo's analysis flags and its similar group; "Apply suggested order" puts the gallery in the
// suggested order through the media service's reorder; Studio settings' room order moves a room
// up or down (no script), refuses an order that is not the 14 rooms each once, and resets.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Browser, textOf } from '../../test/support/dashboard-browser.ts';
import { jpeg, pdf } from '../../test/support/media-fixtures.ts';
import { uploaded } from '../../test/support/media-helpers.ts';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';
import { DEFAULT_ROOM_ORDER } from '../modules/analysis/analysis.room-order.ts';

let ctx: TestContext;
let owner: TestAccount;
let browser: Browser;
let token: string;

before(async () => {
  ctx = await createTestContext();
  owner = await createAccount(ctx);
  browser = new Browser(ctx.app);
  assert.equal((await browser.signIn(owner.email, 'correct horse battery')).statusCode, 303);
  await browser.get('/dashboard');
  token = browser.token();
});
after(async () => {
  await ctx.close();
});

const post = (url: string, fields: Readonly<Record<string, string | readonly string[]>>) =>
  browser.post(url, fields, { csrf: token });

async function analysed(id: string, a: { group?: string; best?: boolean; sharpness: number; tilt?: number }) {
  await ctx.deps.db.kysely
    .updateTable('media')
    .set({
      analysis_status: 'ready',
      analysis_phash: '0123456789abcdef',
      analysis_sharpness: a.sharpness,
      analysis_blurry: a.sharpness < 0.45 ? 1 : 0,
      analysis_tilt_degrees: a.tilt ?? 0,
      analysis_similar_group: a.group ?? null,
      analysis_best_in_group: (a.best ?? true) ? 1 : 0,
    })
    .where('id', '=', id)
    .execute();
}

const orderOf = async (id: string): Promise<string[]> =>
  (await call(ctx, 'GET', `/v1/listings/${id}/media`, { key: owner.key }))
    .json<{ data: { id: string }[] }>()
    .data.map((m) => m.id);

test('the grid shows the flags and groups; one click applies the suggested order', async () => {
  const created = await call(ctx, 'POST', '/v1/listings', { key: owner.key, body: { address: '9 Order Row' } });
  const id = created.json<{ id: string }>().id;
  const photo = await jpeg(16, 12);
  const media = await uploaded(ctx, owner.key, id, [
    { filename: 'wide.jpg', data: photo },
    { filename: 'soft.jpg', data: photo },
    { filename: 'sharp.jpg', data: photo },
    { filename: 'plan.pdf', data: pdf('plan') },
  ]);
  const [wide, soft, sharp, plan] = media.map((m) => m.id) as [string, string, string, string];
  await analysed(wide, { group: 'sim_a', best: false, sharpness: 0.6 });
  await analysed(soft, { sharpness: 0.3, tilt: -3.04 });
  await analysed(sharp, { group: 'sim_a', best: true, sharpness: 0.9, tilt: 1.5 });

  const page = await browser.get(`/dashboard/galleries/${id}`);
  assert.equal(page.statusCode, 200);
  const tileText = (mediaId: string): string => {
    const start = page.body.indexOf(`id="m-${mediaId}"`);
    const end = page.body.indexOf('class="media-tile', start);
    return textOf(page.body.slice(start, end === -1 ? page.body.indexOf('</ol>', start) : end));
  };
  assert.match(tileText(soft), /Blurry/);
  assert.match(tileText(soft), /Tilted 3\.0°/);
  assert.doesNotMatch(tileText(sharp), /Tilted/, 'under 2 degrees is not flagged');
  assert.match(tileText(sharp), /Similar A · best/);
  assert.match(tileText(wide), /Similar A/);
  assert.doesNotMatch(tileText(wide), /best/);
  assert.match(page.body, /class="media-tile in-group group-0"/);
  assert.match(page.body, /Apply suggested order/);

  const applied = await post(`/dashboard/galleries/${id}/media/suggested-order`, {});
  assert.equal(applied.statusCode, 303, applied.body);
  assert.equal(applied.headers.location, `/dashboard/galleries/${id}?notice=order-suggested#media`);
  // The group at its first photo's place, the best first; the PDF after the photos.
  assert.deepEqual(await orderOf(id), [sharp, wide, soft, plan]);
  const after = await browser.get(`/dashboard/galleries/${id}?notice=order-suggested`);
  assert.match(textOf(after.body), /Suggested order applied/);

  // Without the form token nothing changes.
  const forged = await browser.post(`/dashboard/galleries/${id}/media/suggested-order`, {}, { csrf: null });
  assert.equal(forged.statusCode, 403);
  // Another studio's gallery is not found.
  const other = await createAccount(ctx, 'Other');
  const theirs = (await call(ctx, 'POST', '/v1/listings', { key: other.key, body: { address: '1 Far' } })).json<{
    id: string;
  }>().id;
  assert.equal((await post(`/dashboard/galleries/${theirs}/media/suggested-order`, {})).statusCode, 404);
});

test('Studio settings: a room moves up or down at once; a wrong order is refused; reset', async () => {
  const page = await browser.get('/dashboard/settings/studio');
  assert.equal(page.statusCode, 200);
  assert.match(textOf(page.body), /Room order/);
  const rooms = [...DEFAULT_ROOM_ORDER];

  const up = await post('/dashboard/settings/rooms', { room: rooms, move: 'up:2' });
  assert.equal(up.statusCode, 303, up.body);
  assert.equal(up.headers.location, '/dashboard/settings/studio?notice=rooms-saved#rooms');
  const moved = [rooms[0], rooms[2], rooms[1], ...rooms.slice(3)] as string[];
  assert.deepEqual(await ctx.services.accounts.roomOrder(owner.accountId), moved);

  const down = await post('/dashboard/settings/rooms', { room: moved, move: 'down:13' });
  assert.equal(down.statusCode, 303, 'the last room moving down stays where it is');
  assert.deepEqual(await ctx.services.accounts.roomOrder(owner.accountId), moved);

  const refused = await post('/dashboard/settings/rooms', { room: [...moved.slice(1), 'Attic'], move: 'up:1' });
  assert.equal(refused.statusCode, 400);
  assert.match(textOf(refused.body), /Not saved: the room order names each of the 14 rooms once/);
  assert.deepEqual(await ctx.services.accounts.roomOrder(owner.accountId), moved, 'nothing changed');

  assert.equal((await post('/dashboard/settings/rooms', { room: moved, move: 'reset' })).statusCode, 303);
  assert.deepEqual(await ctx.services.accounts.roomOrder(owner.accountId), DEFAULT_ROOM_ORDER);
});
