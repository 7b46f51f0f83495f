// docs/api.md §29: the client's emails about an invoice, through the notifications outbox (the one
// durable way an email leaves: retried, one Message-ID across retries, test mode to outbox/test).
// Issuing queues the invoice email; reaching `paid` queues the receipt; both are rendered when
// sent, from the invoice as it is then, with its PDF attached.
import type { Config } from '../../config.ts';
import type { Executor } from '../../db/executor.ts';
import { renderInvoiceEmail } from '../../mail/invoice-email.ts';
import type { MailMessage } from '../../mail/mailer.ts';
import { senderDisplayName } from '../../mail/templates.ts';
import type { Write } from '../../mechanisms/writes/writes.ts';
import { loadClient } from '../clients/clients.service.ts';
import { findListing } from '../listings/listings.repository.ts';
import { formatMoney } from '../money/money.ts';
import { queueInvoiceNotification } from '../notifications/notifications.entry.ts';
import { renderInvoicePdf } from './invoices.pdf.ts';
import type { InvoiceMail } from './invoices.service.ts';
import { loadInvoice } from './invoices.service.ts';
import type { InvoiceType } from './invoices.schemas.ts';

/** The invoices service's mail hooks: each queues the client's email in the write that causes it. */
export function invoiceMail(config: Pick<Config, 'publicUrl'>): InvoiceMail {
  const messageIdHost = new URL(config.publicUrl).hostname || 'lightbox.local';
  const queue = async (w: Write, invoice: InvoiceType, kind: 'invoice' | 'receipt') => {
    const client = await w.trx
      .selectFrom('clients')
      .select('email')
      .where('account_id', '=', w.accountId)
      .where('id', '=', invoice.client_id)
      .executeTakeFirst();
    // The client was deleted since the invoice was made: nobody to write to.
    if (client === undefined) return;
    await queueInvoiceNotification(w, {
      kind,
      invoiceId: invoice.id,
      clientId: invoice.client_id,
      listingId: invoice.listing_id,
      to: client.email,
      messageIdHost,
    });
  };
  return {
    issued: (w, invoice) => queue(w, invoice, 'invoice'),
    paid: (w, invoice) => queue(w, invoice, 'receipt'),
  };
}

type Content = Pick<MailMessage, 'subject' | 'text' | 'html' | 'attachments'>;

/**
 * The invoice email or receipt of a queued notification, rendered now with the PDF attached, or
 * why it is no longer sent (the invoice or the client is gone).
 */
export async function renderInvoiceNotification(
  db: Executor,
  publicUrl: string,
  row: { account_id: string; kind: 'invoice' | 'receipt'; invoice_id: string | null; client_id: string | null },
): Promise<
  | { content: Content; account: { name: string; email: string; live_account_id: string | null; sender: string } }
  | { cancel: string }
> {
  const invoice =
    row.invoice_id === null ? undefined : await loadInvoice(db, publicUrl, row.account_id, row.invoice_id);
  if (invoice === undefined || invoice.number === null) return { cancel: 'the invoice no longer exists' };
  const [account, client, listing] = await Promise.all([
    db
      .selectFrom('accounts')
      .select(['name', 'sender_name', 'email', 'live_account_id'])
      .where('id', '=', row.account_id)
      .executeTakeFirst(),
    loadClient(db, publicUrl, row.account_id, invoice.client_id),
    findListing(db, row.account_id, invoice.listing_id),
  ]);
  if (account === undefined) return { cancel: 'the account no longer exists' };
  if (client === undefined) return { cancel: 'the client no longer exists' };
  const address = listing?.address ?? '(gallery deleted)';
  const pdf = await renderInvoicePdf(invoice, {
    studio: account.name,
    studioEmail: account.email,
    client: { name: client.name, email: client.email },
    address,
  });
  const money = (n: number) => formatMoney(n, invoice.currency);
  const sender = senderDisplayName(account.name, account.sender_name);
  const email = renderInvoiceEmail({
    kind: row.kind,
    studioName: account.name,
    studioEmail: account.email,
    signature: sender,
    clientName: client.name,
    number: invoice.number,
    address,
    total: money(invoice.total),
    amountDue: money(invoice.amount_due),
    dueDate: invoice.due_at?.slice(0, 10) ?? null,
    paidDate: invoice.paid_at?.slice(0, 10) ?? null,
    // The receipt has nothing to pay; the invoice email has the link while it is still open.
    paymentUrl: row.kind === 'invoice' ? invoice.payment_url : null,
    note: invoice.note,
  });
  const filename = `${row.kind === 'receipt' ? 'receipt' : 'invoice'}-${invoice.number}.pdf`;
  return {
    content: { ...email, attachments: [{ filename, content: pdf, contentType: 'application/pdf' }] },
    account: { name: account.name, email: account.email, live_account_id: account.live_account_id, sender },
  };
}
