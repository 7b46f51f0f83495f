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

export interface InvitationEmail {
  studioName: string;
  /** Who invited (the owner's email), so the person knows the email is expected. */
  invitedBy: string;
  /** PUBLIC_URL/dashboard/invitations/accept?token=... */
  acceptUrl: string;
  validDays: number;
}

/** docs/api.md §27: the invitation to join a studio's team on its dashboard. */
export function renderInvitationEmail(email: InvitationEmail): { subject: string; text: string; html: string } {
  const subject = oneLine(`You are invited to ${email.studioName} on Lightbox`);
  const validity = `The link works once, within ${email.validDays} days.`;
  const ignore = 'If you did not expect it, ignore this email: nothing happens without you.';
  const text = [
    'Hello,',
    '',
    `${email.invitedBy} invites you to the Lightbox dashboard of ${email.studioName}, to work on its galleries and clients.`,
    'To accept and choose your password, open this link:',
    '',
    email.acceptUrl,
    '',
    `${validity} ${ignore}`,
    '',
    '— Lightbox',
    '',
  ].join('\n');
  const url = escapeHtml(email.acceptUrl);
  const html = `<!doctype html>
<html><body style="font-family:system-ui,sans-serif;color:#222">
<p>Hello,</p>
<p>${escapeHtml(email.invitedBy)} invites you to the Lightbox dashboard of ${escapeHtml(email.studioName)}, to work on its galleries and clients.</p>
<p><a href="${url}" style="display:inline-block;padding:10px 16px;background:#1f5f8b;color:#fff;text-decoration:none;border-radius:6px">Accept the invitation</a></p>
<p>Or copy this link into your browser:<br>${url}</p>
<p>${escapeHtml(validity)} ${escapeHtml(ignore)}</p>
<p>&mdash; Lightbox</p>
</body></html>
`;
  return { subject, text, html };
}
