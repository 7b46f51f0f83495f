// The dashboard's first-run setup: it creates the first account once, even when two browsers
// submit it at the same moment, and never once any account exists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestContext } from '../../../test/support/test-app.ts';

const input = (n: number) => ({
  name: `Studio ${n}`,
  email: `owner${n}@setup.test`,
  password: 'a long studio password',
});

test('on an empty database the setup creates the first account, then never again', async () => {
  const ctx = await createTestContext();
  try {
    assert.equal(await ctx.services.accounts.isSetUp(), false);
    const first = await ctx.services.accounts.createFirst(input(1));
    assert.equal(first.name, 'Studio 1');
    assert.equal(await ctx.services.accounts.isSetUp(), true);
    await assert.rejects(ctx.services.accounts.createFirst(input(2)), { code: 'conflict' });
    const rows = await ctx.deps.db.kysely.selectFrom('accounts').select('email').execute();
    assert.deepEqual(rows, [{ email: 'owner1@setup.test' }]);
  } finally {
    await ctx.close();
  }
});

test('concurrent setups create exactly one account; the others are told it is done', async () => {
  const ctx = await createTestContext();
  try {
    const results = await Promise.allSettled(
      [1, 2, 3, 4, 5, 6].map((n) => ctx.services.accounts.createFirst(input(n))),
    );
    const made = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected');
    assert.equal(made.length, 1, JSON.stringify(results.map((r) => r.status)));
    for (const r of refused) assert.equal((r.reason as { code: string }).code, 'conflict', String(r.reason));
    const rows = await ctx.deps.db.kysely.selectFrom('accounts').select('id').execute();
    assert.deepEqual(rows, [{ id: made[0]!.value.id }]);
  } finally {
    await ctx.close();
  }
});

test('an account made on the command line first means there is no setup to do', async () => {
  const ctx = await createTestContext();
  try {
    await ctx.services.accounts.create(input(7));
    assert.equal(await ctx.services.accounts.isSetUp(), true);
    await assert.rejects(ctx.services.accounts.createFirst(input(8)), { code: 'conflict' });
    assert.equal((await ctx.deps.db.kysely.selectFrom('accounts').select('id').execute()).length, 1);
  } finally {
    await ctx.close();
  }
});

test('a refused setup form (bad email, short password) creates nothing and leaves the setup open', async () => {
  const ctx = await createTestContext();
  try {
    await assert.rejects(ctx.services.accounts.createFirst({ ...input(9), email: 'not-an-email' }), {
      code: 'validation_error',
    });
    await assert.rejects(ctx.services.accounts.createFirst({ ...input(9), password: 'short' }), {
      code: 'validation_error',
    });
    assert.equal(await ctx.services.accounts.isSetUp(), false);
    await ctx.services.accounts.createFirst(input(9));
    assert.equal(await ctx.services.accounts.isSetUp(), true);
  } finally {
    await ctx.close();
  }
});
