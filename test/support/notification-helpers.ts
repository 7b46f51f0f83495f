// Helpers for the notification suites and the outage script: galleries, clients and assignments
// made over HTTP, a worker on a clock the test moves, a log that keeps what the worker wrote,
// and the notification rows as stored.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Deps } from '../../src/deps.ts';
import { notificationHandler } from '../../src/modules/notifications/notifications.worker.ts';
import type { NotificationRow } from '../../src/modules/notifications/notifications.repository.ts';
import { call, createTestContext, type TestAccount, type TestContext } from './test-app.ts';
import { startSmtpServer, type TestSmtpServer } from './smtp-server.ts';
import { clockOf, type Clock } from '../../src/lib/clock.ts';
import type { Log } from '../../src/lib/log.ts';
import { createJobRunner, type JobRunner } from '../../src/mechanisms/queue/queue.runner.ts';

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  msg: string;
  obj: object;
}

/** A Log that keeps every line, and their JSON text for "never in a log" checks. */
export function captureLog(): Log & { lines: LogLine[]; text: () => string } {
  const lines: LogLine[] = [];
  const add =
    (level: LogLine['level']) =>
    (obj: object, msg: string): void => {
      lines.push({ level, msg, obj });
    };
  return {
    lines,
    info: add('info'),
    warn: add('warn'),
    error: add('error'),
    text: () => lines.map((l) => `${l.level} ${l.msg} ${JSON.stringify(l.obj)}`).join('\n'),
  };
}

export interface FakeClock {
  clock: Clock;
  now: () => number;
  set: (ms: number) => void;
  advance: (ms: number) => void;
}

export function fakeClock(start = Date.now()): FakeClock {
  let now = start;
  return {
    clock: clockOf(() => now),
    now: () => now,
    set: (ms) => {
      now = ms;
    },
    advance: (ms) => {
      now += ms;
    },
  };
}

/** A worker on the context's database and mailer, and on the given clock (real time by default). */
export function workerOf(
  ctx: TestContext,
  options: {
    clock?: FakeClock;
    log?: Log;
    deps?: Partial<Deps>;
    worker?: { pollMs?: number; random?: () => number };
  } = {},
): JobRunner {
  const deps = {
    ...ctx.deps,
    writes: ctx.services.writes,
    ...(options.clock === undefined ? {} : { clock: options.clock.clock }),
    ...options.deps,
  };
  const log = options.log ?? captureLog();
  // A fixed jitter keeps the steps of a test the same on every run.
  const handler = notificationHandler(deps, log, options.worker?.random ?? (() => 0.5));
  return createJobRunner(deps, log, handler, {
    ...(options.worker?.pollMs === undefined ? {} : { pollMs: options.worker.pollMs }),
  });
}

let serial = 0;
export const uniqueEmail = (local = 'client'): string => {
  serial += 1;
  return `${local}${serial}.${randomBytes(3).toString('hex')}@example.test`;
};

export async function newGallery(ctx: TestContext, account: TestAccount, body: Record<string, unknown> = {}) {
  const res = await call(ctx, 'POST', '/v1/listings', {
    key: account.key,
    body: { address: '1 Harbour Road', ...body },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ id: string; address: string }>();
}

export async function newClient(ctx: TestContext, account: TestAccount, body: Record<string, unknown> = {}) {
  const res = await call(ctx, 'POST', '/v1/clients', {
    key: account.key,
    body: { name: 'Ann Lee', email: uniqueEmail(), ...body },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ id: string; name: string; email: string }>();
}

export async function assign(ctx: TestContext, account: TestAccount, clientId: string, listingId: string) {
  const res = await call(ctx, 'POST', `/v1/clients/${clientId}/listings/${listingId}`, { key: account.key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ id: string; client_id: string }>();
}

/** Notification rows as stored, oldest first; all of them, or those of one gallery. */
export function notificationRows(ctx: TestContext, listingId?: string): Promise<NotificationRow[]> {
  let q = ctx.deps.db.kysely.selectFrom('notifications').selectAll();
  if (listingId !== undefined) q = q.where('listing_id', '=', listingId);
  return q.orderBy('created_at').orderBy('id').execute();
}

export async function notificationRow(ctx: TestContext, id: string): Promise<NotificationRow> {
  return ctx.deps.db.kysely.selectFrom('notifications').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** The earliest next attempt among queued notifications (their jobs' due time), or undefined. */
export async function nextDue(ctx: TestContext): Promise<number | undefined> {
  const row = await ctx.deps.db.kysely
    .selectFrom('jobs')
    .innerJoin('notifications', 'notifications.id', 'jobs.subject_id')
    .select('jobs.run_at')
    .where('jobs.kind', '=', 'notification.send')
    .where('notifications.status', '=', 'queued')
    .orderBy('jobs.run_at')
    .limit(1)
    .executeTakeFirst();
  return row === undefined ? undefined : Date.parse(row.run_at);
}

/** A notification's pending delivery job (due time, lease, finished attempts), if any. */
export function notificationJob(ctx: TestContext, notificationId: string) {
  return ctx.deps.db.kysely
    .selectFrom('jobs')
    .selectAll()
    .where('kind', '=', 'notification.send')
    .where('subject_id', '=', notificationId)
    .executeTakeFirst();
}

/** Makes notifications (all, or some) due at `at` with `attempts` finished, as if just queued. */
export async function setDue(ctx: TestContext, at: string, ids?: string[], attempts?: number): Promise<void> {
  let q = ctx.deps.db.kysely
    .updateTable('jobs')
    .set({ run_at: at, lease: null, ...(attempts === undefined ? {} : { attempts }) })
    .where('kind', '=', 'notification.send');
  if (ids !== undefined) q = q.where('subject_id', 'in', ids);
  await q.execute();
}

/** Forgets every notification and its delivery job, so a test starts with an empty outbox. */
export async function clearOutbox(ctx: TestContext): Promise<void> {
  await ctx.deps.db.kysely.deleteFrom('jobs').where('kind', '=', 'notification.send').execute();
  await ctx.deps.db.kysely.deleteFrom('notifications').execute();
}

export interface SmtpTestContext {
  smtp: TestSmtpServer;
  ctx: TestContext;
  /** Closes the app, then the SMTP server. */
  close(): Promise<void>;
}

/** A test context whose mail goes to a fresh SMTP server on 127.0.0.1, retried after 1 s. */
export async function smtpTestContext(env: Record<string, string> = {}): Promise<SmtpTestContext> {
  const smtp = await startSmtpServer();
  const ctx = await createTestContext({ SMTP_URL: smtp.url, MAIL_RETRY_BASE_SECONDS: '1', ...env });
  return {
    smtp,
    ctx,
    close: async () => {
      await ctx.close();
      await smtp.close();
    },
  };
}

/** Starts a test with an empty outbox and an accepting server that has seen nothing. */
export async function freshMail({ ctx, smtp }: { ctx: TestContext; smtp: TestSmtpServer }): Promise<void> {
  await clearOutbox(ctx);
  await smtp.setMode('accept');
  smtp.reset();
}

/** HTML as a reader sees it: tags dropped, entities decoded, white space collapsed. */
export function visibleText(html: string): string {
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", mdash: '—', nbsp: ' ' };
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(amp|lt|gt|quot|#39|mdash|nbsp);/g, (_m, name: string) => entities[name] ?? '')
    .replace(/\s+/g, ' ')
    .trim();
}
