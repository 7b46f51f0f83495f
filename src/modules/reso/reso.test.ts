// docs/api.md §33: the RESO media feed. Records as RESO Media, the OData subset and its refusals,
// paging by @odata.nextLink, MediaModificationTimestamp moving with every change of a record,
// MediaURL working without a key until its end (a test clock), gzip, ETags, and modes apart.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { clockOf } from '../../lib/clock.ts';
import {
  call,
  createAccount,
  createTestContext,
  detailFields,
  expectError,
  testModeOf,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { makeVariantsNow, uploaded, type MediaJson } from '../../../test/support/media-helpers.ts';
import { jpeg } from '../../../test/support/media-fixtures.ts';

interface Record {
  MediaKey: string;
  ResourceName: string;
  ResourceRecordKey: string;
  ResourceRecordID: string;
  Order: number;
  MediaURL: string;
  MediaCategory: string;
  ImageOf: string | null;
  ShortDescription: string | null;
  ImageWidth: number;
  ImageHeight: number;
  ImageSizeDescription: string;
  MediaModificationTimestamp: string;
  Permission: string[];
}
interface Feed {
  '@odata.context': string;
  value: Record[];
  '@odata.nextLink'?: string;
}

const DAY = 24 * 60 * 60 * 1000;
let now = Date.parse('2026-12-07T12:00:00.000Z');
let ctx: TestContext;
let me: TestAccount;
let listingId: string;
let photos: MediaJson[];

before(async () => {
  ctx = await createTestContext({}, { clock: clockOf(() => now) });
  me = await createAccount(ctx);
  const created = await call(ctx, 'POST', '/v1/listings', {
    key: me.key,
    body: { address: '12 Oak St', mls_number: "O'Brien-7" },
  });
  assert.equal(created.statusCode, 201, created.body);
  listingId = created.json<{ id: string }>().id;
  const files = await Promise.all([jpeg(64, 48), jpeg(48, 64), jpeg(40, 30)]);
  photos = await uploaded(
    ctx,
    me.key,
    listingId,
    files.map((data, i) => ({ filename: `p${i}.jpg`, contentType: 'image/jpeg', data })),
  );
  await makeVariantsNow(ctx);
});
after(async () => {
  await ctx?.close();
});

/** GET /v1/reso/Media with these query parameters (sent as written), as the key. */
async function feed(query: string, key = me.key, headers: { [name: string]: string } = {}) {
  return ctx.app.inject({
    method: 'GET',
    url: `/v1/reso/Media${query === '' ? '' : `?${query}`}`,
    headers: { authorization: `Bearer ${key}`, ...headers },
  });
}

async function records(query: string, key = me.key): Promise<Feed> {
  const res = await feed(query, key);
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Feed>();
}

/** Every record, following @odata.nextLink to the end. */
async function walk(query: string): Promise<Record[]> {
  const seen: Record[] = [];
  let page = await records(query);
  seen.push(...page.value);
  while (page['@odata.nextLink'] !== undefined) {
    const next = new URL(page['@odata.nextLink']);
    page = await records(next.search.slice(1));
    seen.push(...page.value);
  }
  return seen;
}

const stampOf = async (mediaId: string): Promise<string> =>
  (await records(`$filter=ResourceRecordID eq '${listingId}'`)).value.find((r) => r.MediaKey === mediaId)
    ?.MediaModificationTimestamp ?? 'absent';

describe('GET /v1/reso/Media (docs/api.md §33)', () => {
  test('the shown photos as RESO Media records, oldest change first', async () => {
    const page = await records('');
    assert.equal(page['@odata.context'], 'http://127.0.0.1:3000/v1/reso/$metadata#Media');
    assert.equal(page['@odata.nextLink'], undefined);
    assert.deepEqual(page.value.map((r) => r.MediaKey).sort(), photos.map((p) => p.id).sort());
    const stamps = page.value.map((r) => `${r.MediaModificationTimestamp} ${r.MediaKey}`);
    assert.deepEqual(stamps, [...stamps].sort());
    const first = page.value.find((r) => r.MediaKey === photos[0]?.id);
    assert.ok(first !== undefined);
    const mls = photos[0]?.id === undefined ? undefined : first;
    assert.deepEqual(
      { ...first, MediaURL: '', MediaModificationTimestamp: '' },
      {
        MediaKey: photos[0]?.id,
        ResourceName: 'Property',
        ResourceRecordKey: "O'Brien-7",
        ResourceRecordID: listingId,
        Order: 1,
        MediaURL: '',
        MediaCategory: 'Photo',
        ImageOf: null,
        ShortDescription: null,
        ImageWidth: 64,
        ImageHeight: 48,
        ImageSizeDescription: 'Large',
        MediaModificationTimestamp: '',
        Permission: ['Public'],
      },
    );
    assert.match(mls?.MediaURL ?? '', /^http:\/\/127\.0\.0\.1:3000\/g\/[A-Za-z0-9_-]{32}\/mls\/med_/);
    assert.match(first.MediaModificationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  test('MediaURL serves the mls variant without a key for 7 days, then 410', async () => {
    const start = now;
    try {
      const record = (await records('')).value[0];
      assert.ok(record !== undefined);
      const path = new URL(record.MediaURL).pathname;
      const ok = await ctx.app.inject({ method: 'GET', url: path });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal(ok.headers['content-type'], 'image/jpeg');
      // The same link is not a page, and opens nothing else of the gallery.
      const token = path.split('/')[2] ?? '';
      assert.equal((await ctx.app.inject({ method: 'GET', url: `/g/${token}` })).statusCode, 404);
      assert.equal(
        (await ctx.app.inject({ method: 'GET', url: `/g/${token}/large/${record.MediaKey}` })).statusCode,
        404,
      );
      // A later answer of the same day gives the same link; the next day's gives a new one.
      assert.equal((await records('')).value[0]?.MediaURL, record.MediaURL);
      now = start + 7 * DAY - 1;
      assert.equal((await ctx.app.inject({ method: 'GET', url: path })).statusCode, 200);
      const later = (await records('')).value.find((r) => r.MediaKey === record.MediaKey);
      assert.notEqual(later?.MediaURL, record.MediaURL);
      now = start + 8 * DAY;
      const gone = await ctx.app.inject({ method: 'GET', url: path });
      assert.equal(gone.statusCode, 410);
      assert.equal(
        (await ctx.app.inject({ method: 'GET', url: new URL(later?.MediaURL ?? '').pathname })).statusCode,
        200,
      );
      // A hidden photo is not served at its link, and leaves the feed.
      const hidden = photos[2]?.id ?? '';
      const hiddenUrl = (await records('')).value.find((r) => r.MediaKey === hidden)?.MediaURL ?? '';
      const patched = await call(ctx, 'PATCH', `/v1/listings/${listingId}/media/${hidden}`, {
        key: me.key,
        body: { hidden: true },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      assert.equal((await ctx.app.inject({ method: 'GET', url: new URL(hiddenUrl).pathname })).statusCode, 404);
      assert.equal(
        (await records('')).value.some((r) => r.MediaKey === hidden),
        false,
      );
      await call(ctx, 'PATCH', `/v1/listings/${listingId}/media/${hidden}`, { key: me.key, body: { hidden: false } });
    } finally {
      now = start;
    }
  });

  test('while the gallery waits for payment its records leave the feed and their URLs answer 404; void, they come back as changed', async () => {
    const before = (await records(`$filter=ResourceRecordID eq '${listingId}'`)).value;
    const record = before[0];
    assert.ok(record !== undefined);
    const latest =
      before
        .map((r) => r.MediaModificationTimestamp)
        .sort()
        .at(-1) ?? '';
    const url = new URL(record.MediaURL).pathname;
    assert.equal((await ctx.app.inject({ method: 'GET', url })).statusCode, 200);
    const client = await call(ctx, 'POST', '/v1/clients', {
      key: me.key,
      body: { name: 'Agent', email: 'agent@example.com' },
    });
    assert.equal(client.statusCode, 201, client.body);
    const clientId = client.json<{ id: string }>().id;
    const assigned = await call(ctx, 'POST', `/v1/clients/${clientId}/listings/${listingId}`, { key: me.key, query: { notify: 'false' } }); // prettier-ignore
    assert.ok(assigned.statusCode < 300, assigned.body);
    const draft = await call(ctx, 'POST', '/v1/invoices', {
      key: me.key,
      body: { listing_id: listingId, items: [{ description: 'Photos', unit_amount: 10_000 }], pay_to_unlock: true },
    });
    assert.equal(draft.statusCode, 201, draft.body);
    const invoiceId = draft.json<{ id: string }>().id;
    assert.equal((await call(ctx, 'POST', `/v1/invoices/${invoiceId}/issue`, { key: me.key })).statusCode, 200);
    for (const method of ['GET', 'HEAD'] as const) {
      const locked = await ctx.app.inject({ method, url, headers: { range: 'bytes=0-99' } });
      assert.equal(locked.statusCode, 404, `${method} while locked`);
      assert.equal(locked.rawPayload.includes(Buffer.from([0xff, 0xd8, 0xff])), false, 'no JPEG byte');
    }
    assert.deepEqual(
      (await walk('')).filter((r) => r.ResourceRecordID === listingId),
      [],
      'no record while locked',
    );
    assert.equal((await call(ctx, 'POST', `/v1/invoices/${invoiceId}/void`, { key: me.key })).statusCode, 200);
    assert.equal((await ctx.app.inject({ method: 'GET', url })).statusCode, 200);
    // A client that synced up to `latest` before the lock asks for what changed since: every photo.
    const since = await walk(`$filter=MediaModificationTimestamp gt ${latest}`);
    assert.deepEqual(
      since
        .filter((r) => r.ResourceRecordID === listingId)
        .map((r) => r.MediaKey)
        .sort(),
      before.map((r) => r.MediaKey).sort(),
    );
  });

  test('$filter: record key (quotes doubled), record id, timestamps, joined by and', async () => {
    const all = (await records('')).value;
    const key = encodeURIComponent("ResourceRecordKey eq 'O''Brien-7'");
    assert.equal((await records(`$filter=${key}`)).value.length, all.length);
    assert.equal((await records(`$filter=${encodeURIComponent("ResourceRecordKey eq 'O''Brien'")}`)).value.length, 0);
    // A gallery's id is its key only while it has no mls_number.
    assert.equal(
      (await records(`$filter=${encodeURIComponent(`ResourceRecordKey eq '${listingId}'`)}`)).value.length,
      0,
    );
    assert.equal(
      (await records(`$filter=${encodeURIComponent(`ResourceRecordID eq '${listingId}'`)}`)).value.length,
      all.length,
    );
    const second = all[1];
    assert.ok(second !== undefined);
    const ts = second.MediaModificationTimestamp;
    const gt = await records(`$filter=${encodeURIComponent(`MediaModificationTimestamp gt ${ts}`)}`);
    assert.deepEqual(
      gt.value.map((r) => r.MediaKey),
      all.filter((r) => r.MediaModificationTimestamp > ts).map((r) => r.MediaKey),
    );
    const ge = await records(
      `$filter=${encodeURIComponent(`MediaModificationTimestamp ge ${ts} and ResourceRecordID eq '${listingId}'`)}`,
    );
    assert.deepEqual(
      ge.value.map((r) => r.MediaKey),
      all.filter((r) => r.MediaModificationTimestamp >= ts).map((r) => r.MediaKey),
    );
    // The same instant in another zone.
    const shifted = new Date(Date.parse(ts)).toISOString().replace('Z', '+00:00');
    assert.equal(
      (await records(`$filter=${encodeURIComponent(`MediaModificationTimestamp ge ${shifted}`)}`)).value.length,
      ge.value.length,
    );
  });

  test('any other $ option, filter form, $top or $orderby is 400 naming it', async () => {
    const refusals: [string, string][] = [
      ['$select=MediaKey', '$select'],
      ['$count=true', '$count'],
      ['$expand=Property', '$expand'],
      ['$skip=10', '$skip'],
      ['$top=0', '$top'],
      ['$top=1001', '$top'],
      ['$top=ten', '$top'],
      ['$orderby=MediaKey', '$orderby'],
      ['$orderby=MediaModificationTimestamp desc', '$orderby'],
      ['cursor=abc', 'cursor'],
      ['$skiptoken=abc', '$skiptoken'],
      [`$filter=${encodeURIComponent("MediaKey eq 'x'")}`, '$filter'],
      [`$filter=${encodeURIComponent("ResourceRecordKey ne 'x'")}`, '$filter'],
      [`$filter=${encodeURIComponent("ResourceRecordKey eq 'x' or ResourceRecordID eq 'y'")}`, '$filter'],
      [`$filter=${encodeURIComponent("(ResourceRecordKey eq 'x')")}`, '$filter'],
      [`$filter=${encodeURIComponent("ResourceRecordKey eq 'x")}`, '$filter'],
      [`$filter=${encodeURIComponent('ResourceRecordKey eq x')}`, '$filter'],
      [`$filter=${encodeURIComponent('MediaModificationTimestamp lt 2026-01-01T00:00:00Z')}`, '$filter'],
      [`$filter=${encodeURIComponent('MediaModificationTimestamp gt 2026-02-30T00:00:00Z')}`, '$filter'],
      [`$filter=${encodeURIComponent('MediaModificationTimestamp gt 2026-01-01')}`, '$filter'],
      [`$filter=${encodeURIComponent("MediaModificationTimestamp gt '2026-01-01T00:00:00Z'")}`, '$filter'],
      [`$filter=${encodeURIComponent("ResourceRecordKey eq 'x' and")}`, '$filter'],
      ['$filter=', '$filter'],
      ['page=2', 'page'],
    ];
    for (const [query, field] of refusals) {
      const error = expectError(await feed(query), 400, 'validation_error');
      assert.deepEqual(detailFields(error), [field], query);
    }
  });

  test('paging by @odata.nextLink with $top; a cursor of another filter is refused', async () => {
    const all = (await records('')).value.map((r) => r.MediaKey);
    const first = await records('$top=1&$orderby=MediaModificationTimestamp');
    assert.equal(first.value.length, 1);
    const next = new URL(first['@odata.nextLink'] ?? '');
    assert.equal(next.pathname, '/v1/reso/Media');
    assert.equal(next.searchParams.get('$top'), '1');
    assert.equal(next.searchParams.get('$orderby'), 'MediaModificationTimestamp');
    assert.deepEqual(
      (await walk('$top=1')).map((r) => r.MediaKey),
      all,
    );
    const token = next.searchParams.get('cursor') ?? '';
    const other = `$filter=${encodeURIComponent(`ResourceRecordID eq '${listingId}'`)}&cursor=${encodeURIComponent(token)}`;
    assert.deepEqual(detailFields(expectError(await feed(other), 400, 'validation_error')), ['cursor']);
    const stranger = await createAccount(ctx);
    assert.deepEqual(
      detailFields(
        expectError(await feed(`cursor=${encodeURIComponent(token)}`, stranger.key), 400, 'validation_error'),
      ),
      ['cursor'],
    );
  });

  test('MediaModificationTimestamp moves with the caption, the order, the analysis, the variant and the mls_number', async () => {
    const [a, b, c] = photos.map((p) => p.id);
    assert.ok(a !== undefined && b !== undefined && c !== undefined);
    const moved = async (change: () => Promise<unknown>, ids: string[]) => {
      const before = await Promise.all(ids.map(stampOf));
      await change();
      const afterwards = await Promise.all(ids.map(stampOf));
      ids.forEach((id, i) =>
        assert.ok((afterwards[i] ?? '') > (before[i] ?? ''), `${id}: ${before[i]} -> ${afterwards[i]}`),
      );
    };
    const patch = (id: string, body: object) =>
      call(ctx, 'PATCH', `/v1/listings/${listingId}/media/${id}`, { key: me.key, body });
    await moved(() => patch(a, { caption: 'Front of the house' }), [a]);
    assert.equal((await records('')).value.find((r) => r.MediaKey === a)?.ShortDescription, 'Front of the house');
    // A move shifts the photos between: each of their records changes.
    await moved(() => patch(c, { position: 1 }), [a, b, c]);
    await moved(
      () =>
        ctx.deps.db.kysely
          .updateTable('media')
          .set({ analysis_room: 'Kitchen', alt_text: 'Kitchen with an island' })
          .where('id', '=', b)
          .execute(),
      [b],
    );
    const kitchen = (await records('')).value.find((r) => r.MediaKey === b);
    assert.deepEqual([kitchen?.ImageOf, kitchen?.ShortDescription], ['Kitchen', 'Kitchen with an island']);
    await moved(
      () =>
        ctx.deps.db.kysely
          .updateTable('media_variants')
          .set({ width: 63 })
          .where('media_id', '=', a)
          .where('name', '=', 'mls')
          .execute(),
      [a],
    );
    await moved(
      () => call(ctx, 'PATCH', `/v1/listings/${listingId}`, { key: me.key, body: { mls_number: 'MLS-1' } }),
      [a, b, c],
    );
    assert.deepEqual(new Set((await records('')).value.map((r) => r.ResourceRecordKey)), new Set(['MLS-1']));
    // What the record does not show leaves it as it was.
    const before = await stampOf(a);
    await call(ctx, 'PATCH', `/v1/listings/${listingId}`, { key: me.key, body: { description: 'Lovely' } });
    assert.equal(await stampOf(a), before);
  });

  test('gzip when asked, ETag and 304, a new tag the next day', async () => {
    const plain = await feed('');
    const zipped = await feed('', me.key, { 'accept-encoding': 'br;q=1, gzip;q=0.5' });
    assert.equal(zipped.statusCode, 200);
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.match(String(zipped.headers.vary), /Accept-Encoding/i);
    assert.deepEqual(JSON.parse(gunzipSync(zipped.rawPayload).toString('utf8')), plain.json());
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal((await feed('', me.key, { 'accept-encoding': 'gzip;q=0' })).headers['content-encoding'], undefined);
    const etag = String(plain.headers.etag);
    assert.match(etag, /^W\/"/);
    assert.equal((await feed('', me.key, { 'if-none-match': etag })).statusCode, 304);
    const start = now;
    try {
      now = start + DAY;
      assert.equal((await feed('', me.key, { 'if-none-match': etag })).statusCode, 200);
    } finally {
      now = start;
    }
  });

  test("a key sees its own account's and mode's photos only", async () => {
    const test = await testModeOf(ctx, me);
    assert.deepEqual((await records('', test.key)).value, []);
    const stranger = await createAccount(ctx);
    assert.deepEqual((await records('', stranger.key)).value, []);
    assert.deepEqual(
      (await records(`$filter=${encodeURIComponent(`ResourceRecordID eq '${listingId}'`)}`, stranger.key)).value,
      [],
    );
  });
});
