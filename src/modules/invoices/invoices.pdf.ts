// The invoice as a PDF (docs/api.md §29): pdfkit, with DejaVu Sans embedded (subset) so the text
// is selectable and shows the same everywhere; amounts written by formatMoney from integers.
import { createRequire } from 'node:module';
import { formatMoney } from '../money/money.ts';
import type { InvoiceType } from './invoices.schemas.ts';

const require = createRequire(import.meta.url);
const FONT = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
const BOLD = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf');

export interface PdfParties {
  studio: string;
  studioEmail: string;
  client: { name: string; email: string };
  address: string;
}

export async function renderInvoicePdf(invoice: InvoiceType, parties: PdfParties): Promise<Buffer> {
  // Loaded on first use, like the Stripe library: not every process that builds the services draws PDFs.
  const { default: PDFDocument } = await import('pdfkit');
  // Dated by the invoice's last change, so the same invoice gives the same bytes (its ETag).
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    info: { Title: `Invoice ${invoice.number ?? 'draft'}`, CreationDate: new Date(invoice.updated_at) },
  });
  doc.registerFont('body', FONT);
  doc.registerFont('bold', BOLD);
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const money = (n: number) => formatMoney(n, invoice.currency);
  doc.font('bold').fontSize(20).text(parties.studio);
  doc.font('body').fontSize(10).text(parties.studioEmail);
  doc.moveDown();
  doc
    .font('bold')
    .fontSize(16)
    .text(`Invoice ${invoice.number ?? '(draft)'}`);
  doc.font('body').fontSize(10);
  if (invoice.issued_at !== null) doc.text(`Issued ${invoice.issued_at.slice(0, 10)}`);
  if (invoice.due_at !== null) doc.text(`Due ${invoice.due_at.slice(0, 10)}`);
  doc.text(`Status: ${invoice.status}`);
  doc.moveDown();
  doc.font('bold').text('Bill to');
  doc.font('body').text(parties.client.name).text(parties.client.email).text(`Gallery: ${parties.address}`);
  doc.moveDown();
  const left = 50;
  const row = (cells: [string, string, string, string], font: 'body' | 'bold') => {
    const y = doc.y;
    doc.font(font).text(cells[0], left, y, { width: 270 });
    const after = doc.y;
    doc.text(cells[1], 330, y, { width: 40, align: 'right' });
    doc.text(cells[2], 370, y, { width: 85, align: 'right' });
    doc.text(cells[3], 455, y, { width: 90, align: 'right' });
    doc.x = left;
    doc.y = Math.max(after, doc.y) + 4;
  };
  row(['Item', 'Qty', 'Unit price', 'Amount'], 'bold');
  for (const item of invoice.items) {
    row([item.description, String(item.quantity), money(item.unit_amount), money(item.amount)], 'body');
  }
  doc.moveDown();
  const total = (label: string, value: number, font: 'body' | 'bold' = 'body') => {
    const y = doc.y;
    doc.font(font).text(label, 330, y, { width: 125, align: 'right' });
    doc.text(money(value), 455, y, { width: 90, align: 'right' });
    doc.x = left;
  };
  total('Subtotal', invoice.subtotal);
  if (invoice.discount > 0) total('Discount', -invoice.discount);
  // The rate in integers too: 825 bps is 8.25 %.
  const bps = invoice.tax_rate_bps;
  total(`Tax (${Math.floor(bps / 100)}.${String(bps % 100).padStart(2, '0')} %)`, invoice.tax);
  total('Total', invoice.total, 'bold');
  total('Paid', invoice.amount_paid);
  total('Amount due', invoice.amount_due, 'bold');
  if (invoice.note !== null) {
    doc.moveDown().font('body').text(invoice.note, left, doc.y, { width: 495 });
  }
  doc.end();
  return done;
}
