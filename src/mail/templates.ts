// The emails Lightbox writes, as plain text and HTML: the gallery-assigned email to a client, and
// the password reset link to a studio's owner. Every interpolated value is escaped in the HTML: a
// studio, client or gallery field can never inject markup.
import { escapeHtml } from '../lib/html-escape.ts';

export interface AssignmentEmail {
  /** The account's name: the subject and the text name the studio. */
  studioName: string;
  /** Who signs the email (the studio's sender name, also the From name); the studio name when unset. */
  senderName?: string | null;
  clientName: string;
  address: string;
  beds: number | null;
  baths: number | null;
  sqft: number | null;
  photos: number;
  videos: number;
  documents: number;
  /** PUBLIC_URL/g/<token>: the gallery as the client sees it. */
  galleryUrl: string;
  /** The cover photo as a JPEG served through the link, or null when there is none yet. */
  coverUrl: string | null;
}

/** Header values are single lines: a line break in a field must not start a new header. */
const oneLine = (value: string): string => value.replace(/[\r\n\u2028\u2029]+/g, ' ').trim();

const figure = (value: number | null): string => (value === null ? 'not given' : value.toLocaleString('en-US'));
const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** The From name of a studio's emails: its sender name when set, else its name. */
export const senderDisplayName = (studioName: string, senderName: string | null): string =>
  senderName === null || senderName.trim() === '' ? studioName : senderName;

export function renderAssignmentEmail(email: AssignmentEmail): { subject: string; text: string; html: string } {
  const facts: [string, string][] = [
    ['Address', email.address],
    ['Bedrooms', figure(email.beds)],
    ['Bathrooms', figure(email.baths)],
    ['Square feet', figure(email.sqft)],
    [
      'Media',
      [
        plural(email.photos, 'photo', 'photos'),
        plural(email.videos, 'video', 'videos'),
        plural(email.documents, 'document', 'documents'),
      ].join(', '),
    ],
  ];
  const subject = oneLine(`${email.studioName}: your gallery for ${email.address}`);
  const signature = senderDisplayName(email.studioName, email.senderName ?? null);
  const text = [
    `Hello ${email.clientName},`,
    '',
    `${email.studioName} has shared a gallery with you.`,
    '',
    ...facts.map(([k, v]) => `${k}: ${v}`),
    '',
    'View your gallery:',
    email.galleryUrl,
    '',
    `— ${signature}`,
    '',
  ].join('\n');
  const rows = facts
    .map(
      ([k, v]) =>
        `<tr><th align="left" style="padding:4px 12px 4px 0">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`,
    )
    .join('\n');
  const html = `<!doctype html>
<html><body style="font-family:system-ui,sans-serif;color:#222">
<p>Hello ${escapeHtml(email.clientName)},</p>
<p>${escapeHtml(email.studioName)} has shared a gallery with you.</p>
<table>
${rows}
</table>
<p><a href="${escapeHtml(email.galleryUrl)}">View your gallery</a></p>
<p>&mdash; ${escapeHtml(signature)}</p>
</body></html>
`;
  return { subject, text, html };
}

export { oneLine };

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
