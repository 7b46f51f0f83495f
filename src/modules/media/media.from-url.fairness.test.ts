// Media from a URL (docs/api.md §21) for several accounts at once, from one loopback server: one
// account's slow imports, however many, never make another account's fetch from the same host
// wait or fail (decisions/0026). The slow answers are slow but steady (a byte every 50 ms, far
// inside the stall time) and end only when the test lets them, so nothing here races a clock.
import assert from 'node:assert/strict';
import type http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { call, createAccount, createTestContext, type TestContext } from '../../../test/support/test-app.ts';
import { pdf } from '../../../test/support/media-fixtures.ts';
import { eventually, mediaRows, type MediaJson } from '../../../test/support/media-helpers.ts';
import { startReceiver, systemLookups, type Receiver } from '../../../test/support/loopback-receivers.ts';
import { WebhookAgentPool } from '../../outbound/agents.ts';
import { openUrl } from './media.from-url.ts';

let ctx: TestContext;
let server: Receiver;
const doc = pdf('fetched while others trickle');

/** Answers of `/trickle` still sending, and whether they may finish now. */
const trickling = new Set<http.ServerResponse>();
let trickleMayEnd = false;
let tricklesEnded = 0;

function answer(req: http.IncomingMessage, res: http.ServerResponse): void {
  switch (new URL(req.url ?? '/', 'http://x').pathname) {
    case '/files/plan.pdf':
      res.writeHead(200, { 'content-type': 'application/pdf' }).end(doc);
      return;
    case '/trickle': {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.write(doc);
      trickling.add(res);
      const timer = setInterval(() => {
        if (!trickleMayEnd) {
          res.write(' ');
          return;
        }
        clearInterval(timer);
        trickling.delete(res);
        tricklesEnded += 1;
        res.end();
      }, 50);
      res.on('close', () => {
        clearInterval(timer);
        trickling.delete(res);
      });
      return;
    }
    default:
      res.writeHead(404).end();
  }
}

before(async () => {
  ctx = await createTestContext({ WEBHOOK_ALLOW_PRIVATE: 'true', MEDIA_MAX_FILE_BYTES: String(64 * 1024) });
  server = await startReceiver((req, res) => answer(req, res));
});
after(async () => {
  trickleMayEnd = true;
  await server.close();
  await ctx.close();
  assert.deepEqual(systemLookups, []);
});

const at = (path: string): string => new URL(path, server.url()).toString();

async function read(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function galleryOf(key: string): Promise<string> {
  const res = await call(ctx, 'POST', '/v1/listings', { key, body: { address: '4 Fetch Lane' } });
  return res.json<{ id: string }>().id;
}

describe("one account's fetches never hold up another's", () => {
  test("while one account's 16 slow imports from a host are in flight, another's import from that host succeeds", async () => {
    const a = await createAccount(ctx);
    const b = await createAccount(ctx);
    const mine = await galleryOf(a.key);
    const theirs = await galleryOf(b.key);
    trickleMayEnd = false;
    tricklesEnded = 0;
    const slow = Array.from({ length: 16 }, () =>
      call(ctx, 'POST', `/v1/listings/${mine}/media`, { key: a.key, body: { url: at('/trickle') } }),
    );
    try {
      // The first account holds as many connections to the host as the old shared pool had.
      await eventually(() => Promise.resolve(assert.ok(trickling.size >= 10, `${trickling.size} trickling`)), 60_000);
      const quick = await call(ctx, 'POST', `/v1/listings/${theirs}/media`, {
        key: b.key,
        body: { url: at('/files/plan.pdf') },
      });
      assert.equal(quick.statusCode, 201, quick.body);
      assert.equal(quick.json<{ data: MediaJson[] }>().data[0]?.filename, 'plan.pdf');
      assert.equal(tricklesEnded, 0, "the first account's imports were all still in flight");
      assert.ok(trickling.size >= 10);
    } finally {
      trickleMayEnd = true;
    }
    // Its own 6 beyond its 10 connections waited their turn, and every one of the 16 is kept.
    for (const done of await Promise.all(slow)) assert.equal(done.statusCode, 201, done.body);
    assert.equal((await mediaRows(ctx, mine)).length, 16);
  });

  test("an account's fetch waits behind its own fetches only, and says so when the wait outlasts the stall time", async () => {
    // One connection per account and destination, so one slow answer fills an account's share.
    const agents = new WebhookAgentPool({ maxSocketsPerDestination: 1 });
    const base = {
      allowPrivate: true,
      maxBytes: 64 * 1024,
      agents,
      resolve: (): never => {
        throw new Error('an IP literal is not looked up');
      },
    };
    trickleMayEnd = false;
    const held = await openUrl(at('/trickle'), undefined, { ...base, account: 'acct_a', stallMs: 30_000 });
    // Whatever fails below, the slow answer ends and its reading is awaited.
    const ended = read(held.stream).then(
      (bytes) => bytes.length,
      () => -1,
    );
    try {
      await assert.rejects(
        openUrl(at('/files/plan.pdf'), undefined, { ...base, account: 'acct_a', stallMs: 300 }),
        (err: { code?: string; message: string }) => {
          assert.equal(err.code, 'fetch_failed');
          assert.match(
            err.message,
            /this account's other fetches from 127\.0\.0\.1 kept its 1 connections busy for 0\.3 s/,
          );
          return true;
        },
      );
      const other = await openUrl(at('/files/plan.pdf'), undefined, { ...base, account: 'acct_b', stallMs: 30_000 });
      assert.deepEqual(await read(other.stream), doc);
    } finally {
      trickleMayEnd = true;
    }
    assert.ok((await ended) > doc.length, 'the slow answer was read whole');
    agents.destroy();
  });
});
