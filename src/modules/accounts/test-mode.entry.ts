// The accounts feature's entry point for test mode (docs/api.md §20): a studio's test data belongs
// to its test account, a second account row made on first need (docs/decisions/0020-test-mode.md).
// A test key authenticates to the studio, and its data scope is this account, so every query
// scoped by account is scoped by mode too.
import type { Executor } from '../../db/executor.ts';
import { newId } from '../../lib/ids.ts';
import type { Write } from '../../mechanisms/writes/writes.ts';
import * as repo from './accounts.repository.ts';

/**
 * In a write of the studio (`w.accountId`, the live account): its test account id, made now if it
 * has none yet; undefined when the studio is gone. The caller looks first (findTestAccountId), so
 * only the first use of a test key writes.
 */
export async function testAccountOf(w: Write): Promise<string | undefined> {
  const { trx, accountId: liveAccountId } = w;
  const existing = await repo.findTestAccount(trx, liveAccountId);
  if (existing !== undefined) return existing.id;
  const live = await repo.findAccount(trx, liveAccountId);
  if (live === undefined || live.live_account_id !== null) return undefined;
  await repo.insertTestAccount(trx, live, newId('acc'), w.now);
  // Another request may have made it first: its row is the one.
  return (await repo.findTestAccount(trx, liveAccountId))?.id;
}

/** The studio's test account id, without making one. */
export async function findTestAccountId(db: Executor, liveAccountId: string): Promise<string | undefined> {
  return (await repo.findTestAccount(db, liveAccountId))?.id;
}

/**
 * Deletes the test account with every row of its data (foreign keys cascade) and makes it again
 * under the same id, empty, so test keys (whose data scope is cached for a few seconds) carry on.
 * The caller holds the row locked (the unit of work's `lock: { account }`) and has scheduled the
 * bytes first.
 */
export async function emptyTestAccount(w: Write): Promise<void> {
  const row = w.account;
  if (row === undefined || row.id !== w.accountId || row.live_account_id === null) {
    throw new Error('emptyTestAccount: a test account, locked by the write (lock: { account: true })');
  }
  await repo.deleteTestAccount(w.trx, row.id);
  await repo.insertAccount(w.trx, row);
}
