import path from 'node:path';
import type { Config } from '../config.ts';
import { createFileMailer } from './file.ts';
import type { Mailer } from './mailer.ts';
import { createSmtpMailer } from './smtp.ts';

export function createMailer(config: Config): Mailer {
  return config.mail.smtpUrl === undefined
    ? createFileMailer(path.join(config.dataDir, 'outbox'))
    : createSmtpMailer(config.mail.smtpUrl);
}
