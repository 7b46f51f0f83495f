// The email a client receives when a studio assigns them a gallery (docs/api.md §8 and §14), as a
// studio would send it: its name, the cover, the gallery's address and only the facts that are
// set, one clear button, and the link as text too. Mail programs are not browsers: the HTML is
// tables with inline styles only (no <style>, no script, nothing loaded but the cover, which the
// link itself serves), and it reads with images off (alt text on a coloured cell). Every
// interpolated value is escaped; the plain-text part says everything the HTML part says. Outlook
// for Windows ignores max-width, so a conditional comment holds the content at EMAIL_WIDTH there.
import { escapeHtml } from '../lib/html-escape.ts';

export interface AssignmentEmail {
  /** The account's name: the subject and the text name the studio. */
  studioName: string;
  /** Who signs the email (the studio's sender name, also the From name); the studio name when unset. */
  senderName?: string | null;
  /** Null for a share link's email (docs/api.md §28: the page and its email name no client). */
  clientName: string | null;
  address: string;
  beds: number | null;
  baths: number | null;
  sqft: number | null;
  /** The gallery's description, when it has one (shown shortened past DESCRIPTION_MAX). */
  description?: string | null;
  photos: number;
  videos: number;
  documents: number;
  /** PUBLIC_URL/g/<token>: the gallery as the client sees it. */
  galleryUrl: string;
  /**
   * PUBLIC_URL/c/<token>: the client's portal, every gallery assigned to them (docs/api.md §28),
   * below the gallery's link. Absent or null: the email names none.
   */
  portalUrl?: string | null;
  /** The cover photo as a JPEG served through the link, or null when there is none yet. */
  coverUrl: string | null;
  /** The served cover's pixel size, when known: the <img> then gets a height, so nothing jumps. */
  coverSize?: { width: number; height: number } | null;
}

/** The email's content width in pixels (the width every mail program shows comfortably). */
export const EMAIL_WIDTH = 600;
/** A portrait cover is shown at most this tall, centred, so the button stays near the top. */
const COVER_MAX_HEIGHT = 720;
/** The gallery page shows the whole description; the email gives its opening. */
export const DESCRIPTION_MAX = 600;

export const FONT = "-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";
export const SERIF = "Georgia,'Times New Roman',Times,serif";
export const INK = '#1f1d1a';
export const MUTED = '#6b655d';
export const PAPER = '#f3f0eb';
export const RULE = '#e6e1d8';

/** Header values are single lines: a line break in a field must not start a new header. */
export const oneLine = (value: string): string => value.replace(/[\r\n\u2028\u2029]+/g, ' ').trim();

const figure = (value: number): string => value.toLocaleString('en-US');
const plural = (n: number, one: string, many: string): string => `${figure(n)} ${n === 1 ? one : many}`;

/** The From name of a studio's emails: its sender name when set, else its name. */
export const senderDisplayName = (studioName: string, senderName: string | null): string =>
  senderName === null || senderName.trim() === '' ? studioName : senderName;

/** The description's opening: whole words, at most DESCRIPTION_MAX characters, with an ellipsis. */
export function shortDescription(description: string | null | undefined): string | null {
  const text = (description ?? '').replace(/\r\n?/g, '\n').trim();
  if (text === '') return null;
  if (text.length <= DESCRIPTION_MAX) return text;
  const cut = text.slice(0, DESCRIPTION_MAX);
  const space = cut.search(/\s\S*$/);
  return `${(space > DESCRIPTION_MAX / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** Only the facts that are set (a 0 is set), as label and value. */
function factsOf(email: AssignmentEmail): [string, string][] {
  const facts: [string, number | null][] = [
    ['Bedrooms', email.beds],
    ['Bathrooms', email.baths],
    ['Square feet', email.sqft],
  ];
  return facts.filter((f): f is [string, number] => f[1] !== null).map(([k, v]) => [k, figure(v)]);
}

const mediaLine = (email: AssignmentEmail): string =>
  [
    plural(email.photos, 'photo', 'photos'),
    plural(email.videos, 'video', 'videos'),
    plural(email.documents, 'document', 'documents'),
  ].join(', ');

/** The <img> size: the content width, or a portrait's at most COVER_MAX_HEIGHT tall. */
function coverBox(size: AssignmentEmail['coverSize']): { width: number; height: number | null } {
  if (size === null || size === undefined || size.width <= 0 || size.height <= 0) {
    return { width: EMAIL_WIDTH, height: null };
  }
  let width = EMAIL_WIDTH;
  let height = Math.round((EMAIL_WIDTH * size.height) / size.width);
  if (height > COVER_MAX_HEIGHT) {
    width = Math.round((COVER_MAX_HEIGHT * size.width) / size.height);
    height = COVER_MAX_HEIGHT;
  }
  return { width, height };
}

function coverRow(email: AssignmentEmail, e: (v: string) => string): string {
  if (email.coverUrl === null) return '';
  const { width, height } = coverBox(email.coverSize);
  const full = width === EMAIL_WIDTH;
  // Images off: the alt text on the cell's colour, in the cover's own box when its height is known.
  const alt = `Cover photo: ${email.address}`;
  const sizeAttrs = `width="${width}"${height === null ? '' : ` height="${height}"`}`;
  const style =
    `display:block;${full ? 'width:100%;' : 'margin:0 auto;'}max-width:${width}px;height:auto;border:0;outline:none;` +
    `text-decoration:none;background-color:#d8d2c8;color:${INK};font-family:${FONT};font-size:16px;line-height:1.4;` +
    'text-align:center';
  return `<tr>
<td align="center" bgcolor="#d8d2c8" style="background-color:#d8d2c8;padding:0;font-size:0;line-height:0">
<a href="${e(email.galleryUrl)}" target="_blank" style="text-decoration:none"><img src="${e(email.coverUrl)}" ${sizeAttrs} alt="${e(alt)}" style="${style}"></a>
</td>
</tr>`;
}

function factsRow(facts: [string, string][], e: (v: string) => string): string {
  if (facts.length === 0) return '';
  const share = Math.floor(100 / facts.length);
  const cells = facts
    .map(
      ([label, value], i) =>
        `<td width="${share}%" valign="top" style="padding:14px 4px;${i > 0 ? `border-left:1px solid ${RULE};` : ''}text-align:center">` +
        `<div style="font-family:${FONT};font-size:11px;line-height:16px;letter-spacing:0.5px;text-transform:uppercase;white-space:nowrap;color:${MUTED}">${e(label)}</div>` +
        `<div style="font-family:${SERIF};font-size:22px;line-height:30px;color:${INK}">${e(value)}</div></td>`,
    )
    .join('\n');
  return `<tr>
<td style="padding:4px 32px 0 32px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="border-top:1px solid ${RULE};border-bottom:1px solid ${RULE}">
<tr>
${cells}
</tr>
</table>
</td>
</tr>`;
}

/** Text, escaped, its line breaks kept as <br>. */
/**
 * The frame every studio email shares (the table layout mail clients render alike, Outlook's
 * conditional width included): the studio's name atop a white card on paper. `rows` are the
 * card's rows below the name; `after` is what stands below the card; `preheader` the inbox preview.
 */
export function emailFrame(
  subject: string,
  studioName: string,
  rows: string,
  { preheader, after = '' }: { preheader?: string; after?: string } = {},
): string {
  const e = escapeHtml;
  const hidden =
    preheader === undefined
      ? ''
      : `<div style="display:none;max-height:0;max-width:0;overflow:hidden;opacity:0;mso-hide:all;font-size:1px;line-height:1px;color:${PAPER}">${e(preheader)}</div>\n`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="x-apple-disable-message-reformatting">
<title>${e(subject)}</title>
</head>
<body style="margin:0;padding:0;background-color:${PAPER};-webkit-text-size-adjust:100%">
${hidden}<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="${PAPER}" style="background-color:${PAPER}">
<tr>
<td align="center" style="padding:24px 12px">
<!--[if mso]><table role="presentation" width="${EMAIL_WIDTH}" align="center" cellpadding="0" cellspacing="0" border="0"><tr><td><![endif]-->
<table role="presentation" width="${EMAIL_WIDTH}" cellpadding="0" cellspacing="0" border="0" bgcolor="#ffffff" style="width:100%;max-width:${EMAIL_WIDTH}px;background-color:#ffffff">
<tr>
<td align="center" style="padding:26px 32px 22px 32px;font-family:${SERIF};font-size:22px;line-height:28px;letter-spacing:2px;text-transform:uppercase;color:${INK}">${e(studioName)}</td>
</tr>
${rows}</table>
${after}<!--[if mso]></td></tr></table><![endif]-->
</td>
</tr>
</table>
</body>
</html>
`;
}

export const paragraphs = (text: string, e: (v: string) => string): string => e(text).replace(/\n/g, '<br>');

export function renderAssignmentEmail(email: AssignmentEmail): { subject: string; text: string; html: string } {
  const e = escapeHtml;
  const facts = factsOf(email);
  const media = mediaLine(email);
  const description = shortDescription(email.description);
  const signature = senderDisplayName(email.studioName, email.senderName ?? null);
  const portal = email.portalUrl ?? null;
  const subject = oneLine(`${email.studioName}: your gallery for ${email.address}`);
  const text = [
    email.clientName === null ? 'Hello,' : `Hello ${email.clientName},`,
    '',
    `${email.studioName} has shared a gallery with you.`,
    '',
    email.address,
    ...facts.map(([k, v]) => `${k}: ${v}`),
    `In the gallery: ${media}`,
    ...(description === null ? [] : ['', description]),
    '',
    'View your gallery:',
    email.galleryUrl,
    '',
    ...(portal === null ? [] : [`All your galleries from ${email.studioName}:`, portal, '']),
    `Questions? Reply to this email to reach ${email.studioName}.`,
    '',
    `— ${signature}`,
    '',
    '--',
    portal === null
      ? 'This link is personal: anyone who has it can see the gallery.'
      : 'These links are personal: anyone who has them can see your galleries.',
    '',
  ].join('\n');

  const preheader = `Your gallery for ${email.address} is ready to view.`;
  const button =
    `<table role="presentation" cellpadding="0" cellspacing="0" border="0" align="center"><tr>` +
    `<td align="center" bgcolor="${INK}" style="background-color:${INK};border-radius:4px">` +
    `<a href="${e(email.galleryUrl)}" target="_blank" style="display:inline-block;padding:15px 34px;font-family:${FONT};` +
    `font-size:16px;line-height:20px;font-weight:600;letter-spacing:0.3px;color:#ffffff;text-decoration:none;border-radius:4px">View your gallery</a>` +
    `</td></tr></table>`;
  const html = emailFrame(
    subject,
    email.studioName,
    `${coverRow(email, e)}
<tr>
<td style="padding:30px 32px 6px 32px;font-family:${FONT};font-size:16px;line-height:24px;color:${INK}">
<p style="margin:0 0 12px 0">${email.clientName === null ? 'Hello,' : `Hello ${e(email.clientName)},`}</p>
<p style="margin:0">${e(email.studioName)} has shared a gallery with you.</p>
</td>
</tr>
<tr>
<td style="padding:18px 32px 14px 32px">
<h1 style="margin:0;font-family:${SERIF};font-size:28px;line-height:34px;font-weight:normal;color:${INK}">${e(email.address)}</h1>
<p style="margin:8px 0 0 0;font-family:${FONT};font-size:14px;line-height:20px;color:${MUTED}">In the gallery: ${e(media)}</p>
</td>
</tr>
${factsRow(facts, e)}
${
  description === null
    ? ''
    : `<tr>
<td style="padding:20px 32px 0 32px;font-family:${FONT};font-size:15px;line-height:23px;color:#3d3934">${paragraphs(description, e)}</td>
</tr>`
}
<tr>
<td align="center" style="padding:30px 32px 10px 32px">
${button}
</td>
</tr>
<tr>
<td align="center" style="padding:10px 32px 26px 32px;font-family:${FONT};font-size:13px;line-height:20px;color:${MUTED}">
Or open this link:<br>
<a href="${e(email.galleryUrl)}" target="_blank" style="color:${INK};text-decoration:underline;word-break:break-all">${e(email.galleryUrl)}</a>
</td>
</tr>
${
  portal === null
    ? ''
    : `<tr>
<td align="center" style="padding:0 32px 26px 32px;font-family:${FONT};font-size:13px;line-height:20px;color:${MUTED}">
All your galleries from ${e(email.studioName)}:<br>
<a href="${e(portal)}" target="_blank" style="color:${INK};text-decoration:underline;word-break:break-all">${e(portal)}</a>
</td>
</tr>
`
}<tr>
<td style="padding:22px 32px 28px 32px;border-top:1px solid ${RULE};font-family:${FONT};font-size:15px;line-height:23px;color:${INK}">
<p style="margin:0 0 12px 0">Questions? Reply to this email to reach ${e(email.studioName)}.</p>
<p style="margin:0">&mdash; ${e(signature)}</p>
</td>
</tr>
`,
    {
      preheader,
      after: `<table role="presentation" width="${EMAIL_WIDTH}" cellpadding="0" cellspacing="0" border="0" style="width:100%;max-width:${EMAIL_WIDTH}px">
<tr>
<td align="center" style="padding:16px 24px 8px 24px;font-family:${FONT};font-size:12px;line-height:18px;color:${MUTED}">${portal === null ? 'This link is personal: anyone who has it can see the gallery.' : 'These links are personal: anyone who has them can see your galleries.'}</td>
</tr>
</table>
`,
    },
  );
  return { subject, text, html };
}
