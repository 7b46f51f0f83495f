// GET /metrics (src/mechanisms/metrics/) as Prometheus scrapes it, on its own listener, after real
// work: API requests, jobs on the queue, a webhook delivered to a receiver on 127.0.0.1, an email
// written by the mailer, a storage write that failed. The text is parsed line by line against the
// exposition format, and deploy/grafana-dashboard.json may only query series found in it.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { startJobs } from '../src/jobs.ts';
import { startMetricsServer, type MetricsServer } from '../src/mechanisms/metrics/metrics.server.ts';
import { startReceiver, type Receiver } from './support/loopback-receivers.ts';
import { assign, newClient, newGallery, notificationRows } from './support/notification-helpers.ts';
import { call, createAccount, createTestContext, type TestAccount, type TestContext } from './support/test-app.ts';
import { createEndpoint, listDeliveries, quietLog } from './support/webhooks.ts';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = `[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\["\\\\n])*"`;
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL})(?:,${LABEL})*)?,?\\})? (\\S+)(?: -?\\d+)?$`);

/** Prometheus' text format (0.0.4), strictly: every line a comment of its grammar or a sample. */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  assert.ok(text.endsWith('\n'), 'the exposition ends with a newline');
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue;
    const type = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`).exec(line);
    if (type !== null) {
      assert.ok(!types.has(type[1]!), `${type[1]!} is typed twice`);
      types.set(type[1]!, type[2]!);
      continue;
    }
    if (line.startsWith('# HELP ')) continue;
    const match = SAMPLE.exec(line);
    assert.ok(match !== null, `not a sample line: ${line}`);
    const labels = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    const value = match[3] === '+Inf' ? Infinity : match[3] === '-Inf' ? -Infinity : Number(match[3]);
    assert.ok(!Number.isNaN(value) || match[3] === 'NaN', `not a value: ${line}`);
    samples.push({ name: match[1]!, labels, value });
  }
  return { samples, types };
}

let ctx: TestContext;
let me: TestAccount;
let receiver: Receiver;
let server: MetricsServer;

async function scrape(): Promise<{ samples: Sample[]; types: Map<string, string>; contentType: string }> {
  const res = await fetch(`http://127.0.0.1:${String(server.port)}/metrics`);
  assert.equal(res.status, 200);
  return { ...parseExposition(await res.text()), contentType: res.headers.get('content-type') ?? '' };
}

/** Polls `check` until it holds: the runners poll the queue every second, on a machine that may be busy. */
async function eventually(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, 'the condition never held');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const valueOf = (samples: Sample[], name: string, labels: Record<string, string>): number | undefined =>
  samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

before(async () => {
  ctx = await createTestContext({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  me = await createAccount(ctx);
  receiver = await startReceiver((_req, res) => res.writeHead(204).end());
  server = await startMetricsServer(ctx.deps.metrics, { host: '127.0.0.1', port: 0 });
});
after(async () => {
  await server.close();
  await receiver.close();
  await ctx.close();
});

describe('GET /metrics', () => {
  let exported: { samples: Sample[]; types: Map<string, string> };

  test('answers in the text format with requests by route, the queue by kind, webhook, email and storage outcomes', async () => {
    // Requests: three of one route, by its pattern; one no route answers.
    const gallery = await newGallery(ctx, me);
    for (let i = 0; i < 3; i += 1)
      assert.equal((await call(ctx, 'GET', `/v1/listings/${gallery.id}`, { key: me.key })).statusCode, 200);
    assert.equal((await call(ctx, 'GET', '/v1/no-such-thing/1', { key: me.key })).statusCode, 404);

    // Work for the queue: a webhook endpoint, a gallery (its event), a client assigned (an email).
    const endpoint = await createEndpoint(ctx, me, { url: receiver.url() });
    const listing = await newGallery(ctx, me, { address: '2 Quay Street' });
    const client = await newClient(ctx, me);
    await assign(ctx, me, client.id, listing.id);

    const queued = await scrape();
    assert.match(queued.contentType, /^text\/plain; version=0\.0\.4/);
    assert.equal(queued.types.get('lightbox_jobs_queued'), 'gauge');
    assert.equal(valueOf(queued.samples, 'lightbox_jobs_queued', { kind: 'notification.send' }), 1);
    assert.equal(valueOf(queued.samples, 'lightbox_jobs_due', { kind: 'notification.send' }), 1);
    const age = valueOf(queued.samples, 'lightbox_jobs_oldest_age_seconds', { kind: 'notification.send' });
    assert.ok(age !== undefined && age >= 0 && age < 60, String(age));

    // A storage write whose body fails: the storage rejects it, and it is counted.
    const broken = new Readable({
      read() {
        this.destroy(new Error('the upload was cut off'));
      },
    });
    await assert.rejects(ctx.deps.storage.put('metrics-test/broken', broken, { contentType: 'image/jpeg' }), /cut off/);
    // A missing key is an answer, not a storage error.
    await assert.rejects(ctx.deps.storage.get('metrics-test/absent'), { name: 'StorageNotFoundError' });

    // The jobs as `serve` runs them, until the webhook is delivered and the email sent.
    let delivered = 0;
    const jobs = startJobs(ctx.deps, ctx.services, quietLog);
    try {
      await eventually(async () => {
        const deliveries = await listDeliveries(ctx, me, endpoint.id);
        const emails = await notificationRows(ctx, listing.id);
        delivered = deliveries.length;
        return (
          deliveries.length > 0 &&
          deliveries.every((d) => d.status === 'succeeded') &&
          emails.length === 1 &&
          emails[0]!.status === 'sent'
        );
      });
    } finally {
      await jobs.stop();
    }

    const { samples, types } = await scrape();
    // Series of both scrapes: the queue's gauges have no sample once the queue is empty.
    exported = { samples: [...queued.samples, ...samples], types };
    const route = { method: 'GET', route: '/v1/listings/:id' };
    assert.equal(valueOf(samples, 'lightbox_http_requests_total', { ...route, status: '200' }), 3);
    assert.equal(valueOf(samples, 'lightbox_http_request_duration_seconds_count', route), 3);
    assert.equal(valueOf(samples, 'lightbox_http_request_duration_seconds_bucket', { ...route, le: '+Inf' }), 3);
    assert.equal(types.get('lightbox_http_request_duration_seconds'), 'histogram');
    const unmatched = { method: 'GET', route: 'unmatched', status: '404' };
    assert.equal(valueOf(samples, 'lightbox_http_requests_total', unmatched), 1);
    // No series carries a raw URL (an id would make a series of its own).
    assert.ok(!samples.some((s) => (s.labels.route ?? '').includes(gallery.id)));

    assert.equal(valueOf(samples, 'lightbox_webhook_deliveries_total', { outcome: 'succeeded' }), delivered);
    assert.equal(receiver.received.length, delivered);
    assert.equal(valueOf(samples, 'lightbox_emails_total', { outcome: 'sent' }), 1);
    assert.equal(valueOf(samples, 'lightbox_storage_errors_total', { operation: 'put' }), 1);
    assert.equal(valueOf(samples, 'lightbox_storage_errors_total', { operation: 'get' }), undefined);
    // The queue drained: no notification job is left.
    assert.equal(valueOf(samples, 'lightbox_jobs_queued', { kind: 'notification.send' }), undefined);
    // The process's own series, under the same prefix.
    assert.ok((valueOf(samples, 'lightbox_process_resident_memory_bytes', {}) ?? 0) > 0);
  });

  test('answers nothing but /metrics', async () => {
    const other = await fetch(`http://127.0.0.1:${String(server.port)}/v1/listings`);
    assert.equal(other.status, 404);
    const post = await fetch(`http://127.0.0.1:${String(server.port)}/metrics`, { method: 'POST' });
    assert.equal(post.status, 404);
  });

  test('deploy/grafana-dashboard.json queries only series the app exports', async () => {
    const dashboard = JSON.parse(
      await readFile(new URL('../deploy/grafana-dashboard.json', import.meta.url), 'utf8'),
    ) as {
      panels: { title: string; targets?: { expr: string }[] }[];
    };
    const names = new Set(exported.samples.map((s) => s.name));
    const queries = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ title: p.title, expr: t.expr })));
    assert.ok(queries.length >= 8, `only ${String(queries.length)} queries`);
    const used = new Set<string>();
    for (const { title, expr } of queries) {
      const series = [...expr.matchAll(/\blightbox_[a-z0-9_]+/g)].map((m) => m[0]);
      assert.ok(series.length > 0, `${title}: ${expr} names no lightbox series`);
      for (const name of series) {
        assert.ok(names.has(name), `${title}: ${name} is not a series the app exports`);
        used.add(name);
      }
    }
    // Every kind of series the issue asks for has a panel.
    for (const name of [
      'lightbox_http_requests_total',
      'lightbox_http_request_duration_seconds_bucket',
      'lightbox_jobs_due',
      'lightbox_jobs_oldest_age_seconds',
      'lightbox_webhook_deliveries_total',
      'lightbox_emails_total',
      'lightbox_storage_errors_total',
    ])
      assert.ok(used.has(name), `no panel shows ${name}`);
  });
});
