// Delivers the outbox: the handler of `notification.send` jobs on the durable queue. Renders and
// sends each queued notification, and records the outcome on the notification and the job in one
// transaction, only while the job's lease holds. Safe with several nodes on one database.
import type { Deps } from '../../deps.ts';
import { isoAt } from '../../lib/clock.ts';
import type { Log } from '../../lib/log.ts';
import { classifySendError, type MailMessage } from '../../mail/mailer.ts';
import { mailerForMode, mailRetryDelay } from '../../mail/index.ts';
import { oneLine, renderAssignmentEmail, senderDisplayName } from '../../mail/templates.ts';
import { notificationsMoved } from '../../mechanisms/counts/counters.ts';
import type { Writes } from '../../mechanisms/writes/writes.ts';
import { finishJob, holdsLease, retryJob, withJobOutcome, type ClaimedJob } from '../../mechanisms/queue/queue.ts';
import type { JobHandler } from '../../mechanisms/queue/queue.runner.ts';
import * as repo from './notifications.repository.ts';
import { galleryUrl } from '../listings/listings.serializer.ts';
import { portalUrl } from '../portals/portals.entry.ts';
import { renderInvoiceNotification } from '../invoices/invoices.email.ts';

/** Longer than any one send can take (SMTP timeouts are at most a minute). */
const CLAIM_LEASE_MS = 5 * 60_000;
/**
 * A batch is sent one by one; a send may start only while this much of the lease is left (more
 * than one send can take: 15 s to connect, 15 s to the greeting, 60 s of silence at most).
 * Past that, another worker may claim the rest again once the lease ends, so it is left to them.
 */
const SEND_MARGIN_MS = 2 * 60_000;
const BATCH = 10;

/** The handler of `notification.send` jobs; `random` (in [0, 1), the retries' jitter) is fixed in tests. */
export function notificationHandler(
  { db, clock, config, mailer, writes }: Pick<Deps, 'db' | 'clock' | 'config' | 'mailer'> & { writes: Writes },
  log: Log,
  random: () => number = Math.random,
): JobHandler {
  const retryWindowMs = config.mail.retryHours * 3_600_000;
  const senderFor = mailerForMode(config, mailer);
  const backoff = mailRetryDelay(config, random);

  /** Ends the notification (failed, cancelled) with the job; the status and its count move together. */
  const finish = (job: ClaimedJob, row: repo.NotificationRow, status: 'failed' | 'cancelled', error: string) =>
    withJobOutcome(
      db,
      (trx) => finishJob(trx, job),
      (trx) =>
        writes.within(trx, row.account_id, { now: clock.iso() }, async (w) => {
          const attempted = status === 'failed' ? 1 : 0;
          if (await repo.markFinal(trx, row.id, status, error, attempted, w.now)) {
            // By id: the unit of work loads it as its GET returns it (docs/api.md §15).
            if (status === 'failed') w.announce('notification.failed', row.id);
            w.count(notificationsMoved('queued', status));
          }
        }),
    );

  /** What one notification sends: its words, who it is from, and whose mailer (test mode's or not). */
  interface Outgoing {
    account: { name: string; email: string; live_account_id: string | null };
    senderName: string;
    content: Pick<MailMessage, 'subject' | 'text' | 'html' | 'attachments'>;
  }

  /** The gallery's email (assignment or share link), or undefined once it is recorded as cancelled. */
  async function galleryEmail(job: ClaimedJob, row: repo.NotificationRow): Promise<Outgoing | undefined> {
    const ctx = await repo.loadEmailContext(db.kysely, row);
    const share = row.share_link_id !== null;
    if (ctx.listing === undefined || ctx.account === undefined || (!share && ctx.client === undefined)) {
      await finish(
        job,
        row,
        'cancelled',
        ctx.client === undefined ? 'the client no longer exists' : 'the gallery no longer exists',
      );
      return undefined;
    }
    if (ctx.linkToken === undefined) {
      const why = share ? 'the share link no longer exists' : 'the gallery is no longer assigned to this client';
      await finish(job, row, 'cancelled', why);
      return undefined;
    }
    const galleryLink = galleryUrl(config.publicUrl, ctx.linkToken);
    // The studio's name in the subject and text; its sender name (if set) signs and sends it.
    const senderName = senderDisplayName(ctx.account.name, ctx.account.sender_name);
    const content = renderAssignmentEmail({
      studioName: ctx.account.name,
      senderName,
      // A share link's page and email name no client (docs/api.md §28).
      clientName: share ? null : (ctx.client?.name ?? null),
      address: ctx.listing.address,
      beds: ctx.listing.beds,
      baths: ctx.listing.baths,
      sqft: ctx.listing.sqft,
      description: ctx.listing.description,
      photos: ctx.photos,
      videos: ctx.videos,
      documents: ctx.documents,
      galleryUrl: galleryLink,
      // docs/api.md §28: every assignment email carries the client's portal, below the gallery's link.
      portalUrl: share || ctx.client === undefined ? null : portalUrl(config.publicUrl, ctx.client.portal_token),
      // Served through the link, so it shows without a key (a JPEG: every mail client reads it).
      coverUrl: ctx.hasCover ? `${galleryLink}/cover.jpg` : null,
      coverSize: ctx.coverSize,
    });
    return { account: ctx.account, senderName, content };
  }

  /** docs/api.md §29: an invoice's email or receipt, its PDF attached; undefined once cancelled. */
  async function invoiceEmail(
    job: ClaimedJob,
    row: repo.NotificationRow & { kind: 'invoice' | 'receipt' },
  ): Promise<Outgoing | undefined> {
    const rendered = await renderInvoiceNotification(db.kysely, config.publicUrl, row);
    if ('cancel' in rendered) {
      await finish(job, row, 'cancelled', rendered.cancel);
      return undefined;
    }
    return { account: rendered.account, senderName: rendered.account.sender, content: rendered.content };
  }

  async function run(job: ClaimedJob): Promise<void> {
    const row = await repo.findForDelivery(db.kysely, job.subject_id);
    // Cancelled (client deleted, gallery unassigned or deleted) since it was queued: nothing to send.
    if (row?.status !== 'queued') {
      await finishJob(db.kysely, job);
      return;
    }
    const { kind } = row;
    const outgoing = kind === 'assignment' ? await galleryEmail(job, row) : await invoiceEmail(job, { ...row, kind });
    if (outgoing === undefined) return;
    // Taken over by another worker since the claim (this one's lease ran out): theirs to send.
    if (!(await holdsLease(db.kysely, job))) return;
    const { account, senderName } = outgoing;
    let detail: string;
    try {
      // Test mode (docs/api.md §20): no email leaves the service; it is written to outbox/test.
      const sender = senderFor(account);
      ({ detail } = await sender.send({
        messageId: row.message_id,
        // A header value is one line, whatever the studio name holds (accounts create allows breaks).
        from: { name: oneLine(senderName), address: config.mail.from.address },
        // Replies reach the studio, not the service's sender address.
        replyTo: { name: oneLine(account.name), address: account.email },
        to: row.to_email,
        ...outgoing.content,
      }));
    } catch (err) {
      const failure = classifySendError(err);
      const attempts = job.attempts + 1;
      const expired = clock.now() - Date.parse(row.created_at) >= retryWindowMs;
      if (!failure.transient || expired) {
        const reason = failure.transient
          ? `gave up after ${config.mail.retryHours} h: ${failure.reason}`
          : failure.reason;
        await finish(job, row, 'failed', reason);
        log.warn({ notification_id: row.id, attempts, reason }, 'notification failed');
      } else {
        const next = clock.now() + backoff(attempts);
        await withJobOutcome(
          db,
          (trx) => retryJob(trx, job, isoAt(next), failure.reason, clock.iso()),
          (trx) => repo.recordAttempt(trx, row.id, failure.reason, clock.iso()),
        );
        log.info({ notification_id: row.id, attempts, retry_at: isoAt(next) }, 'notification will be retried');
      }
      return;
    }
    // Sent is the truth, even if the notification was cancelled or the lease lost meanwhile.
    await writes.run(row.account_id, { now: clock.iso() }, async (w) => {
      await finishJob(w.trx, job);
      const from = await repo.markSent(w.trx, row.id, w.now);
      if (from !== undefined) {
        w.announce('notification.sent', row.id);
        w.count(notificationsMoved(from, 'sent'));
      }
    });
    // Never the body: only what identifies the message.
    log.info({ notification_id: row.id, message_id: row.message_id, mailer: mailer.kind, detail }, 'notification sent');
  }

  return {
    kind: 'notification.send',
    concurrency: 1,
    batch: BATCH,
    leaseMs: CLAIM_LEASE_MS,
    startMarginMs: SEND_MARGIN_MS,
    run,
    faultDelayMs: backoff,
  };
}
