// The `selection.email` job (docs/api.md §25): queued in the transaction that records a client's
// selection, it emails the studio (the account's email) the gallery, the chosen files and the note.
// On the durable queue like the client's emails (notifications.worker.ts): nothing is lost in a
// crash, transient failures are retried with exponential backoff for MAIL_RETRY_HOURS, a 5xx
// reply gives up, and the Message-ID (from the job's id) stays the same across retries.
import type { Deps } from '../../deps.ts';
import type { Log } from '../../lib/log.ts';
import { classifySendError } from '../../mail/mailer.ts';
import { mailerForMode, mailRetryDelay } from '../../mail/index.ts';
import { oneLine } from '../../mail/templates.ts';
import { renderSelectionEmail } from '../../mail/selection-email.ts';
import { finishJob, holdsLease, retryJob, type ClaimedJob } from '../../mechanisms/queue/queue.ts';
import type { JobHandler } from '../../mechanisms/queue/queue.runner.ts';
import { isoAt } from '../../lib/clock.ts';
import { selectionForEmail } from './selection-email.repository.ts';

/**
 * How long after a press of "Send selection" the studio's email goes. Presses meanwhile join it (it
 * reads the selection when it runs), so a link sends one email at most every so often, the latest.
 */
export const SELECTION_EMAIL_DELAY_MS = 2 * 60_000;

const LEASE_MS = 5 * 60_000;
const SEND_MARGIN_MS = 2 * 60_000;

export function selectionEmailHandler(
  { db, clock, config, mailer }: Pick<Deps, 'db' | 'clock' | 'config' | 'mailer'>,
  log: Log,
  random: () => number = Math.random,
): JobHandler {
  const retryWindowMs = config.mail.retryHours * 3_600_000;
  const host = new URL(config.publicUrl).hostname || 'lightbox.local';
  const senderFor = mailerForMode(config, mailer);
  const backoff = mailRetryDelay(config, random);

  async function run(job: ClaimedJob): Promise<void> {
    const accountId = job.account_id ?? '';
    const selection = await selectionForEmail(db.kysely, accountId, job.subject_id);
    // The gallery was unassigned or deleted since (or its client is gone): nobody's selection now.
    if (selection === undefined) {
      await finishJob(db.kysely, job);
      log.info({ job_id: job.id, listing_id: job.subject_id }, 'selection email dropped: the link is gone');
      return;
    }
    if (!(await holdsLease(db.kysely, job))) return;
    const email = renderSelectionEmail({
      studioName: selection.account.name,
      clientName: selection.sender_name,
      clientEmail: selection.sender_email,
      comments: selection.comments,
      address: selection.address,
      files: selection.files,
      note: selection.favorites_note,
      submittedAt: selection.favorites_submitted_at,
      dashboardUrl: `${config.publicUrl.replace(/\/+$/, '')}/dashboard#assignments`,
    });
    try {
      // Test mode (docs/api.md §20): the studio's copy of a test selection goes to outbox/test.
      await senderFor(selection.account).send({
        messageId: `<selection-${job.id}@${host}>`,
        // Lightbox writing to its user, as the password reset does; replies reach the client.
        from: {
          name: config.mail.from.name === '' ? 'Lightbox' : config.mail.from.name,
          address: config.mail.from.address,
        },
        // Replies reach the client (or the share link's recipient, when it has one).
        ...(selection.sender_email === null
          ? {}
          : { replyTo: { name: oneLine(selection.sender_name), address: selection.sender_email } }),
        to: selection.account.email,
        ...email,
      });
    } catch (err) {
      const failure = classifySendError(err);
      const attempts = job.attempts + 1;
      const expired = clock.now() - Date.parse(job.created_at) >= retryWindowMs;
      if (!failure.transient || expired) {
        await finishJob(db.kysely, job);
        log.warn(
          { job_id: job.id, listing_id: job.subject_id, attempts, reason: failure.reason },
          'selection email failed',
        );
      } else {
        await retryJob(db.kysely, job, isoAt(clock.now() + backoff(attempts)), failure.reason, clock.iso());
        log.info({ job_id: job.id, attempts }, 'selection email will be retried');
      }
      return;
    }
    await finishJob(db.kysely, job);
    log.info({ job_id: job.id, listing_id: job.subject_id, mailer: mailer.kind }, 'selection email sent');
  }

  return {
    kind: 'selection.email',
    concurrency: 1,
    batch: 5,
    leaseMs: LEASE_MS,
    startMarginMs: SEND_MARGIN_MS,
    run,
    faultDelayMs: backoff,
  };
}
