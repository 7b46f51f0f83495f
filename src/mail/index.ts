import path from 'node:path';
import type { Config } from '../config.ts';
import { createFileMailer } from './file.ts';
import type { Mailer } from './mailer.ts';
import { createSmtpMailer } from './smtp.ts';

/** The folder the embedded default writes each email to, as an .eml file (no SMTP_URL). */
export const outboxPath = (config: Config): string => path.join(config.dataDir, 'outbox');

/** Where test mode's emails go, whatever the mailer (docs/api.md §20): never to SMTP. */
export const testOutboxPath = (config: Config): string => path.join(outboxPath(config), 'test');

export function createMailer(config: Config): Mailer {
  const { smtpUrl } = config.mail;
  return smtpUrl === undefined ? createFileMailer(outboxPath(config)) : createSmtpMailer(smtpUrl);
}
