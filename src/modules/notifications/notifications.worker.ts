// Delivers the outbox: claims due notifications, renders and sends them, records the outcome.
// Safe with several processes on one PostgreSQL database (claims skip each other's rows).
import type { Deps } from '../../deps.ts';
import { classifySendError } from '../../mail/mailer.ts';
import { oneLine, renderAssignmentEmail, senderDisplayName } from '../../mail/templates.ts';
import { notificationsMoved } from '../counts/counters.ts';
import { addCounts } from '../counts/counts.repository.ts';
import * as repo from './notifications.repository.ts';
import { isoAt } from '../../lib/clock.ts';
import type { Log } from '../../lib/log.ts';

/** Longer than any one send can take (SMTP timeouts are at most a minute). */
const CLAIM_LEASE_MS = 5 * 60_000;
/**
 * A batch is sent one by one; a send may start only while this much of the lease is left (more
 * than one send can take: 15 s to connect, 15 s to the greeting, 60 s of silence at most).
 * Past that, another worker may claim the rest again once the lease ends, so it is left to them.
 */
const SEND_MARGIN_MS = 2 * 60_000;
const BATCH = 10;
const MAX_DELAY_MS = 60 * 60_000;

export interface WorkerOptions {
  pollMs?: number;
  /** Random in [0, 1); tests pass a fixed one. */
  random?: () => number;
}

export type NotificationWorker = ReturnType<typeof createNotificationWorker>;

export function createNotificationWorker(
  { db, clock, config, mailer }: Pick<Deps, 'db' | 'clock' | 'config' | 'mailer'>,
  log: Log,
  options: WorkerOptions = {},
) {
  const pollMs = options.pollMs ?? 1000;
  const random = options.random ?? Math.random;
  const retryWindowMs = config.mail.retryHours * 3_600_000;
  const baseMs = config.mail.retryBaseSeconds * 1000;

  /** Exponential backoff with jitter: attempt n waits base·2^(n-1), capped, then 50-100% of it. */
  const backoff = (attempts: number): number => {
    const ceiling = Math.min(baseMs * 2 ** Math.max(0, attempts - 1), MAX_DELAY_MS);
    return Math.round(ceiling * (0.5 + random() / 2));
  };

  // A status change and its count change commit together.
  async function finish(row: repo.NotificationRow, status: 'failed' | 'cancelled', error: string, at: string) {
    await db.kysely.transaction().execute(async (trx) => {
      if (await repo.markFinal(trx, row, status, error, at)) {
        await addCounts(trx, row.account_id, notificationsMoved('queued', status));
      }
    });
  }

  async function sent(row: repo.NotificationRow, at: string): Promise<void> {
    await db.kysely.transaction().execute(async (trx) => {
      const from = await repo.markSent(trx, row.id, at);
      if (from !== undefined) await addCounts(trx, row.account_id, notificationsMoved(from, 'sent'));
    });
  }

  async function deliver(row: repo.NotificationRow): Promise<void> {
    // Cancelled (client deleted, gallery unassigned or deleted) or taken over since the claim.
    if (!(await repo.stillClaimed(db.kysely, row))) return;
    const ctx = await repo.loadEmailContext(db.kysely, row);
    const now = clock.now();
    if (ctx.listing === undefined || ctx.account === undefined || ctx.client === undefined) {
      const gone = ctx.client === undefined ? 'the client no longer exists' : 'the gallery no longer exists';
      await finish(row, 'cancelled', gone, isoAt(now));
      return;
    }
    // The studio's name in the subject and text; its sender name (if set) signs and sends it.
    const senderName = senderDisplayName(ctx.account.name, ctx.account.sender_name);
    const email = renderAssignmentEmail({
      studioName: ctx.account.name,
      senderName,
      clientName: ctx.client.name,
      address: ctx.listing.address,
      beds: ctx.listing.beds,
      baths: ctx.listing.baths,
      sqft: ctx.listing.sqft,
      photos: ctx.photos,
      videos: ctx.videos,
      documents: ctx.documents,
    });
    let detail: string;
    try {
      ({ detail } = await mailer.send({
        messageId: row.message_id,
        // A header value is one line, whatever the studio name holds (accounts create allows breaks).
        from: { name: oneLine(senderName), address: config.mail.from.address },
        to: row.to_email,
        ...email,
      }));
    } catch (err) {
      const failure = classifySendError(err);
      const at = clock.now();
      const expired = at - Date.parse(row.created_at) >= retryWindowMs;
      if (!failure.transient || expired) {
        const reason = failure.transient
          ? `gave up after ${config.mail.retryHours} h: ${failure.reason}`
          : failure.reason;
        await finish(row, 'failed', reason, isoAt(at));
        log.warn({ notification_id: row.id, attempts: row.attempts, reason }, 'notification failed');
      } else {
        const next = at + backoff(row.attempts);
        await repo.markRetry(db.kysely, row, isoAt(next), failure.reason, isoAt(at));
        log.info(
          { notification_id: row.id, attempts: row.attempts, retry_at: isoAt(next) },
          'notification will be retried',
        );
      }
      return;
    }
    await sent(row, isoAt(clock.now()));
    // Never the body: only what identifies the message.
    log.info({ notification_id: row.id, message_id: row.message_id, mailer: mailer.kind, detail }, 'notification sent');
  }

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = true;
  /** Set by stop(): no new send starts, and claimed rows not yet sent are given back. */
  let stopping = false;

  const worker = {
    /** Claims and delivers one batch; returns how many were claimed. */
    async runOnce(): Promise<number> {
      const now = clock.now();
      const leaseEnd = now + CLAIM_LEASE_MS;
      const rows = await repo.claimDue(db.kysely, db.dialect, isoAt(now), isoAt(leaseEnd), BATCH);
      for (const [i, row] of rows.entries()) {
        // Shutting down, or slow sends ate the lease: give the rest back, due now, unsent.
        if (stopping || clock.now() > leaseEnd - SEND_MARGIN_MS) {
          const at = isoAt(clock.now());
          for (const rest of rows.slice(i)) await repo.releaseClaim(db.kysely, rest, at);
          break;
        }
        try {
          await deliver(row);
        } catch (err) {
          // The claim lease brings it back: a fault here delays the email, never loses it.
          log.error({ err, notification_id: row.id }, 'notification delivery fault');
        }
      }
      return rows.length;
    },

    /** Delivers everything due now (tests, and draining). */
    async drain(): Promise<void> {
      while ((await worker.runOnce()) > 0) {
        // keep going while full batches come back
      }
    },

    start(): void {
      if (!stopped) return;
      stopped = false;
      const tick = (): void => {
        running = worker
          .runOnce()
          .then((claimed) => claimed)
          .catch((err: unknown) => {
            log.error({ err }, 'notification worker fault');
            return 0;
          })
          .then((claimed) => {
            if (!stopped) timer = setTimeout(tick, claimed === BATCH ? 0 : pollMs);
          });
      };
      tick();
    },

    /** Stops claiming; waits (at most `timeoutMs`) for a send in flight to finish. */
    async stop(timeoutMs = 10_000): Promise<void> {
      stopped = true;
      stopping = true;
      if (timer !== undefined) clearTimeout(timer);
      let timeout: NodeJS.Timeout | undefined;
      await Promise.race([
        running,
        new Promise<void>((resolve) => {
          timeout = setTimeout(resolve, timeoutMs);
        }),
      ]);
      clearTimeout(timeout);
    },
  };
  return worker;
}
