// docs/api.md §28: a gallery's `tours`, set as a whole list with PATCH /v1/listings/:id: at most 10
// of {url (https, <= 2,048), label (1..100), unbranded (boolean)}, trimmed, validated, replaced
// whole, and announced as listing.updated with the new list.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertValidation } from '../../../test/support/api-assertions.ts';
import { call, createAccount, createTestContext, type TestContext } from '../../../test/support/test-app.ts';
import { listingsApi } from '../../../test/support/listings-api.ts';

let ctx: TestContext;
let key: string;

before(async () => {
  ctx = await createTestContext();
  ({ key } = await createAccount(ctx));
});
after(() => ctx.close());

const { createListing, patch } = listingsApi(() => ({ ctx, key }));

const TOUR = { url: 'https://my.matterport.com/show/?m=SxQL3iGyoDo', label: '3D walkthrough', unbranded: true };

describe('tours', () => {
  test('a new gallery has none; PATCH sets the whole list, trimmed, and GET shows it', async () => {
    const g = await createListing();
    assert.deepEqual(g.tours, []);
    const res = await patch(g.id, {
      tours: [
        { url: '  https://youtu.be/dQw4w9WgXcQ ', label: ' Film ', unbranded: false },
        { url: 'https://example.com/tour', label: 'Our own tour', unbranded: true },
      ],
    });
    assert.equal(res.statusCode, 200, res.body);
    const expected = [
      { url: 'https://youtu.be/dQw4w9WgXcQ', label: 'Film', unbranded: false },
      { url: 'https://example.com/tour', label: 'Our own tour', unbranded: true },
    ];
    assert.deepEqual(res.json().tours, expected);
    const read = await call(ctx, 'GET', `/v1/listings/${g.id}`, { key });
    assert.deepEqual(read.json().tours, expected);

    // The whole list is replaced; [] removes them all.
    assert.deepEqual((await patch(g.id, { tours: [TOUR] })).json().tours, [TOUR]);
    assert.deepEqual((await patch(g.id, { tours: [] })).json().tours, []);
    // Another field's PATCH keeps them.
    await patch(g.id, { tours: [TOUR] });
    assert.deepEqual((await patch(g.id, { beds: 2 })).json().tours, [TOUR]);
  });

  test('ten at most, and each one checked', async () => {
    const g = await createListing();
    assertValidation(await patch(g.id, { tours: Array.from({ length: 11 }, () => TOUR) }), 'tours');
    assert.equal((await patch(g.id, { tours: Array.from({ length: 10 }, () => TOUR) })).statusCode, 200);
    const bad: [Record<string, unknown>, string][] = [
      [{ ...TOUR, url: 'http://my.matterport.com/show/?m=SxQL3iGyoDo' }, 'tours.0.url'],
      [{ ...TOUR, url: `https://example.com/${'a'.repeat(2048)}` }, 'tours.0.url'],
      [{ ...TOUR, url: 'https://user:secret@example.com/tour' }, 'tours.0.url'],
      [{ ...TOUR, url: 'javascript:alert(1)' }, 'tours.0.url'],
      [{ ...TOUR, label: '' }, 'tours.0.label'],
      [{ ...TOUR, label: '   ' }, 'tours.0.label'],
      [{ ...TOUR, label: 'x'.repeat(101) }, 'tours.0.label'],
      [{ ...TOUR, label: 'two\nlines' }, 'tours.0.label'],
      [{ ...TOUR, unbranded: 'yes' }, 'tours.0.unbranded'],
      [{ url: TOUR.url, label: TOUR.label }, 'tours.0.unbranded'],
      [{ ...TOUR, extra: 1 }, 'tours.0.extra'],
    ];
    for (const [tour, field] of bad) assertValidation(await patch(g.id, { tours: [tour] }), field);
    assertValidation(await patch(g.id, { tours: null }), 'tours');
    // A URL of exactly 2,048 characters is taken.
    const longest = `https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length)}`;
    assert.equal((await patch(g.id, { tours: [{ ...TOUR, url: longest }] })).statusCode, 200);
    // Nothing refused was kept.
    const read = await call(ctx, 'GET', `/v1/listings/${g.id}`, { key });
    assert.equal(read.json().tours[0].url, longest);
    // Characters are counted as the schema counts them: 100 emoji are 100, not 200 (found by the fuzz).
    const emoji = '\u{1F3E1}'.repeat(100);
    const taken = await patch(g.id, { tours: [{ ...TOUR, label: emoji }] });
    assert.equal(taken.statusCode, 200, taken.body);
    assert.equal(taken.json().tours[0].label, emoji);
    assertValidation(await patch(g.id, { tours: [{ ...TOUR, label: `${emoji}x` }] }), 'tours.0.label');
  });

  test("another studio's gallery, or none, is 404 whatever the tours (not 400)", async () => {
    const res = await patch('lst_0000000000000000000000ZZZZ', {
      tours: [{ ...TOUR, url: 'https://user:secret@example.com/tour' }],
    });
    assert.equal(res.statusCode, 404, res.body);
  });

  test('tours is not a field of create (only PATCH sets it)', async () => {
    const res = await call(ctx, 'POST', '/v1/listings', { key, body: { address: '1 Main St', tours: [TOUR] } });
    assertValidation(res, 'tours');
  });

  test('listing.updated carries the new list', async () => {
    const me = await createAccount(ctx);
    const g = (await call(ctx, 'POST', '/v1/listings', { key: me.key, body: { address: '2 Main St' } })).json();
    await call(ctx, 'PATCH', `/v1/listings/${g.id}`, { key: me.key, body: { tours: [TOUR] } });
    const events = (await call(ctx, 'GET', '/v1/events', { key: me.key, query: { type: 'listing.updated' } })).json();
    assert.equal(events.data.length, 1);
    assert.deepEqual(events.data[0].data.object.tours, [TOUR]);
  });

  test("another account's gallery is 404", async () => {
    const g = await createListing();
    const other = await createAccount(ctx);
    const res = await call(ctx, 'PATCH', `/v1/listings/${g.id}`, { key: other.key, body: { tours: [TOUR] } });
    assert.equal(res.statusCode, 404);
  });
});
