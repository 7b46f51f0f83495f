// The gallery-assigned email, as plain text and HTML. Every interpolated value is escaped in
// the HTML: a studio, client or gallery field can never inject markup.
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
<p>&mdash; ${escapeHtml(signature)}</p>
</body></html>
`;
  return { subject, text, html };
}

export { oneLine };
