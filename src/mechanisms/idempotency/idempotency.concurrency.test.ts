// 50 concurrent POSTs with one Idempotency-Key, over real HTTP on real sockets: exactly one
// gallery is created; every other answer is the replay of its response or 409 conflict.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { listeningAccount, type TestAccount, type TestContext } from '../../../test/support/test-app.ts';

let ctx: TestContext;
let account: TestAccount;
let port = 0;

before(async () => {
  ({ ctx, account, port } = await listeningAccount());
});
after(() => ctx.close());

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function post(agent: http.Agent, path: string, headers: Record<string, string>, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: '127.0.0.1',
        port,
        method: 'POST',
        path,
        headers: { ...headers, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function galleries(): Promise<{ id: string; address: string }[]> {
  return ctx.deps.db.kysely
    .selectFrom('listings')
    .select(['id', 'address'])
    .where('account_id', '=', account.accountId)
    .execute();
}

void test('50 concurrent POSTs with one Idempotency-Key create exactly one gallery', { timeout: 60_000 }, async () => {
  // One socket per request, all opened at once.
  const agent = new http.Agent({ keepAlive: false, maxSockets: 100 });
  const headers = { authorization: `Bearer ${account.key}`, 'idempotency-key': 'concurrent-create-1' };
  const body = JSON.stringify({ address: '50 Concurrent Way', beds: 3 });
  const answers = await Promise.all(Array.from({ length: 50 }, () => post(agent, '/v1/listings', headers, body)));
  agent.destroy();

  const stored = await galleries();
  assert.equal(stored.length, 1, 'exactly one gallery');
  const [gallery] = stored;

  const firsts = answers.filter((a) => a.status === 201 && a.headers['idempotent-replayed'] === undefined);
  const replays = answers.filter((a) => a.status === 201 && a.headers['idempotent-replayed'] === 'true');
  const conflicts = answers.filter((a) => a.status === 409);
  assert.equal(firsts.length, 1, 'one request ran');
  assert.equal(firsts.length + replays.length + conflicts.length, 50, answers.map((a) => a.status).join(','));
  const created = JSON.parse(firsts[0]!.body) as { id: string };
  assert.equal(created.id, gallery!.id);
  for (const replay of replays) {
    assert.equal(replay.body, firsts[0]!.body);
    assert.equal(replay.headers.location, `/v1/listings/${gallery!.id}`);
  }
  for (const conflict of conflicts) {
    const { error } = JSON.parse(conflict.body) as { error: { code: string; request_id: string } };
    assert.equal(error.code, 'conflict');
    assert.equal(error.request_id, conflict.headers['x-request-id']);
  }
  // The first finished once and for all: a later repeat is its replay.
  const later = await post(new http.Agent(), '/v1/listings', headers, body);
  assert.equal(later.status, 201);
  assert.equal(later.headers['idempotent-replayed'], 'true');
  assert.equal(later.body, firsts[0]!.body);
  assert.equal((await galleries()).length, 1);
});

void test('concurrent POSTs with one key and different bodies: one runs, the rest are 409', async () => {
  const agent = new http.Agent({ keepAlive: false, maxSockets: 100 });
  const headers = { authorization: `Bearer ${account.key}`, 'idempotency-key': 'concurrent-create-2' };
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      post(agent, '/v1/listings', headers, JSON.stringify({ address: `${i} Racing Road` })),
    ),
  );
  agent.destroy();
  const ran = answers.filter((a) => a.status === 201);
  assert.equal(ran.length, 1, answers.map((a) => a.status).join(','));
  assert.equal(ran[0]!.headers['idempotent-replayed'], undefined);
  assert.ok(answers.every((a) => a.status === 201 || a.status === 409));
  const address = (JSON.parse(ran[0]!.body) as { address: string }).address;
  assert.equal((await galleries()).filter((g) => g.address === address).length, 1);
  assert.equal((await galleries()).filter((g) => g.address.endsWith('Racing Road')).length, 1);
});
