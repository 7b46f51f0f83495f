// Sessions on a real database, with a clock the tests move: idle and absolute expiry, sign-out,
// and a password change ending every session of the account.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { createAccountsService } from './accounts.service.ts';
import { createSessionsService, SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from './sessions.service.ts';
import { clockOf } from '../../lib/clock.ts';

let ctx: TestContext;
let owner: TestAccount;
let now = Date.parse('2026-11-22T10:00:00.000Z');
const clock = clockOf(() => now);

before(async () => {
  ctx = await createTestContext();
  owner = await createAccount(ctx, 'Session Studio');
});

after(async () => {
  await ctx.close();
});

const sessions = () => createSessionsService({ db: ctx.deps.db, clock });

describe('a session', () => {
  test('is found by its token, and only a hash of the token is stored', async () => {
    const { token, session } = await sessions().create(owner.accountId);
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    const found = await sessions().authenticate(token);
    assert.equal(found?.accountId, owner.accountId);
    assert.equal(found.csrfToken, session.csrfToken);
    assert.notEqual(found.csrfToken, token);
    const rows = await ctx.deps.db.kysely.selectFrom('sessions').selectAll().execute();
    assert.ok(rows.length > 0);
    for (const row of rows) assert.ok(!Object.values(row).includes(token), 'the token itself is stored');
  });

  test('a wrong, malformed or missing token finds nothing', async () => {
    await sessions().create(owner.accountId);
    for (const token of [undefined, '', 'x', 'A'.repeat(43), 'A'.repeat(42) + '\u0000', '../../etc/passwd']) {
      assert.equal(await sessions().authenticate(token), null, String(token));
    }
  });

  test('ends after being idle too long, and is deleted', async () => {
    const { token } = await sessions().create(owner.accountId);
    now += SESSION_IDLE_MS - 1000;
    assert.notEqual(await sessions().authenticate(token), null);
    now += SESSION_IDLE_MS;
    assert.equal(await sessions().authenticate(token), null);
    now -= SESSION_IDLE_MS; // back in time: it is gone, not merely refused
    assert.equal(await sessions().authenticate(token), null);
  });

  test('activity keeps it alive, but never past its absolute end', async () => {
    const { token, session } = await sessions().create(owner.accountId);
    const end = Date.parse(session.expiresAt);
    assert.equal(end - now, SESSION_ABSOLUTE_MS);
    while (now + SESSION_IDLE_MS / 2 < end) {
      now += SESSION_IDLE_MS / 2;
      assert.notEqual(await sessions().authenticate(token), null, new Date(now).toISOString());
    }
    now = end;
    assert.equal(await sessions().authenticate(token), null);
  });

  test('sign-out ends it at once; other sessions of the account go on', async () => {
    const a = await sessions().create(owner.accountId);
    const b = await sessions().create(owner.accountId);
    await sessions().end(a.token);
    assert.equal(await sessions().authenticate(a.token), null);
    assert.notEqual(await sessions().authenticate(b.token), null);
  });

  test('a password change ends every session of the account, and only that account', async () => {
    const other = await createAccount(ctx, 'Other Studio');
    const accounts = createAccountsService({ db: ctx.deps.db, clock, writes: ctx.services.writes });
    const mine = [await sessions().create(owner.accountId), await sessions().create(owner.accountId)];
    const theirs = await sessions().create(other.accountId);

    await assert.rejects(
      accounts.changePassword(owner.userId, {
        current: 'not the password',
        next: 'a brand new password',
        address: '192.0.2.1',
      }),
      {
        code: 'validation_error',
      },
    );
    for (const s of mine) assert.notEqual(await sessions().authenticate(s.token), null, 'refused change ends nothing');

    await accounts.changePassword(owner.userId, {
      current: 'correct horse battery',
      next: 'a brand new password',
      address: '192.0.2.1',
    });
    for (const s of mine) assert.equal(await sessions().authenticate(s.token), null);
    assert.notEqual(await sessions().authenticate(theirs.token), null);
    assert.equal(await sessions().countOf(owner.accountId), 0);

    const fresh = await sessions().create(owner.accountId);
    assert.notEqual(await sessions().authenticate(fresh.token), null);
    await accounts.changePassword(owner.userId, {
      current: 'a brand new password',
      next: 'correct horse battery',
      address: '192.0.2.1',
    });
  });

  test('a new password shorter than the minimum is refused and changes nothing', async () => {
    const accounts = createAccountsService({ db: ctx.deps.db, clock, writes: ctx.services.writes });
    const s = await sessions().create(owner.accountId);
    await assert.rejects(
      accounts.changePassword(owner.userId, {
        current: 'correct horse battery',
        next: 'short',
        address: '192.0.2.1',
      }),
      (err: any) => {
        assert.equal(err.details[0].field, 'new_password');
        return true;
      },
    );
    assert.notEqual(await sessions().authenticate(s.token), null);
  });

  test('a value held once is given back once, to that session only, and is stored sealed', async () => {
    const a = await sessions().create(owner.accountId);
    const b = await sessions().create(owner.accountId);
    await sessions().holdOnce(a.token, 'lbx_the secret value');
    const stored = await ctx.deps.db.kysely.selectFrom('sessions').select('one_time').execute();
    assert.ok(!JSON.stringify(stored).includes('secret value'));
    assert.equal(await sessions().takeOnce(b.token), null, 'another session of the account');
    assert.equal(await sessions().takeOnce(undefined), null);
    // Two requests racing for it: exactly one gets it.
    const raced = await Promise.all([sessions().takeOnce(a.token), sessions().takeOnce(a.token)]);
    assert.deepEqual(raced.sort(), ['lbx_the secret value', null].sort());
    assert.equal(await sessions().takeOnce(a.token), null, 'gone once taken');
  });
});
