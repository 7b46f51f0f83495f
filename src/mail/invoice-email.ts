// docs/api.md §29: the invoice email (at issue) and the receipt (once paid in full) a client
// receives, in the assignment email's look (tables, inline styles, nothing loaded). The invoice
// PDF is attached to both (the worker adds it). The invoice email has a Pay button when the studio
// takes payment online, else says how to pay the studio. Every interpolated value is escaped; the
// plain-text part says everything the HTML part says.
import { escapeHtml } from '../lib/html-escape.ts';
import { emailFrame, FONT, INK, MUTED, oneLine, RULE, SERIF } from './assignment-email.ts';

export interface InvoiceEmail {
  kind: 'invoice' | 'receipt';
  studioName: string;
  studioEmail: string;
  /** Who signs it: the sender name, else the studio name. */
  signature: string;
  clientName: string;
  number: string;
  address: string;
  /** Formatted amounts (src/modules/money's formatMoney). */
  total: string;
  amountDue: string;
  /** YYYY-MM-DD, or null. */
  dueDate: string | null;
  paidDate: string | null;
  /** Our pay link, or null (no online payment: the email says how to pay the studio). */
  paymentUrl: string | null;
  note: string | null;
}

export function renderInvoiceEmail(email: InvoiceEmail): { subject: string; text: string; html: string } {
  const e = escapeHtml;
  const receipt = email.kind === 'receipt';
  const subject = oneLine(
    receipt
      ? `${email.studioName}: receipt for invoice ${email.number}`
      : `${email.studioName}: invoice ${email.number} for ${email.address}`,
  );
  const lead = receipt
    ? `Thank you: invoice ${email.number} (${email.total}) is paid in full${email.paidDate === null ? '' : ` (${email.paidDate})`}. The receipt is attached as a PDF.`
    : `${email.studioName} sent you invoice ${email.number} for ${email.address}. The invoice is attached as a PDF.`;
  const howToPay =
    email.paymentUrl === null
      ? `To pay, reply to this email or write to ${email.studioName} at ${email.studioEmail}, naming invoice ${email.number}.`
      : 'Pay online by card with the button below.';
  const facts: [string, string][] = receipt
    ? [
        ['Invoice', email.number],
        ['Total paid', email.total],
        ...(email.paidDate === null ? [] : ([['Paid on', email.paidDate]] as [string, string][])),
      ]
    : [
        ['Invoice', email.number],
        ['Total', email.total],
        ['Amount due', email.amountDue],
        ...(email.dueDate === null ? [] : ([['Due', email.dueDate]] as [string, string][])),
      ];
  const text = [
    `Hello ${email.clientName},`,
    '',
    lead,
    '',
    ...facts.map(([k, v]) => `${k}: ${v}`),
    ...(email.note === null || receipt ? [] : ['', email.note]),
    '',
    ...(receipt ? [] : [howToPay, ...(email.paymentUrl === null ? [] : [email.paymentUrl]), '']),
    `Questions? Reply to this email to reach ${email.studioName}.`,
    '',
    `— ${email.signature}`,
    '',
  ].join('\n');

  const button =
    email.paymentUrl === null || receipt
      ? ''
      : `<tr>
<td align="center" style="padding:8px 32px 10px 32px">
<table role="presentation" cellpadding="0" cellspacing="0" border="0" align="center"><tr>
<td align="center" bgcolor="${INK}" style="background-color:${INK};border-radius:4px">
<a href="${e(email.paymentUrl)}" target="_blank" style="display:inline-block;padding:15px 34px;font-family:${FONT};font-size:16px;line-height:20px;font-weight:600;letter-spacing:0.3px;color:#ffffff;text-decoration:none;border-radius:4px">Pay ${e(email.amountDue)}</a>
</td></tr></table>
</td>
</tr>
<tr>
<td align="center" style="padding:10px 32px 22px 32px;font-family:${FONT};font-size:13px;line-height:20px;color:${MUTED}">
Or open this link:<br>
<a href="${e(email.paymentUrl)}" target="_blank" style="color:${INK};text-decoration:underline;word-break:break-all">${e(email.paymentUrl)}</a>
</td>
</tr>`;
  const rows = facts
    .map(
      ([k, v], i) =>
        `<tr><td style="padding:8px 0;${i === 0 ? '' : `border-top:1px solid ${RULE};`}font-family:${FONT};font-size:15px;line-height:22px;color:${MUTED}">${e(k)}</td>` +
        `<td align="right" style="padding:8px 0;${i === 0 ? '' : `border-top:1px solid ${RULE};`}font-family:${FONT};font-size:15px;line-height:22px;font-weight:600;color:${INK}">${e(v)}</td></tr>`,
    )
    .join('\n');
  const html = emailFrame(
    subject,
    email.studioName,
    `<tr>
<td style="padding:24px 32px 6px 32px;border-top:1px solid ${RULE};font-family:${FONT};font-size:16px;line-height:24px;color:${INK}">
<h1 style="margin:0 0 14px 0;font-family:${SERIF};font-size:26px;line-height:32px;font-weight:normal;color:${INK}">${receipt ? 'Receipt' : 'Invoice'} ${e(email.number)}</h1>
<p style="margin:0 0 12px 0">Hello ${e(email.clientName)},</p>
<p style="margin:0">${e(lead)}</p>
</td>
</tr>
<tr>
<td style="padding:16px 32px 8px 32px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0">
${rows}
</table>
</td>
</tr>
${
  email.note === null || receipt
    ? ''
    : `<tr>
<td style="padding:12px 32px 0 32px;font-family:${FONT};font-size:15px;line-height:23px;color:#3d3934">${e(email.note)}</td>
</tr>`
}
${
  receipt
    ? ''
    : `<tr>
<td style="padding:18px 32px 10px 32px;font-family:${FONT};font-size:15px;line-height:23px;color:${INK}">${e(howToPay)}</td>
</tr>`
}
${button}
<tr>
<td style="padding:22px 32px 28px 32px;border-top:1px solid ${RULE};font-family:${FONT};font-size:15px;line-height:23px;color:${INK}">
<p style="margin:0 0 12px 0">Questions? Reply to this email to reach ${e(email.studioName)}.</p>
<p style="margin:0">&mdash; ${e(email.signature)}</p>
</td>
</tr>
`,
  );
  return { subject, text, html };
}
