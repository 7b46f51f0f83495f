// Tests of a suite whose set-up may find a service missing (S3 server, PostgreSQL, ...): each
// says why it skipped instead of failing.
import { test } from 'node:test';

/**
 * A test() that runs `body` unless `skipped()` gives a reason when it starts (after the suite's
 * before hooks), in which case the test is skipped with that reason.
 */
export function skippableTest(
  skipped: () => string | undefined,
): (title: string, body: () => Promise<void>, options?: { timeout?: number }) => void {
  return (title, body, options = {}) => {
    void test(title, options, async (t) => {
      const reason = skipped();
      if (reason !== undefined) {
        t.skip(reason);
        return;
      }
      await body();
    });
  };
}
