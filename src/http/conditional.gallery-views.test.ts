// A client's view or download on their gallery (/g) counts on the gallery's client_link, records
// its event (client_link.viewed, client_link.downloaded: docs/api.md §15) and counts that event;
// the event is then fanned out to the endpoints that want it and delivered. Only the reads that
// show one of these change their tag (docs/api.md §17, decisions/0014): GET /v1/listings/:id (the
// counters), the event log, the deliveries; every other /v1 tag of the studio still answers 304.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { linkedGallery, visit } from '../../test/support/gallery.ts';
import { pdf } from '../../test/support/media-fixtures.ts';
import { uploaded } from '../../test/support/media-helpers.ts';
import { createEndpoint, deliveryRunner } from '../../test/support/webhooks.ts';
import {
  call,
  createAccount,
  createTestContext,
  type Response,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';

let ctx: TestContext;
let owner: TestAccount;
let gallery: { listingId: string; clientId: string; path: string };
let documentId: string;
let endpointId: string;

before(async () => {
  ctx = await createTestContext();
  owner = await createAccount(ctx, 'Visited studio');
  gallery = await linkedGallery(ctx, owner, { status: 'active' });
  documentId = (await uploaded(ctx, owner.key, gallery.listingId, [{ filename: 'plan.pdf', data: pdf('plan') }]))[0]!
    .id;
  // It wants the visitors' events alone: the studio's own writes above make no deliveries.
  endpointId = (
    await createEndpoint(ctx, owner, {
      url: 'https://hooks.example.test/in',
      events: ['client_link.viewed', 'client_link.downloaded'],
    })
  ).id;
});
after(() => ctx.close());

/** Reads whose bodies a visitor's view, download or their deliveries never change. */
const unrelated = (): string[] => [
  '/v1/listings',
  '/v1/listings?status=active',
  '/v1/clients',
  `/v1/clients/${gallery.clientId}`,
  `/v1/clients/${gallery.clientId}/listings`,
  `/v1/listings/${gallery.listingId}/media`,
  `/v1/listings/${gallery.listingId}/media/${documentId}`,
  '/v1/notifications',
  '/v1/webhook_endpoints',
  `/v1/webhook_endpoints/${endpointId}`,
  '/v1/account',
];

const get = (url: string, etag?: string): Promise<Response> =>
  call(ctx, 'GET', url, { key: owner.key, ...(etag === undefined ? {} : { headers: { 'if-none-match': etag } }) });

/** The current tag and body of each read. */
async function look(urls: string[]): Promise<Map<string, Response>> {
  const seen = new Map<string, Response>();
  for (const url of urls) {
    const res = await get(url);
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    seen.set(url, res);
  }
  return seen;
}

/** Each read still answers 304 to the tag it had before. */
async function stillFresh(before: Map<string, Response>, after: string): Promise<void> {
  for (const [url, was] of before) {
    const res = await get(url, String(was.headers.etag));
    assert.equal(res.statusCode, 304, `${url} after ${after}: ${res.statusCode}`);
  }
}

/** The read's tag from before is stale: 200, with a new tag and the body `changed` expects. */
async function moved(was: Response | undefined, url: string, changed: (now: Response) => void): Promise<void> {
  assert.ok(was !== undefined, url);
  const res = await get(url, String(was.headers.etag));
  assert.equal(res.statusCode, 200, `${url}: the old tag must not answer 304`);
  assert.notEqual(String(res.headers.etag), String(was.headers.etag), url);
  changed(res);
}

interface EventJson {
  id: string;
  type: string;
}
const events = (res: Response) => {
  const page = res.json<{ data: EventJson[]; pagination: { total: number } }>();
  return { data: page.data, total: page.pagination.total };
};
const link = (res: Response) => res.json<{ client_link: { views: number; downloads: number } }>().client_link;

const item = () => `/v1/listings/${gallery.listingId}`;
const deliveries = () => `/v1/webhook_endpoints/${endpointId}/deliveries`;

describe('a client gallery visit and /v1 ETags', () => {
  test("a view leaves the studio's other tags; the gallery's counters and the event log move", async () => {
    const others = await look(unrelated());
    const shown = await look([item(), '/v1/events', '/v1/events?type=client_link.viewed']);

    assert.equal((await visit(ctx, gallery.path)).statusCode, 200);

    await stillFresh(others, 'a gallery view');
    await moved(shown.get(item()), item(), (res) => {
      assert.equal(link(res).views, link(shown.get(item())!).views + 1);
    });
    for (const url of ['/v1/events', '/v1/events?type=client_link.viewed']) {
      await moved(shown.get(url), url, (res) => {
        assert.equal(events(res).data[0]?.type, 'client_link.viewed', url);
        assert.equal(events(res).total, events(shown.get(url)!).total + 1, url);
      });
    }
  });

  test("a download leaves the studio's other tags; the gallery's counters and the event log move", async () => {
    const others = await look(unrelated());
    const shown = await look([item(), '/v1/events']);

    const res = await visit(ctx, `${gallery.path}/media/${documentId}/download`);
    assert.equal(res.statusCode, 200);

    await stillFresh(others, 'a download');
    await moved(shown.get(item()), item(), (now) => {
      assert.equal(link(now).downloads, link(shown.get(item())!).downloads + 1);
    });
    await moved(shown.get('/v1/events'), '/v1/events', (now) => {
      assert.equal(events(now).data[0]?.type, 'client_link.downloaded');
    });
  });

  test("their webhook deliveries leave the studio's other tags; the deliveries move", async () => {
    const others = await look([...unrelated(), item()]);
    const shown = await look([deliveries()]);
    assert.equal(shown.get(deliveries())!.json<{ data: unknown[] }>().data.length, 0);

    // Fan-out, then an attempt (the host resolves nowhere: it fails and is recorded).
    const runner = deliveryRunner(ctx.deps);
    await runner.drain();
    await runner.close();

    await stillFresh(others, 'the deliveries of the visits');
    await moved(shown.get(deliveries()), deliveries(), (res) => {
      const types = res.json<{ data: { event_type: string; attempts: number }[] }>().data.map((d) => d.event_type);
      assert.deepEqual(types.sort(), ['client_link.downloaded', 'client_link.viewed']);
    });
  });

  test("pruned visitors' events leave the studio's other tags; the pruned event's tag is not 304", async () => {
    const viewed = events(await get('/v1/events?type=client_link.viewed')).data[0];
    assert.ok(viewed !== undefined);
    // Aged past the 30 days the log keeps (a write itself: the tags are taken after it).
    await ctx.deps.db.kysely
      .updateTable('events')
      .set({ created_at: '2000-01-01T00:00:00.000Z' })
      .where('id', '=', viewed.id)
      .execute();
    const others = await look([...unrelated(), item()]);
    const shown = await look([`/v1/events/${viewed.id}`, '/v1/events']);

    assert.equal(await ctx.services.webhooks.pruneEvents(), 1);

    await stillFresh(others, 'the pruning of a view');
    const res = await get(`/v1/events/${viewed.id}`, String(shown.get(`/v1/events/${viewed.id}`)!.headers.etag));
    assert.equal(res.statusCode, 404, 'the pruned event is gone: its old tag must not answer 304');
    await moved(shown.get('/v1/events'), '/v1/events', (now) => {
      assert.equal(events(now).total, events(shown.get('/v1/events')!).total - 1);
    });
  });

  test('any other change still moves every tag', async () => {
    const others = await look(['/v1/clients', '/v1/events', deliveries()]);
    const res = await call(ctx, 'PATCH', item(), { key: owner.key, body: { description: 'Now with a garden' } });
    assert.equal(res.statusCode, 200, res.body);
    for (const [url, was] of others) {
      assert.equal((await get(url, String(was.headers.etag))).statusCode, 200, url);
    }
  });
});
