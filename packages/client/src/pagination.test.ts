// List iterators across pages on a real server: 250 active galleries (and drafts the filter
// leaves out) walked newest first, each once, in as many requests as pages; a page size of the
// caller's; a start page; an empty list.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startClientServer, type ClientServer } from '../../../test/support/client.ts';

describe('client: iterate across pages', () => {
  let s: ClientServer;
  let active: string[];

  before(async () => {
    s = await startClientServer();
    active = [];
    for (let i = 0; i < 260; i += 1) {
      const status = i % 26 === 25 ? 'draft' : 'active';
      const g = await s.ctx.services.listings.create(s.account.accountId, { address: `${i} Page Street`, status });
      if (status === 'active') active.push(g.id);
    }
    active.reverse(); // newest first
  });
  after(() => s.close());

  const listRequests = (): number => s.sent.filter((r) => r === 'GET /v1/listings').length;

  test('250 active galleries, newest first, each once, in three requests of 100', async () => {
    assert.equal(active.length, 250);
    const before = listRequests();
    const seen: string[] = [];
    for await (const g of s.lb.listings.iterate({ status: 'active' })) {
      assert.equal(g.status, 'active');
      seen.push(g.id);
    }
    assert.deepEqual(seen, active);
    assert.equal(listRequests() - before, 3);
  });

  test("the caller's page size and start page; stopping early fetches no more pages", async () => {
    const before = listRequests();
    const seen: string[] = [];
    for await (const g of s.lb.listings.iterate({ status: 'active', limit: 30, page: 2 })) seen.push(g.id);
    assert.deepEqual(seen, active.slice(30));
    assert.equal(listRequests() - before, 8);

    const first: string[] = [];
    const mid = listRequests();
    for await (const g of s.lb.listings.iterate({ status: 'active', limit: 10 })) {
      first.push(g.id);
      if (first.length === 15) break;
    }
    assert.deepEqual(first, active.slice(0, 15));
    assert.equal(listRequests() - mid, 2);
  });

  test('an empty list is one request and no items', async () => {
    const before = s.sent.length;
    const items: unknown[] = [];
    for await (const c of s.lb.clients.iterate({ search: 'nobody' })) items.push(c);
    assert.deepEqual(items, []);
    assert.equal(s.sent.length - before, 1);
  });
});
