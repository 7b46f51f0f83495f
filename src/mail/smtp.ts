import nodemailer from 'nodemailer';
import type { Mailer } from './mailer.ts';

/** SMTP with bounded waits, so a hung server turns into a retry rather than a stuck worker. */
export function createSmtpMailer(url: string): Mailer {
  const transport = nodemailer.createTransport(url, {
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 60_000,
    dnsTimeout: 10_000,
  } as never);
  return {
    kind: 'smtp',
    async send(message) {
      const info = (await transport.sendMail({ ...message })) as { response?: string };
      return { detail: info.response ?? 'accepted' };
    },
    close: () => transport.close(),
  };
}
