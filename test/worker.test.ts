// The split deployment (decisions/0012): `lightbox serve` with JOBS=false answers the API and runs
// no background job; `lightbox worker` runs them without HTTP. Real processes on one database
// (SQLite by default, a fresh PostgreSQL database when DATABASE_URL says so), a receiver on
// 127.0.0.1 verifying the delivery with `standardwebhooks`, both stopped with SIGTERM. Each serves
// Prometheus' /metrics on its own METRICS_PORT, and the public port does not.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { blockedConnections, systemLookups } from './support/loopback-receivers.ts';
import {
  createAccountKey,
  freePort,
  logLines,
  startLightbox,
  startProcessSuite,
  waitForHealthy,
  type LightboxProcess,
  type ProcessSuite,
} from './support/process-helpers.ts';
import { verifyingReceiver, type VerifyingReceiver } from './support/webhooks.ts';

let suite: ProcessSuite;
let receiver: VerifyingReceiver;
const secrets: string[] = [];

const env = (): Record<string, string> => suite.env({ WEBHOOK_ALLOW_PRIVATE: 'true' });

before(async () => {
  suite = await startProcessSuite('lightbox-worker-', 'info');
  receiver = await verifyingReceiver(() => secrets);
});

after(async () => {
  await suite.stop();
  await receiver.close();
  assert.deepEqual(systemLookups, []);
  assert.deepEqual(blockedConnections, []);
});

async function stopped(p: LightboxProcess): Promise<number | null> {
  p.child.kill('SIGTERM');
  return (await p.exited).code;
}

async function scrape(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${String(port)}/metrics`);
  assert.equal(res.status, 200);
  return res.text();
}

void test(
  'an API node with JOBS=false sends nothing; a lightbox worker beside it sends the deliveries',
  { timeout: 90_000 },
  async () => {
    const email = 'owner@worker.test';
    const key = await createAccountKey(env(), { email, name: 'Worker Studio' }, 'worker');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const [apiMetrics, workerMetrics] = [await freePort(), await freePort()];
    const api = startLightbox(['serve'], {
      ...env(),
      PORT: String(port),
      HOST: '127.0.0.1',
      JOBS: 'false',
      METRICS_PORT: String(apiMetrics),
    });
    let worker: LightboxProcess | undefined;
    try {
      await waitForHealthy(base, api, 30_000);
      const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const made = await fetch(`${base}/v1/webhook_endpoints`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ url: receiver.url(), events: ['client.created'] }),
      });
      assert.equal(made.status, 201, await made.clone().text());
      secrets.push(((await made.json()) as { secret: string }).secret);
      const client = await fetch(`${base}/v1/clients`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ name: 'Split Client', email: 'split@worker.test' }),
      });
      assert.equal(client.status, 201);
      const clientId = ((await client.json()) as { id: string }).id;
      // Several of the serve process's delivery polls: nothing is sent by an API node.
      await sleep(1500);
      assert.equal(receiver.received.length, 0);

      // The API node's requests on its metrics port; none on the public one.
      const scraped = await scrape(apiMetrics);
      assert.match(scraped, /^lightbox_http_requests_total\{method="POST",route="\/v1\/clients",status="201"\} 1$/m);
      assert.match(scraped, /^# TYPE lightbox_jobs_due gauge$/m);
      assert.equal((await fetch(`${base}/metrics`)).status, 404);

      worker = startLightbox(['worker'], { ...env(), METRICS_PORT: String(workerMetrics) });
      for (let i = 0; i < 300 && receiver.verified.length === 0; i += 1) await sleep(100);
      assert.deepEqual(receiver.rejected, []);
      assert.deepEqual(
        receiver.events().map((e) => [e.type, e.data.object.id]),
        [['client.created', clientId]],
      );
      assert.ok(
        logLines(worker).some((l) => String(l.msg).startsWith('worker ready')),
        worker.stdout(),
      );
      // The worker counts the delivery once its outcome is committed.
      const delivered = /^lightbox_webhook_deliveries_total\{outcome="succeeded"\} 1$/m;
      for (let i = 0; i < 100 && !delivered.test(await scrape(workerMetrics)); i += 1) await sleep(100);
      assert.match(await scrape(workerMetrics), delivered);
      assert.equal(await stopped(worker), 0, worker.stderr());
      assert.ok(logLines(worker).some((l) => l.msg === 'stopped'));
      assert.equal(await stopped(api), 0, api.stderr());
    } finally {
      worker?.child.kill('SIGKILL');
      api.child.kill('SIGKILL');
    }
  },
);

void test('a bad setting stops lightbox worker with exit 1, naming it; JOBS must be true or false', async () => {
  const worker = startLightbox(['worker'], { ...env(), WEBHOOK_CONCURRENCY: 'many' });
  assert.equal((await worker.exited).code, 1);
  assert.match(worker.stderr(), /WEBHOOK_CONCURRENCY/);
  const serve = startLightbox(['serve'], { ...env(), JOBS: 'sometimes' });
  assert.equal((await serve.exited).code, 1);
  assert.match(serve.stderr(), /JOBS/);
});
