// The emails Lightbox writes, as plain text and HTML: the gallery-assigned email to a client (its
// own file, assignment-email.ts), and the password reset link to a studio's owner. Every
// interpolated value is escaped in the HTML: a studio, client or gallery field can never inject markup.
import { escapeHtml } from '../lib/html-escape.ts';
import { oneLine } from './assignment-email.ts';

export { oneLine, renderAssignmentEmail, senderDisplayName } from './assignment-email.ts';

export interface PasswordResetEmail {
  /** The account's studio name: the owner may run more than one studio. */
  studioName: string;
  /** The single-use link (PUBLIC_URL/dashboard/reset-password?token=...). */
  resetUrl: string;
  validMinutes: number;
}

/**
 * The "Forgot password?" email to a studio's owner: the studio, the link and how long it works.
 * Nothing else about the account, and the link is its only secret.
 */
export function renderPasswordResetEmail(email: PasswordResetEmail): { subject: string; text: string; html: string } {
  const subject = oneLine(`Reset your Lightbox password for ${email.studioName}`);
  const validity = `The link works once, within ${email.validMinutes} minutes.`;
  const ignore = 'If you did not ask for it, ignore this email: your password stays as it is.';
  const text = [
    'Hello,',
    '',
    `Someone asked to reset the password of the Lightbox dashboard for ${email.studioName}.`,
    'To choose a new password, open this link:',
    '',
    email.resetUrl,
    '',
    `${validity} ${ignore}`,
    '',
    '— Lightbox',
    '',
  ].join('\n');
  const url = escapeHtml(email.resetUrl);
  const html = `<!doctype html>
<html><body style="font-family:system-ui,sans-serif;color:#222">
<p>Hello,</p>
<p>Someone asked to reset the password of the Lightbox dashboard for ${escapeHtml(email.studioName)}.</p>
<p><a href="${url}" style="display:inline-block;padding:10px 16px;background:#1f5f8b;color:#fff;text-decoration:none;border-radius:6px">Choose a new password</a></p>
<p>Or copy this link into your browser:<br>${url}</p>
<p>${escapeHtml(validity)} ${escapeHtml(ignore)}</p>
<p>&mdash; Lightbox</p>
</body></html>
`;
  return { subject, text, html };
}
