// Property tests of docs/api.md §13's promise that a gallery's positions are always exactly 1..n,
// through the real HTTP stack on whichever dialect DATABASE_URL picks:
// - random sequences of uploads, deletions, moves, full reorders, refused writes and bursts of
//   concurrent uploads on one gallery, checked after every step against a model of the order
//   (model-based testing with fast-check's commands);
// - waves of concurrent moves, deletions, reorders, uploads and variant jobs (on PostgreSQL each runs on
//   its own pooled connection), after which there is no gap, no duplicate, and exactly the media
//   that should be there.
// Runs are bounded (40 sequences of 6 to 12 steps; 15 runs of 2 or 3 concurrent waves, 30 on
// PostgreSQL) so the file takes seconds on a loaded 2-core machine; FC_SEED and FC_RUNS explore further.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  call,
  createAccount,
  createTestContext,
  detailFields,
  expectError,
  isPostgres,
  type Response,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { makeVariantsNow, newGallery, upload, type MediaJson } from '../../../test/support/media-helpers.ts';
import {
  assertGapless,
  mediaUrl,
  patchMedia,
  putOrder,
  smallFiles,
  uploadedIds,
  type MediaPage,
} from '../../../test/support/gallery-order.ts';

let ctx: TestContext;
let owner: TestAccount;
let files: Awaited<ReturnType<typeof smallFiles>>;
let uploads = 0;
/** Steps run (not skipped for their precondition), over all runs. */
let executed = 0;

const seed = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED);
const runs = (fallback: number): number => (process.env.FC_RUNS === undefined ? fallback : Number(process.env.FC_RUNS));

before(async () => {
  ctx = await createTestContext();
  owner = await createAccount(ctx);
  files = await smallFiles();
});

after(async () => {
  await ctx.close();
});

type Kind = 'jpeg' | 'pdf';
const kinds = (max: number) => fc.array(fc.constantFrom<Kind>('jpeg', 'pdf'), { minLength: 1, maxLength: max });
/**
 * Picks an item of a list whose length is known only when the step runs: a number taken modulo
 * the length. (Not a fraction: fast-check's doubles favour 0 and values near 1, which would keep
 * picking the ends and moving nothing.)
 */
const pick = fc.nat({ max: 9_999 });
const at = (k: number, n: number): number => k % n;

function sendUpload(listingId: string, what: readonly Kind[]): Promise<Response> {
  uploads += 1;
  return upload(ctx, owner.key, listingId, files(what, `u${uploads}`));
}

/** A permutation of `ids`, chosen by `draws` (a Fisher-Yates shuffle driven by the generated numbers). */
function permute(ids: readonly string[], draws: readonly number[]): string[] {
  const out = [...ids];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = (draws[i % draws.length] ?? 0) % (i + 1);
    [out[i], out[j]] = [out[j] as string, out[i] as string];
  }
  return out;
}

// ---- model-based sequences ------------------------------------------------------------------------

interface Model {
  /** The gallery's media ids, by position. */
  order: string[];
}
interface Real {
  listingId: string;
}
type Step = fc.AsyncCommand<Model, Real>;

async function check(m: Model, r: Real, label: string): Promise<void> {
  executed += 1;
  await assertGapless(ctx, owner.key, r.listingId, m.order, label);
}

class Upload implements Step {
  readonly what: Kind[];
  constructor(what: Kind[]) {
    this.what = what;
  }
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const res = await sendUpload(r.listingId, this.what);
    const data = res.json<{ data: MediaJson[] }>().data;
    assert.deepEqual(
      data.map((x) => x.position),
      this.what.map((_, i) => m.order.length + i + 1),
      'an upload appends at n+1',
    );
    m.order.push(...uploadedIds(res));
    await check(m, r, this.toString());
  }
  toString = () => `upload(${this.what.join(',')})`;
}

class Delete implements Step {
  readonly which: number;
  constructor(which: number) {
    this.which = which;
  }
  check = (m: Readonly<Model>) => m.order.length > 0;
  async run(m: Model, r: Real): Promise<void> {
    const [id] = m.order.splice(at(this.which, m.order.length), 1);
    const res = await call(ctx, 'DELETE', mediaUrl(r.listingId, id!), { key: owner.key });
    assert.equal(res.statusCode, 204, res.body);
    await check(m, r, this.toString());
  }
  toString = () => `delete(${this.which})`;
}

class Move implements Step {
  readonly which: number;
  readonly to: number;
  constructor(which: number, to: number) {
    this.which = which;
    this.to = to;
  }
  check = (m: Readonly<Model>) => m.order.length > 0;
  async run(m: Model, r: Real): Promise<void> {
    const n = m.order.length;
    const [id] = m.order.splice(at(this.which, n), 1);
    const position = at(this.to, n) + 1;
    m.order.splice(position - 1, 0, id!);
    const res = await patchMedia(ctx, owner.key, r.listingId, id!, { position });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json<MediaJson>().position, position);
    await check(m, r, this.toString());
  }
  toString = () => `move(${this.which} -> ${this.to})`;
}

class Reorder implements Step {
  readonly draws: number[];
  constructor(draws: number[]) {
    this.draws = draws;
  }
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    m.order = permute(m.order, this.draws);
    const res = await putOrder(ctx, owner.key, r.listingId, { media_ids: m.order });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      res.json<MediaPage>().data.map((x) => x.id),
      m.order,
    );
    await check(m, r, this.toString());
  }
  toString = () => `reorder(${this.draws.join(',')})`;
}

/**
 * Writes that must be refused and change nothing: a move past n, a reorder missing an item, and
 * an upload with one file of a refused type (all or nothing: the accepted one takes no position).
 */
class Refused implements Step {
  readonly which: number;
  constructor(which: number) {
    this.which = which;
  }
  check = (m: Readonly<Model>) => m.order.length > 0;
  async run(m: Model, r: Real): Promise<void> {
    const id = m.order[at(this.which, m.order.length)]!;
    const move = await patchMedia(ctx, owner.key, r.listingId, id, { position: m.order.length + 1 });
    assert.deepEqual(detailFields(expectError(move, 400, 'validation_error')), ['position']);
    const short = await putOrder(ctx, owner.key, r.listingId, { media_ids: m.order.filter((x) => x !== id) });
    assert.deepEqual(detailFields(expectError(short, 400, 'validation_error')), ['media_ids']);
    const mixed = await upload(ctx, owner.key, r.listingId, [
      ...files(['pdf'], `refused${this.which}`),
      { filename: 'notes.txt', contentType: 'text/plain', data: 'not a photo, video or document' },
    ]);
    expectError(mixed, 415, 'unsupported_media_type');
    await check(m, r, this.toString());
  }
  toString = () => `refused(${this.which})`;
}

/** 2-4 uploads at once: all appended after the media there were, each request's files together and in order. */
class Burst implements Step {
  readonly batches: Kind[][];
  constructor(batches: Kind[][]) {
    this.batches = batches;
  }
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const answers = await Promise.all(this.batches.map((what) => sendUpload(r.listingId, what)));
    const batches = answers.map(uploadedIds);
    const ids = await assertGapless(ctx, owner.key, r.listingId, undefined, this.toString());
    const n = m.order.length;
    assert.deepEqual(ids.slice(0, n), m.order, 'the media there were keep their positions');
    assert.deepEqual(new Set(ids.slice(n)), new Set(batches.flat()), 'the new media are those uploaded');
    assert.equal(ids.length, n + batches.flat().length);
    for (const [i, batch] of batches.entries()) {
      const first = ids.indexOf(batch[0]!);
      assert.deepEqual(ids.slice(first, first + batch.length), batch, "a request's files are together, in order");
      const positions = answers[i]!.json<{ data: MediaJson[] }>().data.map((x) => x.position);
      assert.deepEqual(
        positions,
        batch.map((_, k) => first + k + 1),
        'the answer states the stored positions',
      );
    }
    m.order = ids;
    executed += 1;
  }
  toString = () => `burst(${this.batches.map((b) => b.join(',')).join(' | ')})`;
}

/** 6 to 12 steps a run (fast-check would also make shorter ones). */
const steps = fc
  .commands(
    [
      kinds(3).map((w) => new Upload(w)),
      kinds(3).map((w) => new Upload(w)),
      pick.map((w) => new Delete(w)),
      pick.map((w) => new Delete(w)),
      fc.tuple(pick, pick).map(([w, to]) => new Move(w, to)),
      fc.tuple(pick, pick).map(([w, to]) => new Move(w, to)),
      fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 12 }).map((d) => new Reorder(d)),
      pick.map((w) => new Refused(w)),
      fc.array(kinds(2), { minLength: 2, maxLength: 4 }).map((b) => new Burst(b)),
    ],
    { maxCommands: 12, size: 'max' },
  )
  .filter((cmds) => [...cmds].length >= 6);

// Each run is up to 12 writes with uploads: fewer runs on PostgreSQL, whose writes cost more here.
const SEQUENCE_RUNS = runs(isPostgres ? 20 : 40);

describe('positions under random sequences of writes', () => {
  // Its own budget: a few hundred uploads take minutes on a loaded 2-core machine.
  const budget = { timeout: 300_000 };
  test(
    "after every upload, deletion, move, reorder and burst: positions 1..n, media_count n, the model's order",
    budget,
    async () => {
      executed = 0;
      await fc.assert(
        fc.asyncProperty(steps, async (cmds) => {
          // Two media to start with, so that deletions and moves have something to work on.
          const listingId = await newGallery(ctx, owner);
          const first = uploadedIds(await sendUpload(listingId, ['jpeg', 'pdf']));
          await fc.asyncModelRun(() => ({ model: { order: first }, real: { listingId } }), cmds);
        }),
        { numRuns: SEQUENCE_RUNS, ...(seed === undefined ? {} : { seed }) },
      );
      // Steps whose precondition failed (a deletion in an empty gallery) are skipped: enough ran.
      assert.ok(executed >= SEQUENCE_RUNS * 5, `only ${executed} steps ran in ${SEQUENCE_RUNS} runs`);
    },
  );
});

// ---- concurrent waves -------------------------------------------------------------------------------

type Op =
  | { op: 'move'; which: number; to: number }
  | { op: 'delete'; which: number }
  | { op: 'reorder'; draws: number[] }
  | { op: 'upload'; what: Kind[] }
  | { op: 'variants' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('move' as const), which: pick, to: pick }),
  fc.record({ op: fc.constant('delete' as const), which: pick }),
  fc.record({
    op: fc.constant('reorder' as const),
    draws: fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 8 }),
  }),
  fc.record({ op: fc.constant('upload' as const), what: kinds(2) }),
  fc.constant({ op: 'variants' as const }),
);

/** Sends one operation, planned on `snapshot`; checks its answer alone (others may have run first). */
async function perform(listingId: string, snapshot: readonly string[], o: Op) {
  const n = snapshot.length;
  switch (o.op) {
    case 'move': {
      const position = at(o.to, n) + 1;
      const res = await patchMedia(ctx, owner.key, listingId, snapshot[at(o.which, n)]!, { position });
      // 404: deleted meanwhile; 400: deletions meanwhile left fewer than `position` media.
      if (res.statusCode === 400)
        assert.deepEqual(detailFields(expectError(res, 400, 'validation_error')), ['position']);
      else if (res.statusCode !== 404) {
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json<MediaJson>().position, position);
      }
      return { deleted: [], added: [] };
    }
    case 'delete': {
      const id = snapshot[at(o.which, n)]!;
      const res = await call(ctx, 'DELETE', mediaUrl(listingId, id), { key: owner.key });
      assert.ok([204, 404].includes(res.statusCode), res.body);
      return { deleted: res.statusCode === 204 ? [id] : [], added: [] };
    }
    case 'reorder': {
      const order = permute(snapshot, o.draws);
      const res = await putOrder(ctx, owner.key, listingId, { media_ids: order });
      // 400: an upload or a deletion meanwhile made the snapshot's order miss or name a stranger.
      if (res.statusCode === 400) {
        const fields = detailFields(expectError(res, 400, 'validation_error'));
        assert.ok(fields.length > 0 && fields.every((f) => f.startsWith('media_ids')), res.body);
      } else {
        assert.equal(res.statusCode, 200, res.body);
        const page = res.json<MediaPage>();
        assert.deepEqual(
          page.data.map((x) => [x.id, x.position]),
          order.map((id, i) => [id, i + 1]),
        );
      }
      return { deleted: [], added: [] };
    }
    case 'upload': {
      const res = await sendUpload(listingId, o.what);
      const positions = res.json<{ data: MediaJson[] }>().data.map((x) => x.position);
      assert.deepEqual(
        positions,
        positions.map((_, i) => positions[0]! + i),
        'one request, consecutive positions',
      );
      return { deleted: [], added: uploadedIds(res) };
    }
    case 'variants': {
      // The photos' variants job, as the serve process runs it: it writes the same media rows.
      await makeVariantsNow(ctx);
      return { deleted: [], added: [] };
    }
  }
}

describe('positions under concurrent writes', () => {
  test('waves of concurrent moves, deletions, reorders and uploads leave no gap or duplicate, and the right media', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(op, { minLength: 3, maxLength: 8 }), { minLength: 2, maxLength: 3 }),
        async (waves) => {
          const listingId = await newGallery(ctx, owner);
          let ids = uploadedIds(
            await sendUpload(listingId, ['jpeg', 'pdf', 'pdf', 'jpeg', 'pdf', 'jpeg', 'pdf', 'pdf']),
          );
          for (const [w, wave] of waves.entries()) {
            const snapshot = ids.length > 0 ? ids : uploadedIds(await sendUpload(listingId, ['pdf', 'jpeg']));
            const results = await Promise.all(wave.map((o) => perform(listingId, snapshot, o)));
            ids = await assertGapless(ctx, owner.key, listingId, undefined, `wave ${w}: ${JSON.stringify(wave)}`);
            const expected = new Set(snapshot);
            for (const r of results) {
              for (const id of r.deleted) expected.delete(id);
              for (const id of r.added) expected.add(id);
            }
            assert.deepEqual(new Set(ids), expected, `wave ${w}: the media that should be there`);
          }
        },
      ),
      { numRuns: runs(isPostgres ? 30 : 15), ...(seed === undefined ? {} : { seed }) },
    );
  });
});
