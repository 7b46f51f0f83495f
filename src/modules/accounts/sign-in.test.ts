// Sign-in on a real database: credentials, the same answer for an unknown email and a wrong
// password, and throttling per client address and per account.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { AppError } from '../../errors.ts';
import { createAccountsService } from './accounts.service.ts';
import {
  ACCOUNT_LIMIT,
  ADDRESS_LIMIT,
  SIGN_IN_WINDOW_MS,
  createSignInService,
  type SignInResult,
  type SignInService,
} from './sign-in.service.ts';
import { clockOf } from '../../lib/clock.ts';
import { derivations, type Derivation } from './password.ts';

const PASSWORD = 'correct horse battery';
let ctx: TestContext;
let owner: TestAccount;
let now = Date.parse('2026-11-22T10:00:00.000Z');
let addressSerial = 0;
const freshAddress = () => `192.0.2.${(addressSerial += 1)}`;

before(async () => {
  ctx = await createTestContext();
  owner = await createAccount(ctx, 'Sign-in Studio');
  service = createSignInService({ db: ctx.deps.db, clock });
});

after(async () => {
  await ctx.close();
});

const clock = clockOf(() => now);
let service: SignInService;
const attempt = (email: string, password: string, address = freshAddress()): Promise<SignInResult> =>
  service.signIn({ email, password, address });

/** The password hashes (scrypt key derivations) started while `fn` ran, with their cost. */
async function derivationsDuring<T>(fn: () => Promise<T>): Promise<{ value: T; work: Derivation[] }> {
  const work: Derivation[] = [];
  const listener = (message: unknown): void => {
    work.push(message as Derivation);
  };
  derivations.subscribe(listener);
  try {
    return { value: await fn(), work };
  } finally {
    derivations.unsubscribe(listener);
  }
}

/** Each test starts a window later, so failures of one do not count against the next. */
const nextWindow = () => {
  now += SIGN_IN_WINDOW_MS + 1000;
};

describe('credentials', () => {
  test('the right email and password sign in, whatever the case of the email', async () => {
    nextWindow();
    const result = await attempt(owner.email.toUpperCase(), PASSWORD);
    assert.equal(result.outcome, 'signed_in');
    assert.equal(result.outcome === 'signed_in' && result.account.id, owner.accountId);
  });

  test('an unknown email and a wrong password get the very same answer', async () => {
    nextWindow();
    assert.deepEqual(await attempt(owner.email, 'wrong password!'), { outcome: 'invalid' });
    assert.deepEqual(await attempt('nobody@nowhere.test', PASSWORD), { outcome: 'invalid' });
  });

  test('the first unknown email costs what every sign-in costs: the dummy hash is made up front', async () => {
    const made = await derivationsDuring(() => Promise.resolve(createSignInService({ db: ctx.deps.db, clock })));
    assert.equal(made.work.length, 1, 'the dummy hash is started as the service is made');
    const fresh = made.value;
    const unknown = () => {
      nextWindow();
      return fresh.signIn({ email: 'nobody@nowhere.test', password: 'x', address: freshAddress() });
    };
    // At once, while the dummy hash may still be in the making: made lazily, this would be two.
    const first = await derivationsDuring(unknown);
    assert.deepEqual(first.value, { outcome: 'invalid' });
    nextWindow();
    const known = await derivationsDuring(() =>
      fresh.signIn({ email: owner.email, password: 'wrong password!', address: freshAddress() }),
    );
    assert.deepEqual(known.value, { outcome: 'invalid' });
    const next = await derivationsDuring(unknown);
    assert.deepEqual(first.work, known.work, 'the first unknown email');
    assert.deepEqual(next.work, known.work, 'a later unknown email');
  });

  test('an unknown email still costs one password hash of the same cost, so timing does not tell', async () => {
    // Work done, not wall-clock time: on a shared machine times are noise, the work is not.
    const work = async (email: string): Promise<Derivation[]> => {
      nextWindow();
      const { value, work: done } = await derivationsDuring(() => attempt(email, 'wrong password!'));
      assert.deepEqual(value, { outcome: 'invalid' });
      return done;
    };
    const known = await work(owner.email);
    assert.equal(known.length, 1, 'a wrong password is one hash');
    // Real cost parameters (at least 32 MiB), not a cheap stand-in.
    assert.ok(128 * known[0]!.N * known[0]!.r >= 32 * 1024 * 1024, JSON.stringify(known));
    for (const email of ['nobody@nowhere.test', 'NOBODY2@nowhere.test', `x${owner.email}`]) {
      assert.deepEqual(await work(email), known, email);
    }
  });
});

describe('throttling per account', () => {
  test(`after ${ACCOUNT_LIMIT} failures the account is refused from any address, even with its password`, async () => {
    nextWindow();
    for (let i = 0; i < ACCOUNT_LIMIT; i += 1) {
      assert.equal((await attempt(owner.email, `wrong ${i} password`)).outcome, 'invalid');
    }
    const refused = await attempt(owner.email, PASSWORD);
    assert.deepEqual(refused, { outcome: 'throttled', retryAfterSeconds: SIGN_IN_WINDOW_MS / 1000 });
    // The limit is on the account, not the spelling of its email.
    assert.equal((await attempt(`  ${owner.email.toUpperCase()} `, PASSWORD)).outcome, 'throttled');
    // Another account is not affected.
    const other = await createAccount(ctx, 'Unaffected Studio');
    assert.equal((await attempt(other.email, PASSWORD)).outcome, 'signed_in');

    now += 10 * 60_000;
    const later = await attempt(owner.email, PASSWORD);
    assert.deepEqual(later, { outcome: 'throttled', retryAfterSeconds: 5 * 60 });
    now += 5 * 60_000;
    assert.equal((await attempt(owner.email, PASSWORD)).outcome, 'signed_in');
  });

  test('a successful sign-in forgets the account’s earlier failures', async () => {
    nextWindow();
    for (let i = 0; i < ACCOUNT_LIMIT - 1; i += 1) await attempt(owner.email, 'wrong password!');
    assert.equal((await attempt(owner.email, PASSWORD)).outcome, 'signed_in');
    for (let i = 0; i < ACCOUNT_LIMIT; i += 1) {
      assert.equal((await attempt(owner.email, 'wrong password!')).outcome, 'invalid', `attempt ${i}`);
    }
    assert.equal((await attempt(owner.email, PASSWORD)).outcome, 'throttled');
  });

  test('a burst of parallel guesses cannot slip past the limit', async () => {
    nextWindow();
    const results = await Promise.all(
      Array.from({ length: ACCOUNT_LIMIT * 3 }, (_, i) => attempt(owner.email, `guess ${i} password`)),
    );
    const checked = results.filter((r) => r.outcome === 'invalid').length;
    assert.ok(checked <= ACCOUNT_LIMIT, `${checked} passwords were checked`);
    assert.ok(results.some((r) => r.outcome === 'throttled'));
  });
});

describe('changing the password', () => {
  const accounts = () => createAccountsService({ db: ctx.deps.db, clock, writes: ctx.services.writes });
  const change = (who: TestAccount, current: string, address = freshAddress()) =>
    accounts().changePassword(who.userId, { current, next: 'another long password', address });
  const refusedWith = (code: string) => (err: unknown) => err instanceof AppError && err.code === code;

  test(`wrong current passwords share the account's sign-in limit; past it, rate_limited`, async () => {
    nextWindow();
    const who = await createAccount(ctx, 'Changing Studio');
    for (let i = 0; i < ACCOUNT_LIMIT - 1; i += 1) {
      await assert.rejects(change(who, `wrong ${i} password`), refusedWith('validation_error'));
    }
    assert.equal((await attempt(who.email, 'wrong password!')).outcome, 'invalid');
    await assert.rejects(change(who, PASSWORD), (err: unknown) => {
      assert.ok(err instanceof AppError && err.code === 'rate_limited');
      assert.equal(err.headers['retry-after'], String(SIGN_IN_WINDOW_MS / 1000));
      return true;
    });
    assert.equal((await attempt(who.email, PASSWORD)).outcome, 'throttled');
  });

  test('and the address limit, whatever account it is used on', async () => {
    nextWindow();
    const address = freshAddress();
    const who = await createAccount(ctx, 'Address Studio');
    for (let i = 0; i < ADDRESS_LIMIT; i += 1) {
      assert.equal((await attempt(`someone${i}@nowhere.test`, 'wrong password!', address)).outcome, 'invalid');
    }
    await assert.rejects(change(who, PASSWORD, address), refusedWith('rate_limited'));
    // From another address the right password still works, and clears the account's failures.
    await change(who, PASSWORD);
  });
});

describe('throttling per address', () => {
  test(`after ${ADDRESS_LIMIT} failures an address is refused, whatever email it tries`, async () => {
    nextWindow();
    const address = '198.51.100.7';
    for (let i = 0; i < ADDRESS_LIMIT; i += 1) {
      assert.equal((await attempt(`guess${i}@nowhere.test`, 'wrong password!', address)).outcome, 'invalid');
    }
    const refused = await attempt(owner.email, PASSWORD, address);
    assert.equal(refused.outcome, 'throttled');
    // The owner, from another address, is not locked out by someone else's guessing.
    assert.equal((await attempt(owner.email, PASSWORD, '198.51.100.8')).outcome, 'signed_in');
    now += SIGN_IN_WINDOW_MS;
    assert.equal((await attempt(owner.email, PASSWORD, address)).outcome, 'signed_in');
  });

  test('every address of one IPv6 /64 counts as one', async () => {
    nextWindow();
    for (let i = 0; i < ADDRESS_LIMIT; i += 1) {
      await attempt(`v6guess${i}@nowhere.test`, 'wrong password!', `2001:db8:1:2::${(i + 1).toString(16)}`);
    }
    assert.equal((await attempt(owner.email, PASSWORD, '2001:db8:1:2:ffff::1')).outcome, 'throttled');
    assert.equal((await attempt(owner.email, PASSWORD, '2001:db8:1:3::1')).outcome, 'signed_in');
  });
});
