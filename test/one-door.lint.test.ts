// The unit of work's lint rules (eslint.config.js): what they refuse in a feature's file, what the
// allowlists let through, with each file's own resolved configuration (its globs included).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ESLint, Linter } from 'eslint';

const ROOT = path.resolve(import.meta.dirname, '..');
const eslint = new ESLint({ cwd: ROOT });

/** The messages of the file's `no-restricted-syntax` rule (the one-door rules) for this code. */
async function refusals(file: string, code: string): Promise<string[]> {
  const config = (await eslint.calculateConfigForFile(path.join(ROOT, file))) as Linter.Config;
  const rule = config.rules?.['no-restricted-syntax'];
  if (rule === undefined) return [];
  const linter = new Linter({ configType: 'flat' });
  const messages = linter.verify(code, [{ files: ['**/*.ts'], rules: { 'no-restricted-syntax': rule } }], {
    filename: file,
  });
  return messages.map((m) => m.message);
}

const POOL_WRITE = `
export async function f(db, repo, writes) {
  await repo.insertThing(db.kysely, { id: 1 });
}`;
const IN_A_WRITE = `
export async function f(db, repo, writes) {
  await writes.run('acc', {}, ({ trx }) => repo.insertThing(trx, { id: 1 }));
  await repo.findThing(db.kysely, 1);
  const cache = new Map();
  cache.set(db.kysely, 1);
}`;
const TRANSACTION = `
export async function f(db) {
  await db.kysely.transaction().execute(async () => undefined);
}`;

describe('the one door, as eslint.config.js sets it', () => {
  test("a feature's change on the pool, or a transaction of its own, is refused", async () => {
    const file = 'src/modules/listings/listings.service.ts';
    assert.match((await refusals(file, POOL_WRITE)).join('\n'), /goes through writes\.run .* not the pool/);
    assert.match((await refusals(file, TRANSACTION)).join('\n'), /goes through writes\.run/);
  });

  test('a change inside a write, a read on the pool and a map keyed by the pool pass', async () => {
    assert.deepEqual(await refusals('src/modules/webhooks/webhooks.service.ts', IN_A_WRITE), []);
  });

  test("the sign-in machinery's records may use the pool; its transactions still may not", async () => {
    const file = 'src/modules/accounts/sessions.service.ts';
    assert.deepEqual(await refusals(file, POOL_WRITE), []);
    assert.match((await refusals(file, TRANSACTION)).join('\n'), /goes through writes\.run/);
  });
});
