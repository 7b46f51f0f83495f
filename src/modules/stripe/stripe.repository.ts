// Online payment's rows (docs/api.md §29): each studio's sealed Stripe keys and webhook token, and
// the Checkout sessions whose completion was handled.
import type { Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { StripeAccountsTable } from '../../db/schema-stripe.ts';

export type StripeAccountRow = Selectable<StripeAccountsTable>;

export function findByAccount(db: Executor, accountId: string): Promise<StripeAccountRow | undefined> {
  return db.selectFrom('stripe_accounts').selectAll().where('account_id', '=', accountId).executeTakeFirst();
}

export function findByWebhookToken(db: Executor, token: string): Promise<StripeAccountRow | undefined> {
  return db.selectFrom('stripe_accounts').selectAll().where('webhook_token', '=', token).executeTakeFirst();
}

/** Sets the keys (sealed, or null: off); the webhook token is made once and kept. */
export async function saveKeys(
  db: Executor,
  row: { account_id: string; webhook_token: string; secret_key: string | null; webhook_secret: string | null },
  now: string,
): Promise<void> {
  await db
    .insertInto('stripe_accounts')
    .values({ ...row, updated_at: now })
    .onConflict((oc) =>
      oc
        .column('account_id')
        .doUpdateSet({ secret_key: row.secret_key, webhook_secret: row.webhook_secret, updated_at: now }),
    )
    .execute();
}

/**
 * Claims a completed Checkout session: true for the first delivery of it, false when its session or
 * its event was claimed before. The unique keys decide, so two deliveries at once (on any node,
 * either dialect) cannot both claim it: the second waits for the first's transaction and inserts nothing.
 */
export async function claimCheckout(
  db: Executor,
  row: { session_id: string; event_id: string; account_id: string; invoice_id: string },
  now: string,
): Promise<boolean> {
  const result = await db
    .insertInto('stripe_checkouts')
    .values({ ...row, payment_id: null, created_at: now })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function setCheckoutPayment(db: Executor, sessionId: string, paymentId: string): Promise<void> {
  await db.updateTable('stripe_checkouts').set({ payment_id: paymentId }).where('session_id', '=', sessionId).execute();
}
