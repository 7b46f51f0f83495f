import path from 'node:path';
import type { Config } from '../config.ts';
import { createFileMailer } from './file.ts';
import type { Mailer } from './mailer.ts';
import { createSmtpMailer } from './smtp.ts';

/** The folder the embedded default writes each email to, as an .eml file (no SMTP_URL). */
export const outboxPath = (config: Config): string => path.join(config.dataDir, 'outbox');

/** Where test mode's emails go, whatever the mailer (docs/api.md §20): never to SMTP. */
const testOutboxPath = (config: Config): string => path.join(outboxPath(config), 'test');

export function createMailer(config: Config): Mailer {
  const { smtpUrl } = config.mail;
  return smtpUrl === undefined ? createFileMailer(outboxPath(config)) : createSmtpMailer(smtpUrl);
}

/**
 * The mailer for one account's email: the service's own, or for a test account (one with a live
 * account, docs/api.md §20) the outbox/test folder, whatever SMTP_URL says.
 */
export function mailerForMode(config: Config, mailer: Mailer): (account: { live_account_id: string | null }) => Mailer {
  const testMailer = createFileMailer(testOutboxPath(config));
  return (account) => (account.live_account_id === null ? mailer : testMailer);
}

/** The longest wait between two tries of an email. */
const MAX_RETRY_DELAY_MS = 60 * 60_000;

/**
 * When an email's n-th failed try is tried again (every email job: the client's, the studio's):
 * MAIL_RETRY_BASE_SECONDS·2^(n-1), capped at an hour, then 50-100% of it (jitter; `random` in
 * [0, 1), fixed in tests).
 */
export function mailRetryDelay(config: Config, random: () => number = Math.random): (attempts: number) => number {
  const baseMs = config.mail.retryBaseSeconds * 1000;
  return (attempts) => {
    const ceiling = Math.min(baseMs * 2 ** Math.max(0, attempts - 1), MAX_RETRY_DELAY_MS);
    return Math.round(ceiling * (0.5 + random() / 2));
  };
}
