// Test data's deletion (docs/api.md §20): every test object of a studio goes, bytes included; live
// data is never touched. The test data is the studio's test account's (docs/decisions/0020), so
// this is one write of that account: its stored bytes are put on the cleanup ledger, then its row
// goes with every row of its data (foreign keys cascade) and comes back empty under the same id.
import type { Deps } from '../../deps.ts';
import type { Writes } from '../../mechanisms/writes/writes.ts';
import type { Log } from '../../lib/log.ts';
import { emptyTestAccount, findTestAccountId } from '../accounts/test-mode.entry.ts';
import type { MediaCleanup } from '../media/media.cleanup.ts';

export type TestDataService = ReturnType<typeof createTestDataService>;

export function createTestDataService({
  db,
  writes,
  cleanup,
}: Pick<Deps, 'db' | 'clock'> & { writes: Writes; cleanup: MediaCleanup }) {
  return {
    /**
     * Deletes every test object of the studio `liveAccountId`. Returns once the rows are gone;
     * the bytes are purged before it returns, or by the cleanup job when there are many.
     */
    async removeAll(liveAccountId: string, log?: Log): Promise<void> {
      const testAccountId = await findTestAccountId(db.kysely, liveAccountId);
      if (testAccountId === undefined) return;
      // The account's row is locked first: an upload committing into a test gallery waits, then
      // finds it gone.
      await writes.run(testAccountId, { lock: { account: true } }, async (w) => {
        if (w.account === undefined) return;
        const storageKeys = await cleanup.scheduleAccount(w);
        await emptyTestAccount(w);
        w.afterCommit(() => cleanup.afterDelete(storageKeys, log));
      });
    },
  };
}
