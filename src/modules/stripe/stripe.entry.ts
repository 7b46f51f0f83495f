// Online payment's entry points for the invoices feature (docs/api.md §29): an open invoice's
// payment_url. A pay link is PUBLIC_URL/pay/<invoice id>.<signature>, signed with the deployment's
// pay_link_key: unguessable, nothing stored, the same for every node. A live invoice has one while
// the studio's Stripe keys are set; a test-mode invoice always has one (a local page: it never
// reaches Stripe).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Executor } from '../../db/executor.ts';
import { deploymentKey } from '../accounts/sealing.ts';

const payKeys = new WeakMap<object, Promise<Buffer>>();

function payKey(db: Executor): Promise<Buffer> {
  let key = payKeys.get(db);
  if (key === undefined) {
    key = deploymentKey(db, 'pay_link_key');
    key.catch(() => payKeys.delete(db));
    payKeys.set(db, key);
  }
  return key;
}

const signature = (key: Buffer, invoiceId: string): Buffer =>
  createHmac('sha256', key).update(`pay:${invoiceId}`).digest().subarray(0, 24);

const tokenOf = (key: Buffer, invoiceId: string): string =>
  `${invoiceId}.${signature(key, invoiceId).toString('base64url')}`;

const payLink = (publicUrl: string, key: Buffer, invoiceId: string): string =>
  `${publicUrl.replace(/\/+$/, '')}/pay/${tokenOf(key, invoiceId)}`;

/** The token of an invoice's pay link. */
export async function payToken(db: Executor, invoiceId: string): Promise<string> {
  return tokenOf(await payKey(db), invoiceId);
}

/** The invoice a pay link's token names, or undefined when it is not one of ours. */
export async function invoiceOfPayToken(db: Executor, token: string): Promise<string | undefined> {
  const match = /^(ivc_[A-Za-z0-9]{1,64})\.([A-Za-z0-9_-]{32})$/.exec(token);
  if (match === null) return undefined;
  const [, invoiceId = '', given = ''] = match;
  const expected = signature(await payKey(db), invoiceId);
  const bytes = Buffer.from(given, 'base64url');
  return bytes.length === expected.length && timingSafeEqual(bytes, expected) ? invoiceId : undefined;
}

/** An open invoice's pay link while its account pays online (see paymentUrls), else null. */
export async function paymentUrlOf(
  db: Executor,
  publicUrl: string,
  invoice: { id: string; amount_due: number },
  online: boolean,
): Promise<string | null> {
  if (!online || invoice.amount_due <= 0) return null;
  return payLink(publicUrl, await payKey(db), invoice.id);
}

/** Whether the account's invoices are paid online: always in test mode, else while Stripe's keys are set. */
async function paysOnline(db: Executor, accountId: string): Promise<boolean> {
  const row = await db
    .selectFrom('accounts')
    .leftJoin('stripe_accounts', 'stripe_accounts.account_id', 'accounts.id')
    .select(['accounts.live_account_id', 'stripe_accounts.secret_key'])
    .where('accounts.id', '=', accountId)
    .executeTakeFirst();
  if (row === undefined) return false;
  return row.live_account_id !== null || row.secret_key !== null;
}

/**
 * The account's payment_url maker for its invoices, read once for a list: an open invoice with
 * something due gets its pay link while the account pays online; any other, null.
 */
export async function paymentUrls(
  db: Executor,
  publicUrl: string,
  accountId: string,
): Promise<(invoice: { id: string; status: string; amount_due: number }) => string | null> {
  if (!(await paysOnline(db, accountId))) return () => null;
  const key = await payKey(db);
  return (invoice) =>
    invoice.status === 'open' && invoice.amount_due > 0 ? payLink(publicUrl, key, invoice.id) : null;
}
