// `npm run test:outage`: the notification outbox through a simulated SMTP outage (docs/api.md §8).
//
// A real SMTP server (test/support/smtp-server.ts, smtp-server on 127.0.0.1) starts down. N galleries
// are assigned to N clients through the HTTP API (app.inject) while it refuses connections, then
// answers 421, then 451 (receiving each message and refusing it for now); then it comes back.
// Notification workers run in-process with real timers (two by default, each on its own
// database connection, as two processes would), with MAIL_RETRY_BASE_SECONDS=1. The run ends
// when every notification is delivered or the deadline passes, and reports:
//   delivered   notifications whose email the server accepted
//   duplicates  accepted messages beyond one per notification (same Message-ID twice, or two
//               messages to one notification's recipient)
//   lost        notifications not delivered by the deadline
// Target: N delivered, 0 duplicates, 0 lost. Exit code 1 when missed, 2 on bad arguments.
//
//   node scripts/outage.ts [--count 100] [--workers 2] [--deadline 180] [--phase 3]
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run test:outage   (on PostgreSQL)
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseOrExit, wholeNumberOrExit } from './lib/options.ts';
import { openDatabase, type Db } from '../src/db/database.ts';
import { createSmtpMailer } from '../src/mail/smtp.ts';
import type { Mailer } from '../src/mail/mailer.ts';
import { notificationHandler } from '../src/modules/notifications/notifications.worker.ts';
import { createJobRunner, type JobRunner } from '../src/mechanisms/queue/queue.runner.ts';
import { createServices } from '../src/services.ts';
import { createAccount, createTestContext, type TestContext } from '../test/support/test-app.ts';
import { assign, captureLog, newClient, newGallery } from '../test/support/notification-helpers.ts';
import { startSmtpServer, type TestSmtpServer } from '../test/support/smtp-server.ts';

const HELP = `Usage: node scripts/outage.ts [options]    (npm run test:outage -- [options])

Options:
  --count N       assignments made during the outage (default 100)
  --workers N     notification workers on the same database (default 2)
  --phase S       seconds each of refuse / 421 / 451 lasts at least (default 3)
  --deadline S    seconds after the server comes back before what is undelivered counts as lost (default 180)
  --help
Set DATABASE_URL=postgres://... to run on a fresh PostgreSQL database instead of SQLite.`;

function options(): { count: number; workers: number; phaseMs: number; deadlineMs: number } {
  const values = parseOrExit(HELP, {
    count: { type: 'string', default: '100' },
    workers: { type: 'string', default: '2' },
    phase: { type: 'string', default: '3' },
    deadline: { type: 'string', default: '180' },
    help: { type: 'boolean', default: false },
  });
  const whole = wholeNumberOrExit;
  return {
    count: whole('count', values.count, 1, 10_000),
    workers: whole('workers', values.workers, 1, 16),
    phaseMs: whole('phase', values.phase, 0, 600) * 1000,
    deadlineMs: whole('deadline', values.deadline, 1, 3600) * 1000,
  };
}

interface Counts {
  queued: number;
  sent: number;
  failed: number;
  cancelled: number;
  minAttempts: number;
  maxAttempts: number;
  totalAttempts: number;
}

async function counts(ctx: TestContext): Promise<Counts> {
  const rows = await ctx.deps.db.kysely.selectFrom('notifications').select(['status', 'attempts']).execute();
  const out: Counts = {
    queued: 0,
    sent: 0,
    failed: 0,
    cancelled: 0,
    minAttempts: Infinity,
    maxAttempts: 0,
    totalAttempts: 0,
  };
  for (const row of rows) {
    out[row.status] += 1;
    out.minAttempts = Math.min(out.minAttempts, row.attempts);
    out.maxAttempts = Math.max(out.maxAttempts, row.attempts);
    out.totalAttempts += row.attempts;
  }
  if (rows.length === 0) out.minAttempts = 0;
  return out;
}

/** Waits until `done` holds, checking every 100 ms; false if `ms` pass first. */
async function waitUntil(done: () => Promise<boolean>, ms: number): Promise<boolean> {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    if (await done()) return true;
    await sleep(100);
  }
  return done();
}

async function main(): Promise<number> {
  const opts = options();
  const started = performance.now();
  const elapsed = (): string => `${((performance.now() - started) / 1000).toFixed(1)}s`;
  const say = (line: string): void => {
    process.stderr.write(`[${elapsed()}] ${line}\n`);
  };

  const smtp: TestSmtpServer = await startSmtpServer('refuse');
  const ctx = await createTestContext({ SMTP_URL: smtp.url, MAIL_RETRY_BASE_SECONDS: '1', LOG_LEVEL: 'warn' });
  const extraDbs: Db[] = [];
  const extraMailers: Mailer[] = [];
  const workers: JobRunner[] = [];
  const log = captureLog();
  try {
    say(`${ctx.deps.db.dialect}, SMTP server on port ${smtp.port} refusing connections; ${opts.workers} worker(s)`);
    for (let i = 0; i < opts.workers; i += 1) {
      // Each worker after the first has its own database connection and SMTP transport.
      const db = i === 0 ? ctx.deps.db : openDatabase(ctx.config.database);
      const mailer = i === 0 ? ctx.deps.mailer : createSmtpMailer(smtp.url);
      if (i > 0) {
        extraDbs.push(db);
        extraMailers.push(mailer);
      }
      // A worker process of its own: its own service graph, so its own unit of work.
      const base = { ...ctx.deps, db, mailer };
      const deps = { ...base, writes: i === 0 ? ctx.services.writes : createServices(base).writes };
      const worker = createJobRunner(deps, log, notificationHandler(deps, log), { pollMs: 200 });
      worker.start();
      workers.push(worker);
    }

    const account = await createAccount(ctx, 'Outage Studio');
    for (let i = 0; i < opts.count; i += 1) {
      const gallery = await newGallery(ctx, account, {
        address: `${i + 1} Outage Avenue`,
        beds: 3,
        baths: 2,
        sqft: 1200,
      });
      const client = await newClient(ctx, account, { name: `Client ${i + 1}` });
      await assign(ctx, account, client.id, gallery.id);
    }
    say(`${opts.count} assignments made during the outage`);

    // Refused until every notification has been tried at least once (and for the phase).
    const tried = async (n: number): Promise<boolean> => (await counts(ctx)).minAttempts >= n;
    await sleep(opts.phaseMs);
    await waitUntil(() => tried(1), 60_000);
    say(`refused: ${JSON.stringify(await counts(ctx))}`);
    await smtp.setMode('421');
    await sleep(opts.phaseMs);
    say(`421: ${JSON.stringify(await counts(ctx))}`);
    await smtp.setMode('451');
    await sleep(opts.phaseMs);
    await waitUntil(() => Promise.resolve(smtp.deferred.length >= opts.count), 60_000);
    say(`451: ${JSON.stringify(await counts(ctx))}, ${smtp.deferred.length} messages received and deferred`);

    await smtp.setMode('accept');
    const back = performance.now();
    say('SMTP server back');
    const allSent = await waitUntil(async () => (await counts(ctx)).sent >= opts.count, opts.deadlineMs);
    const recovery = ((performance.now() - back) / 1000).toFixed(1);
    // A little longer, so that a late duplicate would still be seen.
    await sleep(allSent ? 2000 : 0);
    for (const worker of workers) await worker.stop(10_000);

    const final = await counts(ctx);
    const rows = await ctx.deps.db.kysely
      .selectFrom('notifications')
      .select(['id', 'message_id', 'to_email'])
      .execute();
    const byMessageId = new Map<string, number>();
    const byRecipient = new Map<string, number>();
    for (const mail of smtp.received) {
      byMessageId.set(mail.messageId, (byMessageId.get(mail.messageId) ?? 0) + 1);
      for (const to of mail.envelopeTo) byRecipient.set(to.toLowerCase(), (byRecipient.get(to.toLowerCase()) ?? 0) + 1);
    }
    const extra = (m: Map<string, number>): number => [...m.values()].reduce((sum, n) => sum + Math.max(0, n - 1), 0);
    const delivered = rows.filter((r) => (byMessageId.get(r.message_id) ?? 0) > 0).length;
    const duplicates = Math.max(extra(byMessageId), extra(byRecipient));
    const strangers = smtp.received.filter((m) => !rows.some((r) => r.message_id === m.messageId)).length;
    const lost = rows.length - delivered;

    const ok =
      rows.length === opts.count && delivered === opts.count && duplicates === 0 && lost === 0 && strangers === 0;
    const summary = [
      `outage: ${ok ? 'PASS' : 'FAIL'}`,
      `dialect=${ctx.deps.db.dialect}`,
      `workers=${opts.workers}`,
      `assignments=${opts.count}`,
      `delivered=${delivered}`,
      `duplicates=${duplicates}`,
      `lost=${lost}`,
      `status sent=${final.sent} queued=${final.queued} failed=${final.failed} cancelled=${final.cancelled}`,
      `attempts min=${final.minAttempts} max=${final.maxAttempts} total=${final.totalAttempts}`,
      `deferred(451)=${smtp.deferred.length}`,
      `sessions=${smtp.sessions.length}`,
      `recovered_in=${recovery}s`,
      `total=${elapsed()}`,
    ].join(' ');
    process.stdout.write(`${summary}\n`);
    const faults = log.lines.filter((l) => l.level === 'error');
    if (faults.length > 0) say(`${faults.length} worker fault(s), first: ${JSON.stringify(faults[0])}`);
    return ok ? 0 : 1;
  } finally {
    for (const worker of workers) await worker.stop(1000);
    for (const mailer of extraMailers) mailer.close();
    for (const db of extraDbs) await db.destroy();
    await ctx.close();
    await smtp.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`outage: error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
