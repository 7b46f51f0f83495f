// docs/api.md §33, property-tested against a model: a client walking the RESO feed by
// @odata.nextLink while photos change (caption, order, hidden, the gallery's mls_number) meets
// every photo shown at the end with its current record as the last one it saw (a photo changed
// behind the cursor comes again later, never skipped), in strictly increasing
// (MediaModificationTimestamp, MediaKey) order; and the feed's records are the model's.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { makeVariantsNow, uploaded } from '../../../test/support/media-helpers.ts';
import { jpeg } from '../../../test/support/media-fixtures.ts';

interface Record {
  MediaKey: string;
  ResourceRecordKey: string;
  ResourceRecordID: string;
  Order: number;
  ShortDescription: string | null;
  MediaModificationTimestamp: string;
}
interface Feed {
  value: Record[];
  '@odata.nextLink'?: string;
}

/** The model: each gallery's photos in order, and what each record shows. */
interface Gallery {
  id: string;
  mls: string | null;
  order: string[];
}
const galleries: Gallery[] = [];
const captions = new Map<string, string | null>();
const hidden = new Set<string>();

let ctx: TestContext;
let me: TestAccount;

before(async () => {
  ctx = await createTestContext();
  me = await createAccount(ctx);
  for (const [mls, count] of [
    ['MLS-A', 4],
    [null, 3],
  ] as const) {
    const res = await call(ctx, 'POST', '/v1/listings', {
      key: me.key,
      body: { address: '1 Elm St', mls_number: mls },
    });
    assert.equal(res.statusCode, 201, res.body);
    const id = res.json<{ id: string }>().id;
    const files = await Promise.all(Array.from({ length: count }, (_, i) => jpeg(20 + i, 20)));
    const media = await uploaded(
      ctx,
      me.key,
      id,
      files.map((data, i) => ({ filename: `${i}.jpg`, contentType: 'image/jpeg', data })),
    );
    galleries.push({ id, mls, order: media.map((m) => m.id) });
    for (const m of media) captions.set(m.id, null);
  }
  await makeVariantsNow(ctx);
});
after(async () => {
  await ctx?.close();
});

async function get(query: string): Promise<Feed> {
  const res = await ctx.app.inject({
    method: 'GET',
    url: `/v1/reso/Media${query === '' ? '' : `?${query}`}`,
    headers: { authorization: `Bearer ${me.key}` },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Feed>();
}

/** What the model says the feed holds now, by MediaKey (the link and the timestamp aside). */
function expected(): Map<string, Omit<Record, 'MediaModificationTimestamp'>> {
  const out = new Map<string, Omit<Record, 'MediaModificationTimestamp'>>();
  for (const g of galleries) {
    g.order.forEach((id, i) => {
      if (hidden.has(id)) return;
      out.set(id, {
        MediaKey: id,
        ResourceRecordKey: g.mls ?? g.id,
        ResourceRecordID: g.id,
        Order: i + 1,
        ShortDescription: captions.get(id) ?? null,
      });
    });
  }
  return out;
}

const shown = (r: Record): Omit<Record, 'MediaModificationTimestamp'> => ({
  MediaKey: r.MediaKey,
  ResourceRecordKey: r.ResourceRecordKey,
  ResourceRecordID: r.ResourceRecordID,
  Order: r.Order,
  ShortDescription: r.ShortDescription,
});

type Op =
  | { kind: 'page' }
  | { kind: 'caption'; g: number; i: number; caption: string | null }
  | { kind: 'hide'; g: number; i: number }
  | { kind: 'move'; g: number; i: number; to: number }
  | { kind: 'mls'; g: number; mls: string | null };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'page' as const }) },
  fc.record({
    kind: fc.constant('caption' as const),
    g: fc.nat(1),
    i: fc.nat(3),
    caption: fc.constantFrom(null, 'Kitchen', 'Front', "Owner's suite"),
  }),
  fc.record({ kind: fc.constant('hide' as const), g: fc.nat(1), i: fc.nat(3) }),
  fc.record({ kind: fc.constant('move' as const), g: fc.nat(1), i: fc.nat(3), to: fc.nat(3) }),
  fc.record({ kind: fc.constant('mls' as const), g: fc.nat(1), mls: fc.constantFrom(null, 'MLS-B', "O'Hara 9") }),
);

async function apply(o: Exclude<Op, { kind: 'page' }>): Promise<void> {
  const g = galleries[o.g];
  assert.ok(g !== undefined);
  if (o.kind === 'mls') {
    const res = await call(ctx, 'PATCH', `/v1/listings/${g.id}`, { key: me.key, body: { mls_number: o.mls } });
    assert.equal(res.statusCode, 200, res.body);
    g.mls = o.mls;
    return;
  }
  const id = g.order[o.i % g.order.length] ?? '';
  const patch = (body: object) => call(ctx, 'PATCH', `/v1/listings/${g.id}/media/${id}`, { key: me.key, body });
  if (o.kind === 'caption') {
    assert.equal((await patch({ caption: o.caption })).statusCode, 200);
    captions.set(id, o.caption);
  } else if (o.kind === 'hide') {
    const now = !hidden.has(id);
    assert.equal((await patch({ hidden: now })).statusCode, 200);
    if (now) hidden.add(id);
    else hidden.delete(id);
  } else {
    const to = (o.to % g.order.length) + 1;
    assert.equal((await patch({ position: to })).statusCode, 200);
    g.order = g.order.filter((m) => m !== id);
    g.order.splice(to - 1, 0, id);
  }
}

test('a walk by @odata.nextLink under writes misses no change, against the model', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.array(op, { maxLength: 14 }), async (top, ops) => {
      const seen: Record[] = [];
      let page = await get(`$top=${top}`);
      seen.push(...page.value);
      // The model as the walk ended (its last page had no nextLink): later writes are the next walk's.
      let ended = page['@odata.nextLink'] === undefined ? expected() : undefined;
      const next = async () => {
        const link = page['@odata.nextLink'];
        if (link === undefined) return false;
        page = await get(new URL(link).search.slice(1));
        seen.push(...page.value);
        if (page['@odata.nextLink'] === undefined) ended = expected();
        return true;
      };
      for (const o of ops) {
        if (o.kind === 'page') await next();
        else await apply(o);
      }
      while (await next());

      const keys = seen.map((r) => `${r.MediaModificationTimestamp} ${r.MediaKey}`);
      for (let i = 1; i < keys.length; i += 1) assert.ok((keys[i - 1] ?? '') < (keys[i] ?? ''), `order at ${i}`);
      const last = new Map(seen.map((r) => [r.MediaKey, shown(r)]));
      for (const [id, record] of ended ?? expected()) {
        assert.deepEqual(last.get(id), record, `the walk's last record of ${id}`);
      }
      // And a fresh read is the model now, exactly.
      const fresh = new Map((await get('$top=1000')).value.map((r) => [r.MediaKey, shown(r)]));
      assert.deepEqual(fresh, expected());
    }),
    { numRuns: 30 },
  );
});
