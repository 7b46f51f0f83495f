// Online payment of invoices (docs/api.md §29) with Stripe Checkout, through the official `stripe`
// library. The studio's secret key and webhook signing secret are kept sealed (sealing.ts, as TOTP
// secrets are) and never shown again. An open invoice's pay link (stripe.entry.ts) opens a page
// whose button starts a Checkout session for the amount due; Stripe's `checkout.session.completed`
// event, posted to the studio's own webhook URL and verified with its signing secret, records a
// `card` payment through the invoices service, exactly once: the session is claimed by a unique
// key on its session id and one on its event id, in the payment's own transaction. A test-mode
// invoice never reaches Stripe: its page's button records the payment itself.
import { randomBytes } from 'node:crypto';
import type Stripe from 'stripe';
import type { Deps } from '../../deps.ts';
import { AppError, validationError } from '../../errors.ts';
import type { Log } from '../../lib/log.ts';
import type { Writes } from '../../mechanisms/writes/writes.ts';
import { seal, sealingKey, unseal } from '../accounts/sealing.ts';
import { loadInvoice, type InvoicesService } from '../invoices/invoices.service.ts';
import type { InvoiceType } from '../invoices/invoices.schemas.ts';
import { formatMoney, fromStripeAmount, isCurrency, toStripeAmount } from '../money/money.ts';
import { invoiceOfPayToken, payToken } from './stripe.entry.ts';
import * as repo from './stripe.repository.ts';

/** What the studio gives: both, or neither (online payment off). */
export interface StripeKeys {
  secretKey: string;
  webhookSecret: string;
}

export interface StripeStatus {
  /** Whether live invoices are paid online (both keys are set). */
  enabled: boolean;
  /** PUBLIC_URL/stripe/webhooks/<token>: the URL to give Stripe for events. */
  webhookUrl: string;
}

/** A pay link's page: the invoice, its studio, and whether it is test data. */
export interface PayPage {
  invoice: InvoiceType;
  studioName: string;
  livemode: boolean;
  token: string;
}

/** A secret key (sk_live_, sk_test_, or a restricted rk_ one) and a webhook signing secret. */
const SECRET_KEY = /^(sk|rk)_(live|test)_[A-Za-z0-9_]{8,247}$/;
const WEBHOOK_SECRET = /^whsec_[A-Za-z0-9+/=_-]{8,250}$/;
/**
 * The library, loaded on first use: its thousand modules would otherwise be parsed by every process
 * that builds the services, each `lightbox` command included, paying or not.
 */
let library: Promise<typeof Stripe> | undefined;
const stripeLibrary = (): Promise<typeof Stripe> => (library ??= import('stripe').then((m) => m.default));

/** Stripe's own default: a signature more than five minutes old is refused. */
const SIGNATURE_TOLERANCE_SECONDS = 300;

/** A webhook delivery Lightbox refuses (400): a bad or old signature, a body that is not an event. */
export class BadWebhook extends Error {}

const aad = (accountId: string, name: string): string => `${accountId}:stripe:${name}`;

export type StripeService = ReturnType<typeof createStripeService>;

export function createStripeService({
  db,
  config,
  writes,
  invoices,
}: Pick<Deps, 'db' | 'config'> & {
  writes: Writes;
  invoices: Pick<InvoicesService, 'addPaymentWithin' | 'pdf'>;
}) {
  const base = config.publicUrl.replace(/\/+$/, '');
  const api = new URL(config.stripeApiBase);

  /** A Stripe client on the studio's key, pointed at STRIPE_API_BASE. */
  const client = async (secretKey: string): Promise<Stripe> =>
    new (await stripeLibrary())(secretKey, {
      host: api.hostname,
      port: api.port === '' ? (api.protocol === 'http:' ? 80 : 443) : Number(api.port),
      protocol: api.protocol === 'http:' ? 'http' : 'https',
      maxNetworkRetries: 2,
      timeout: 20_000,
    });

  /** The account's row, made (with its webhook token) on first use. */
  async function row(accountId: string): Promise<repo.StripeAccountRow> {
    const found = await repo.findByAccount(db.kysely, accountId);
    if (found !== undefined) return found;
    await writes.run(accountId, {}, async (w) => {
      await w.trx
        .insertInto('stripe_accounts')
        .values({
          account_id: accountId,
          webhook_token: randomBytes(24).toString('base64url'),
          secret_key: null,
          webhook_secret: null,
          updated_at: w.now,
        })
        .onConflict((oc) => oc.column('account_id').doNothing())
        .execute();
    });
    const made = await repo.findByAccount(db.kysely, accountId);
    if (made === undefined) throw new Error('the Stripe settings row was not made');
    return made;
  }

  const statusOf = (r: repo.StripeAccountRow): StripeStatus => ({
    enabled: r.secret_key !== null && r.webhook_secret !== null,
    webhookUrl: `${base}/stripe/webhooks/${r.webhook_token}`,
  });

  /** The invoice a pay link names, with its account's name and mode. */
  async function resolve(token: string): Promise<(PayPage & { accountId: string }) | undefined> {
    const invoiceId = await invoiceOfPayToken(db.kysely, token);
    if (invoiceId === undefined) return undefined;
    const owner = await db.kysely
      .selectFrom('invoices')
      .innerJoin('accounts', 'accounts.id', 'invoices.account_id')
      .select(['accounts.id', 'accounts.name', 'accounts.live_account_id'])
      .where('invoices.id', '=', invoiceId)
      .executeTakeFirst();
    if (owner === undefined) return undefined;
    const invoice = await loadInvoice(db.kysely, config.publicUrl, owner.id, invoiceId);
    if (invoice === undefined) return undefined;
    return {
      invoice,
      studioName: owner.name,
      livemode: owner.live_account_id === null,
      token,
      accountId: owner.id,
    };
  }

  return {
    /** Whether online payment is on, and the webhook URL (made on first use). */
    async status(accountId: string): Promise<StripeStatus> {
      return statusOf(await row(accountId));
    },

    /** Sets (or, with null, clears) the studio's keys, sealed; they are never read back out. */
    async configure(accountId: string, keys: StripeKeys | null): Promise<StripeStatus> {
      if (keys !== null) {
        if (!SECRET_KEY.test(keys.secretKey)) {
          throw validationError('secret_key', 'must be a Stripe secret key (sk_live_…, sk_test_… or rk_…)');
        }
        if (!WEBHOOK_SECRET.test(keys.webhookSecret)) {
          throw validationError('webhook_secret', 'must be a Stripe webhook signing secret (whsec_…)');
        }
      }
      const current = await row(accountId);
      const key = await sealingKey(db);
      await writes.run(accountId, {}, async (w) => {
        await repo.saveKeys(
          w.trx,
          {
            account_id: accountId,
            webhook_token: current.webhook_token,
            secret_key: keys === null ? null : seal(key, aad(accountId, 'secret_key'), keys.secretKey),
            webhook_secret: keys === null ? null : seal(key, aad(accountId, 'webhook_secret'), keys.webhookSecret),
          },
          w.now,
        );
      });
      return statusOf(await row(accountId));
    },

    /** The page a pay link opens, or undefined when the link is not one of ours. */
    async payPage(token: string): Promise<PayPage | undefined> {
      const found = await resolve(token);
      if (found === undefined) return undefined;
      return { invoice: found.invoice, studioName: found.studioName, livemode: found.livemode, token };
    },

    /** The invoice's PDF, for its pay page (the link is the capability, as the page's is). */
    async invoicePdf(token: string): Promise<{ number: string | null; bytes: Buffer }> {
      const found = await resolve(token);
      if (found === undefined) throw new AppError('not_found', 'No such invoice');
      return invoices.pdf(found.accountId, found.invoice.id);
    },

    /**
     * The page's button. Live: a Checkout session for the amount due (its URL to redirect to).
     * Test mode: the `card` payment recorded at once, nothing sent anywhere.
     */
    async startPayment(token: string): Promise<{ redirect: string } | { paid: true } | undefined> {
      const found = await resolve(token);
      if (found === undefined) return undefined;
      const { invoice, accountId } = found;
      if (invoice.status !== 'open' || invoice.amount_due === 0) {
        throw new AppError('conflict', 'This invoice has nothing left to pay');
      }
      const payUrl = `${base}/pay/${await payToken(db.kysely, invoice.id)}`;
      if (!found.livemode) {
        await writes.run(accountId, { lock: { account: true } }, (w) =>
          invoices.addPaymentWithin(w, invoice.id, {
            amount: invoice.amount_due,
            method: 'card',
            reference: 'test mode: paid on the pay page',
          }),
        );
        return { paid: true };
      }
      const settings = await repo.findByAccount(db.kysely, accountId);
      const secretKey = unseal(await sealingKey(db), aad(accountId, 'secret_key'), settings?.secret_key ?? null);
      if (secretKey === null) throw new AppError('conflict', 'This studio does not take payment online');
      const client_ = await db.kysely
        .selectFrom('clients')
        .select('email')
        .where('account_id', '=', accountId)
        .where('id', '=', invoice.client_id)
        .executeTakeFirst();
      const unitAmount = toStripeAmount(invoice.amount_due, invoice.currency);
      if (unitAmount === null) {
        throw new AppError(
          'conflict',
          `Stripe cannot charge exactly ${formatMoney(invoice.amount_due, invoice.currency)}; pay the studio directly`,
        );
      }
      const session = await (
        await client(secretKey)
      ).checkout.sessions.create({
        mode: 'payment',
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: invoice.currency.toLowerCase(),
              unit_amount: unitAmount,
              product_data: { name: `Invoice ${invoice.number ?? ''} · ${found.studioName}`.slice(0, 250) },
            },
          },
        ],
        client_reference_id: invoice.id,
        metadata: { invoice_id: invoice.id, account_id: accountId },
        ...(client_ === undefined ? {} : { customer_email: client_.email }),
        success_url: `${payUrl}?paid=1`,
        cancel_url: payUrl,
      });
      if (session.url === null) throw new Error('Stripe answered a Checkout session without a URL');
      return { redirect: session.url };
    },

    /**
     * One delivery to PUBLIC_URL/stripe/webhooks/<token>. Undefined when the token is nobody's or
     * online payment is off (404); BadWebhook for a bad or old signature (400, nothing changes);
     * else what was done: a payment recorded, or nothing (a repeat, another event, an invoice
     * that can take no payment now).
     */
    async webhook(
      token: string,
      body: Buffer,
      signature: string | undefined,
      log: Log,
    ): Promise<'recorded' | 'duplicate' | 'ignored' | undefined> {
      const settings = await repo.findByWebhookToken(db.kysely, token);
      if (settings === undefined) return undefined;
      const accountId = settings.account_id;
      const secret = unseal(await sealingKey(db), aad(accountId, 'webhook_secret'), settings.webhook_secret);
      if (secret === null) return undefined;
      let event: Stripe.Event;
      try {
        event = (await stripeLibrary()).webhooks.constructEvent(
          body,
          signature ?? '',
          secret,
          SIGNATURE_TOLERANCE_SECONDS,
        );
      } catch (err) {
        throw new BadWebhook(err instanceof Error ? err.message : 'the signature does not verify');
      }
      if (event.type !== 'checkout.session.completed' && event.type !== 'checkout.session.async_payment_succeeded') {
        return 'ignored';
      }
      const session = event.data.object;
      // Paid later (a bank debit): its async_payment_succeeded event records it.
      if (session.payment_status !== 'paid') return 'ignored';
      const invoiceId = session.metadata?.invoice_id ?? session.client_reference_id ?? null;
      const currency = (session.currency ?? '').toUpperCase();
      const amount =
        session.amount_total === null || !isCurrency(currency)
          ? null
          : fromStripeAmount(session.amount_total, currency);
      if (invoiceId === null || amount === null) return 'ignored';
      return writes.run(accountId, { lock: { account: true } }, async (w) => {
        const claimed = await repo.claimCheckout(
          w.trx,
          { session_id: session.id, event_id: event.id, account_id: accountId, invoice_id: invoiceId },
          w.now,
        );
        if (!claimed) return 'duplicate' as const;
        const invoice = await loadInvoice(w.trx, config.publicUrl, accountId, invoiceId);
        const fits =
          invoice !== undefined &&
          invoice.status === 'open' &&
          amount > 0 &&
          amount <= invoice.amount_due &&
          currency === invoice.currency;
        if (!fits) {
          // Paid or voided meanwhile, or not this account's: kept as handled, for the studio to refund.
          log.warn(
            { invoice_id: invoiceId, session_id: session.id, status: invoice?.status ?? 'unknown' },
            'a Stripe payment for an invoice that can take none: not recorded',
          );
          return 'ignored' as const;
        }
        const reference = typeof session.payment_intent === 'string' ? session.payment_intent : session.id;
        const payment = await invoices.addPaymentWithin(w, invoiceId, {
          amount,
          method: 'card',
          reference,
          paid_at: new Date(event.created * 1000).toISOString(),
        });
        await repo.setCheckoutPayment(w.trx, session.id, payment.id);
        return 'recorded' as const;
      });
    },
  };
}
