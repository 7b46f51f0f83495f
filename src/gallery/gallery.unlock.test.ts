// The password limit of a client gallery link under concurrent guesses (docs/api.md §25): every
// answer is counted before it is checked, so guesses sent at once from one address are checked 10
// at most in 15 minutes, and past the limit even the right password is refused (429, no cookie).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';
import { linkedGallery } from '../../test/support/gallery.ts';

describe('client link password limit under concurrent guesses', () => {
  let ctx: TestContext;
  let owner: TestAccount;

  before(async () => {
    ctx = await createTestContext({ GALLERY_RATE_LIMIT_PER_MINUTE: '100000' });
    owner = await createAccount(ctx, 'Quayside Studio');
  });
  after(() => ctx.close());

  async function protectedGallery(password: string) {
    const g = await linkedGallery(ctx, owner);
    const res = await call(ctx, 'PATCH', `/v1/listings/${g.listingId}/client_link`, {
      key: owner.key,
      body: { password },
    });
    assert.equal(res.statusCode, 200, res.body);
    return g;
  }

  const unlock = (path: string, password: string, remoteAddress: string) =>
    ctx.app.inject({
      method: 'POST',
      url: `${path}/unlock`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ password }).toString(),
      remoteAddress,
    });

  const statuses = (responses: { statusCode: number }[]): Record<number, number> => {
    const counts: Record<number, number> = {};
    for (const r of responses) counts[r.statusCode] = (counts[r.statusCode] ?? 0) + 1;
    return counts;
  };

  const storedFailures = async (listingId: string): Promise<number> => {
    const row = await ctx.deps.db.kysely
      .selectFrom('gallery_link_password_failures')
      .innerJoin('gallery_links', 'gallery_links.id', 'gallery_link_password_failures.link_id')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('gallery_link_password_failures.account_id', '=', owner.accountId)
      .where('gallery_links.listing_id', '=', listingId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };

  test('30 wrong passwords at once from one address: 10 are checked (403), 20 refused (429)', async () => {
    const g = await protectedGallery('the right answer');
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => unlock(g.path, `wrong guess ${i}`, '10.9.0.1')),
    );
    assert.deepEqual(statuses(responses), { 403: 10, 429: 20 });
    for (const r of responses.filter((x) => x.statusCode === 429)) assert.ok(Number(r.headers['retry-after']) > 0);
    assert.equal(await storedFailures(g.listingId), 10);
    // Past the limit the right password is refused too, and no cookie is given.
    const right = await unlock(g.path, 'the right answer', '10.9.0.1');
    assert.equal(right.statusCode, 429);
    assert.equal(right.headers['set-cookie'], undefined);
    // Another address has its own budget.
    assert.equal((await unlock(g.path, 'the right answer', '10.9.0.2')).statusCode, 303);
  });

  test('after 9 wrong answers, 40 guesses at once (the right one last): one is checked, no unlock past it', async () => {
    const g = await protectedGallery('the right answer');
    for (let i = 0; i < 9; i += 1) assert.equal((await unlock(g.path, `wrong ${i}`, '10.9.1.1')).statusCode, 403);
    const guesses = Array.from({ length: 39 }, (_, i) => `guess ${i}`).concat('the right answer');
    const responses = await Promise.all(guesses.map((p) => unlock(g.path, p, '10.9.1.1')));
    const checked = responses.filter((r) => r.statusCode !== 429);
    assert.equal(checked.length, 1, JSON.stringify(statuses(responses)));
    // Whichever answer took the last place, the right one after them all is refused.
    const right = await unlock(g.path, 'the right answer', '10.9.1.1');
    if (checked[0]!.statusCode === 403) {
      assert.equal(right.statusCode, 429);
      assert.equal(right.headers['set-cookie'], undefined);
    }
  });
});
