// The one place a password reset email is sent from. It runs in the background, after the
// "Forgot password?" form has been answered, so neither its time nor its failure shows in the
// answer. When the durable job queue arrives, the whole delivery (issue() in
// password-reset.service.ts: look the email up, store a link, call this) is the natural job: its
// payload is then the email address alone, and no token waits in the queue.
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.ts';
import { renderPasswordResetEmail } from '../../mail/templates.ts';

export interface PasswordResetMessage {
  to: string;
  studioName: string;
  resetUrl: string;
  validMinutes: number;
}

export async function sendPasswordResetEmail(
  { mailer, config }: Pick<Deps, 'mailer' | 'config'>,
  message: PasswordResetMessage,
): Promise<void> {
  const { subject, text, html } = renderPasswordResetEmail(message);
  const host = new URL(config.publicUrl).hostname || 'lightbox.local';
  await mailer.send({
    messageId: `<reset-${randomUUID()}@${host}>`,
    // From Lightbox itself (MAIL_FROM), not a studio: it is the service writing to its user.
    from: {
      name: config.mail.from.name === '' ? 'Lightbox' : config.mail.from.name,
      address: config.mail.from.address,
    },
    to: message.to,
    subject,
    text,
    html,
  });
}
