// The email a studio receives when its client, or a share link's visitor, sends a selection of
// favorites (docs/api.md §25, §28): the gallery, who sent it, the chosen files in position order, the
// comments on photos and the note. The same layout as the
// client's email (assignment-email.ts: tables, inline styles, nothing loaded), its colours and
// fonts; every interpolated value is escaped and the plain-text part says everything the HTML says.
import { escapeHtml } from '../lib/html-escape.ts';
import { emailFrame, FONT, INK, MUTED, oneLine, PAPER, paragraphs, RULE, SERIF } from './assignment-email.ts';

export interface SelectionEmail {
  studioName: string;
  /** The client, or a share link's label. */
  clientName: string;
  /** The client's address, or the share link's recipient (null when it has none). */
  clientEmail: string | null;
  address: string;
  /** The chosen photos in position order: their file names, and captions when set. */
  files: { filename: string; caption: string | null }[];
  /** The comments written on photos, in position order (docs/api.md §28). */
  comments: { filename: string; text: string }[];
  note: string | null;
  /** When the client sent it (stored timestamp). */
  submittedAt: string;
  /** Where the studio sees its assignments (PUBLIC_URL/dashboard). */
  dashboardUrl: string;
}

const count = (n: number): string => `${n.toLocaleString('en-US')} ${n === 1 ? 'photo' : 'photos'}`;

export function renderSelectionEmail(email: SelectionEmail): { subject: string; text: string; html: string } {
  const e = escapeHtml;
  const chosen = count(email.files.length);
  const subject = oneLine(`${email.clientName} sent a selection of ${chosen}: ${email.address}`);
  const when = `${email.submittedAt.slice(0, 10)} ${email.submittedAt.slice(11, 16)} UTC`;
  const fileLine = (f: SelectionEmail['files'][number]) =>
    f.caption === null || f.caption.trim() === '' ? f.filename : `${f.filename} (${oneLine(f.caption)})`;
  const text = [
    'Hello,',
    '',
    `${email.clientName}${email.clientEmail === null ? '' : ` <${email.clientEmail}>`} sent a selection of ${chosen} from the gallery`,
    email.address,
    `on ${when}.`,
    '',
    ...(email.note === null ? [] : ['Their note:', email.note, '']),
    email.files.length === 0 ? 'No photo is marked.' : 'The chosen files:',
    ...email.files.map((f, i) => `${i + 1}. ${fileLine(f)}`),
    '',
    ...(email.comments.length === 0
      ? []
      : ['Comments on photos:', ...email.comments.flatMap((c) => [`${c.filename}:`, c.text, '']), '']),
    'The list is also at GET /v1/listings/:id/favorites and in your dashboard:',
    email.dashboardUrl,
    '',
    '— Lightbox',
    '',
  ].join('\n');

  const rows = email.files
    .map(
      (f, i) =>
        `<tr><td width="32" valign="top" style="width:32px;padding:7px 8px 7px 0;border-top:1px solid ${RULE};font-family:${FONT};font-size:13px;line-height:20px;color:${MUTED};white-space:nowrap">${i + 1}.</td>` +
        `<td style="padding:7px 0;border-top:1px solid ${RULE};font-family:${FONT};font-size:15px;line-height:20px;color:${INK};word-break:break-all">${e(f.filename)}` +
        (f.caption === null || f.caption.trim() === ''
          ? ''
          : `<div style="font-size:13px;line-height:18px;color:${MUTED};word-break:normal">${e(oneLine(f.caption))}</div>`) +
        `</td></tr>`,
    )
    .join('\n');
  const commentRows = email.comments
    .map(
      (c) =>
        `<tr><td style="padding:7px 0;border-top:1px solid ${RULE};font-family:${FONT};font-size:13px;line-height:18px;color:${MUTED};word-break:break-all">${e(c.filename)}` +
        `<div style="font-size:15px;line-height:22px;color:${INK};word-break:normal">${paragraphs(c.text, e)}</div></td></tr>`,
    )
    .join('\n');
  const commentsRow =
    commentRows === ''
      ? ''
      : `<tr>
<td style="padding:10px 32px 10px 32px">
<div style="font-family:${FONT};font-size:11px;line-height:16px;letter-spacing:0.5px;text-transform:uppercase;color:${MUTED};padding-bottom:4px">Comments on photos</div>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="border-bottom:1px solid ${RULE}">
${commentRows}
</table>
</td>
</tr>`;
  const noteRow =
    email.note === null
      ? ''
      : `<tr>
<td style="padding:4px 32px 10px 32px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0"><tr>
<td bgcolor="${PAPER}" style="background-color:${PAPER};border-left:3px solid ${INK};padding:14px 16px;font-family:${FONT};font-size:15px;line-height:23px;color:${INK}">
<div style="font-size:11px;line-height:16px;letter-spacing:0.5px;text-transform:uppercase;color:${MUTED};padding-bottom:4px">Their note</div>
${paragraphs(email.note, e)}
</td></tr></table>
</td>
</tr>`;
  const button =
    `<table role="presentation" cellpadding="0" cellspacing="0" border="0" align="center"><tr>` +
    `<td align="center" bgcolor="${INK}" style="background-color:${INK};border-radius:4px">` +
    `<a href="${e(email.dashboardUrl)}" target="_blank" style="display:inline-block;padding:13px 28px;font-family:${FONT};` +
    `font-size:15px;line-height:20px;font-weight:600;color:#ffffff;text-decoration:none;border-radius:4px">Open the dashboard</a>` +
    `</td></tr></table>`;
  const html = emailFrame(
    subject,
    email.studioName,
    `<tr>
<td style="padding:10px 32px 6px 32px;font-family:${FONT};font-size:16px;line-height:24px;color:${INK}">
<p style="margin:0">${e(email.clientName)}${email.clientEmail === null ? '' : ` (<a href="mailto:${e(email.clientEmail)}" style="color:${INK}">${e(email.clientEmail)}</a>)`} sent a selection of ${e(chosen)} on ${e(when)}.</p>
</td>
</tr>
<tr>
<td style="padding:14px 32px 14px 32px">
<h1 style="margin:0;font-family:${SERIF};font-size:26px;line-height:32px;font-weight:normal;color:${INK}">${e(email.address)}</h1>
</td>
</tr>
${noteRow}
<tr>
<td style="padding:10px 32px 10px 32px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="border-bottom:1px solid ${RULE}">
${rows === '' ? `<tr><td style="padding:7px 0;font-family:${FONT};font-size:15px;color:${MUTED}">No photo is marked.</td></tr>` : rows}
</table>
</td>
</tr>
${commentsRow}
<tr>
<td align="center" style="padding:22px 32px 28px 32px">
${button}
</td>
</tr>
`,
  );
  return { subject, text, html };
}
