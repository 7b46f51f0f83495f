// Two `lightbox serve` processes on one PostgreSQL database, one Redis and one SMTP server behave
// as one service: a key revoked from the command line is refused by both within 5 s; a key
// revoked in node a's dashboard (signed in and posted over real HTTP) is refused by a on the next
// request and by b within 5 s; the rate limits are one budget across both; and their
// notification workers deliver every email once.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { WINDOW_MS } from '../src/http/rate-limit-store.ts';
import { HttpBrowser, textOf } from './support/dashboard-browser.ts';
import { createTestDatabase, isPostgres } from './support/test-app.ts';
import {
  freePort,
  killAll,
  logLines,
  runLightbox,
  startLightbox,
  waitForHealthy,
  type LightboxProcess,
} from './support/process-helpers.ts';
import { TEST_REDIS_URL, redisNamespace, redisUnavailable, type RedisNamespace } from './support/redis-helpers.ts';
import { startSmtpServer, type TestSmtpServer } from './support/smtp-server.ts';

const skip = !isPostgres
  ? 'two nodes share a PostgreSQL database: run with DATABASE_URL=postgres://... (SQLite is one process)'
  : await redisUnavailable();

const PER_KEY = 150;
const PER_ADDRESS = 10;
const EMAILS = 40;

interface Node {
  name: string;
  base: string;
  process: LightboxProcess;
}

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let redis: RedisNamespace;
let smtp: TestSmtpServer;
const dirs: string[] = [];
let nodes: Node[] = [];
let env: Record<string, string> = {};
const email = 'owner@two-nodes.test';
/** The owner's dashboard password: `accounts create` reads it from stdin. */
const password = 'a password';

async function newKey(name: string): Promise<{ key: string; id: string }> {
  const key = (await runLightbox(['keys', 'create', '--account', email, '--name', name], env)).trim();
  const list = await runLightbox(['keys', 'list', '--account', email], env);
  const id = new RegExp(`^(key_\\S+)\\s+${name}\\s`, 'm').exec(list)?.[1];
  assert.ok(id !== undefined, list);
  return { key, id };
}

async function request(
  node: Node,
  method: string,
  url: string,
  key: string | null,
  body?: unknown,
): Promise<{ status: number; headers: Headers; json: any }> {
  const res = await fetch(`${node.base}${url}`, {
    method,
    headers: {
      ...(key === null ? {} : { authorization: `Bearer ${key}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text === '' ? null : JSON.parse(text) };
}

/** How long after `since` the node first refuses the key (401), polling every 100 ms for up to 6 s. */
async function refusedAfter(node: Node, key: string, since: number): Promise<number | undefined> {
  while (Date.now() - since < 6_000) {
    if ((await request(node, 'GET', '/v1/listings', key)).status === 401) return Date.now() - since;
    await sleep(100);
  }
  return undefined;
}

/** Waits for a new window when the current one (on Redis's clock) has under 20 s left. */
async function roomInWindow(): Promise<void> {
  const [seconds, micros] = await redis.client.time();
  const into = (Number(seconds) * 1000 + Math.floor(Number(micros) / 1000)) % WINDOW_MS;
  if (into > WINDOW_MS - 20_000) await sleep(WINDOW_MS - into + 200);
}

describe('two lightbox serve processes on one database', { skip, timeout: 180_000 }, () => {
  before(async () => {
    database = await createTestDatabase();
    redis = redisNamespace('two-nodes');
    smtp = await startSmtpServer('accept');
    for (let i = 0; i < 3; i += 1) dirs.push(await mkdtemp(path.join(os.tmpdir(), 'lightbox-node-')));
    env = {
      ...database.env,
      DATA_DIR: dirs[2]!,
      LOG_LEVEL: 'info',
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: redis.prefix,
      RATE_LIMIT_PER_MINUTE: String(PER_KEY),
      RATE_LIMIT_ADDRESS_PER_MINUTE: String(PER_ADDRESS),
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Lightbox <galleries@two-nodes.test>',
      // Links to 127.0.0.1 in emails to a loopback SMTP server: a start allows that only when told.
      MAIL_ALLOW_LOCAL: 'true',
    };
    // Both start at once on an empty database: the migrations' lock lets one of them migrate.
    const started = await Promise.all(
      ['a', 'b'].map(async (name, i) => {
        const port = await freePort();
        const base = `http://127.0.0.1:${port}`;
        const child = startLightbox(['serve'], {
          ...env,
          DATA_DIR: dirs[i]!,
          PORT: String(port),
          HOST: '127.0.0.1',
        });
        return { name, base, process: child };
      }),
    );
    nodes = started;
    await Promise.all(nodes.map((n) => waitForHealthy(n.base, n.process, 30_000)));
    await runLightbox(['accounts', 'create', '--name', 'Two Nodes Studio', '--email', email], env, `${password}\n`);
  });

  after(async () => {
    killAll();
    await smtp.close();
    await redis.drop();
    await database.drop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  test('a key revoked on the command line is refused by both nodes within 5 s', async (t) => {
    const { key, id } = await newKey('revoked');
    // Both nodes have seen (and cached) the key.
    for (const node of nodes) assert.equal((await request(node, 'GET', '/v1/listings', key)).status, 200);
    await runLightbox(['keys', 'revoke', id], env);
    const revokedAt = Date.now();
    const [a, b] = await Promise.all(nodes.map((node) => refusedAfter(node, key, revokedAt)));
    assert.ok(a !== undefined && b !== undefined, `both nodes refuse the key (a: ${a} ms, b: ${b} ms)`);
    for (const ms of [a, b]) assert.ok(ms <= 5_000, `refused after ${ms} ms`);
    t.diagnostic(`refused by node a after ${a} ms, by node b after ${b} ms`);
  });

  test("a key revoked in node a's dashboard: a refuses it at once, b within 5 s", async (t) => {
    const [a, b] = nodes as [Node, Node];
    const { key, id } = await newKey('revoked-in-dashboard');
    const browser = new HttpBrowser(a.base);
    const signedIn = await browser.signIn(email, password);
    assert.equal(signedIn.status, 303, signedIn.body);
    assert.equal(signedIn.location, '/dashboard');
    const confirm = await browser.get(`/dashboard/settings/api/${id}/revoke`);
    assert.equal(confirm.status, 200, confirm.body);
    assert.match(textOf(confirm.body), /Revoke the key “revoked-in-dashboard”\?/);
    // Both nodes have seen (and cached) the key just before it is revoked.
    for (const node of nodes) assert.equal((await request(node, 'GET', '/v1/listings', key)).status, 200);

    // Timed from before the post: the delay includes the revocation's own round trip.
    const revokedAt = Date.now();
    const revoked = await browser.post(`/dashboard/settings/api/${id}/revoke`, {});
    assert.equal(revoked.status, 303, revoked.body);
    assert.equal(revoked.location, '/dashboard/settings/api?notice=key-revoked');
    assert.equal((await request(a, 'GET', '/v1/listings', key)).status, 401, 'node a refuses the very next request');
    const delay = await refusedAfter(b, key, revokedAt);
    assert.ok(delay !== undefined && delay < 5_000, `node b refused the key after ${delay} ms`);
    t.diagnostic(`revoked in node a's dashboard: refused by node b after ${delay} ms`);
  });

  test('one rate-limit budget across both nodes: exactly the limit passes, then 429 with Retry-After', async () => {
    const { key } = await newKey('limited');
    await roomInWindow();
    const statuses: number[] = [];
    const answers: Awaited<ReturnType<typeof request>>[] = [];
    // Ten at a time, alternating nodes, past the limit.
    const total = PER_KEY + 20;
    for (let i = 0; i < total; i += 10) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(10, total - i) }, (_, j) =>
          request(nodes[(i + j) % 2]!, 'GET', '/v1/listings', key),
        ),
      );
      answers.push(...batch);
      statuses.push(...batch.map((a) => a.status));
    }
    assert.equal(statuses.filter((s) => s === 200).length, PER_KEY);
    assert.equal(statuses.filter((s) => s === 429).length, total - PER_KEY);
    for (const node of nodes) {
      const res = await request(node, 'GET', '/v1/listings', key);
      assert.equal(res.status, 429);
      assert.equal(res.json.error.code, 'rate_limited');
      const retryAfter = Number(res.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60);
      assert.equal(res.headers.get('ratelimit-remaining'), '0');
      assert.equal(res.headers.get('ratelimit-policy'), `"default";q=${PER_KEY};w=60`);
    }
    // Remaining counted down one budget, whichever node answered.
    const remaining = answers.filter((a) => a.status === 200).map((a) => Number(a.headers.get('ratelimit-remaining')));
    assert.deepEqual(
      [...remaining].sort((x, y) => x - y),
      Array.from({ length: PER_KEY }, (_, i) => i),
    );

    // Requests without a valid key: one budget per address across both nodes as well. The
    // revocation tests above may have spent some of it (their 401s), so count from what is left.
    await roomInWindow();
    const first = await request(nodes[0]!, 'GET', '/v1/listings', null);
    assert.equal(first.status, 401);
    assert.equal(first.headers.get('ratelimit-policy'), `"anonymous";q=${PER_ADDRESS};w=60`);
    const left = Number(first.headers.get('ratelimit-remaining'));
    assert.ok(left >= 1 && left < PER_ADDRESS, String(left));
    const seen: [number, string | null][] = [];
    for (let i = 1; i <= left + 2; i += 1) {
      const res = await request(nodes[i % 2]!, 'GET', '/v1/listings', null);
      seen.push([res.status, res.headers.get('ratelimit-remaining')]);
    }
    assert.deepEqual(seen, [
      ...Array.from({ length: left }, (_, i): [number, string] => [401, String(left - 1 - i)]),
      [429, '0'],
      [429, '0'],
    ]);
  });

  test(`${EMAILS} assignments over both nodes: both workers deliver, every email exactly once`, async (t) => {
    const { key } = await newKey('assigner');
    smtp.reset();
    const pairs = await Promise.all(
      Array.from({ length: EMAILS }, async (_, i) => {
        const node = nodes[i % 2]!;
        const gallery = await request(node, 'POST', '/v1/listings', key, { address: `${i} Twin Street` });
        const client = await request(node, 'POST', '/v1/clients', key, {
          name: `Client ${i}`,
          email: `client${i}@two-nodes.test`,
        });
        assert.equal(gallery.status, 201);
        assert.equal(client.status, 201);
        return {
          galleryId: gallery.json.id as string,
          clientId: client.json.id as string,
          to: client.json.email as string,
        };
      }),
    );
    await Promise.all(
      pairs.map(async ({ galleryId, clientId }, i) => {
        const res = await request(nodes[(i + 1) % 2]!, 'POST', `/v1/clients/${clientId}/listings/${galleryId}`, key);
        assert.equal(res.status, 200);
      }),
    );
    await smtp.waitForReceived(EMAILS, 60_000);
    // A few more polling rounds of both workers: a duplicate would arrive now.
    await sleep(3_000);
    const ids = smtp.received.map((m) => m.messageId);
    assert.equal(smtp.received.length, EMAILS, 'no email sent twice');
    assert.equal(new Set(ids).size, EMAILS);
    assert.deepEqual(smtp.received.flatMap((m) => m.envelopeTo).sort(), pairs.map((p) => p.to).sort());

    const db = new pg.Client({ connectionString: database.env.DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query<{ status: string; attempts: number; n: string }>(
        'select status, attempts, count(*) as n from notifications group by status, attempts',
      );
      assert.deepEqual(rows, [{ status: 'sent', attempts: 1, n: String(EMAILS) }]);
    } finally {
      await db.end();
    }
    const sentBy = nodes.map((n) => logLines(n.process).filter((l) => l.msg === 'notification sent').length);
    assert.equal(
      sentBy.reduce((a, b) => a + b, 0),
      EMAILS,
    );
    t.diagnostic(`emails sent by node a: ${sentBy[0]}, by node b: ${sentBy[1]}`);
  });

  test('both stop on SIGTERM with status 0', async () => {
    for (const node of nodes) node.process.child.kill('SIGTERM');
    for (const node of nodes) {
      const { code } = await node.process.exited;
      assert.equal(code, 0, node.process.stderr());
    }
  });
});
