// List iterators across pages on a real server: 250 active galleries (and drafts the filter
// leaves out) walked newest first, each once, in as many requests as pages; a page size of the
// caller's; a start page; a walk by cursor while galleries are created and deleted; an empty list.
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

  test('walks by cursor: galleries created and deleted during the walk shift nothing, none repeats', async () => {
    const seen: string[] = [];
    const deleted = new Set<string>();
    let n = 0;
    for await (const g of s.lb.listings.iterate({ status: 'active', limit: 20 })) {
      seen.push(g.id);
      if (seen.length % 20 === 0) {
        // Newer galleries land before the walk's position; with offsets, every later page would
        // shift by them and repeat items.
        for (let i = 0; i < 5; i += 1) {
          await s.ctx.services.listings.create(s.account.accountId, { address: `New ${n++}`, status: 'active' });
        }
        // And one not yet reached goes.
        const ahead = active.find((id) => !seen.includes(id) && !deleted.has(id));
        if (ahead !== undefined && deleted.size < 3) {
          await s.ctx.services.listings.remove(s.account.accountId, ahead);
          deleted.add(ahead);
        }
      }
    }
    assert.equal(new Set(seen).size, seen.length, 'no repeats');
    assert.deepEqual(
      seen,
      active.filter((id) => !deleted.has(id)),
    );
    active = active.filter((id) => !deleted.has(id));
  });

  test('an empty list is one request and no items', async () => {
    const before = s.sent.length;
    const items: unknown[] = [];
    for await (const c of s.lb.clients.iterate({ search: 'nobody' })) items.push(c);
    assert.deepEqual(items, []);
    assert.equal(s.sent.length - before, 1);
  });
});
