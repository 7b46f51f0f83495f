// A fuzz session: the app on a real database (SQLite, or PostgreSQL when DATABASE_URL says so),
// its OpenAPI document, and the seeded world. The rate limit is lifted so that it never answers
// in place of the behaviour under test.
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { loadDocument, operations, type Operation } from './contract.ts';
import { World } from './world.ts';

export interface FuzzSession {
  ctx: TestContext;
  world: World;
  operations: Operation[];
  close: () => Promise<void>;
}

export async function openFuzzSession(): Promise<FuzzSession> {
  const ctx = await createTestContext({ RATE_LIMIT_PER_MINUTE: '1000000000', LOG_LEVEL: 'silent' });
  try {
    const doc = await loadDocument(ctx.app);
    const world = await World.create(ctx);
    return { ctx, world, operations: operations(doc), close: () => ctx.close() };
  } catch (err) {
    await ctx.close();
    throw err;
  }
}
