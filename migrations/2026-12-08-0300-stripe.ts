// Frozen: never import application code here, never edit once released.
// docs/api.md §29, online payment: each studio's Stripe keys (sealed, like TOTP secrets) and the
// token of its webhook URL; every Checkout session whose payment was recorded, claimed once by its
// session id and once by the event that told of it, so a payment is recorded exactly once however
// often (and however concurrently) Stripe delivers the event; and the key that signs pay links.
import { randomBytes } from 'node:crypto';
import { SqliteAdapter, sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;

  await db.schema
    .createTable('stripe_accounts')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    // PUBLIC_URL/stripe/webhooks/<token>: kept while online payment is turned off and on again.
    .addColumn('webhook_token', 'text', (c) => c.notNull().unique())
    // Sealed (AES-256-GCM with the deployment's totp_secret_key, bound to the account); null: off.
    .addColumn('secret_key', 'text')
    .addColumn('webhook_secret', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('stripe_checkouts')
    .addColumn('session_id', 'text', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull().unique())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('invoice_id', 'text', (c) => c.notNull())
    // The payment recorded, or null when the invoice could take none (paid or voided meanwhile).
    .addColumn('payment_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('stripe_checkouts_invoice').on('stripe_checkouts').column('invoice_id').execute();

  // Signs each invoice's pay link (PUBLIC_URL/pay/<invoice id>.<signature>): unguessable, nothing stored.
  await db
    .insertInto('instance_secrets')
    .values({ name: 'pay_link_key', value: randomBytes(32).toString('base64url') })
    .execute();

  // An invoice's payment_url follows whether online payment is on: the account's version moves.
  if (sqlite) {
    for (const [event, row] of [
      ['insert', 'new'],
      ['update', 'new'],
      ['delete', 'old'],
    ] as const) {
      await sql`
        create trigger ${sql.id(`stripe_accounts_version_${event}`)} after ${sql.raw(event)} on stripe_accounts
        begin
          insert into account_versions (account_id, version) values (${sql.raw(row)}.account_id, 1)
            on conflict (account_id) do update set version = version + 1;
        end
      `.execute(db);
    }
  } else {
    await sql`
      create constraint trigger stripe_accounts_version
      after insert or update or delete on stripe_accounts
      deferrable initially deferred
      for each row execute function lightbox_raise_account_version()
    `.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('instance_secrets').where('name', '=', 'pay_link_key').execute();
  await db.schema.dropTable('stripe_checkouts').execute();
  await db.schema.dropTable('stripe_accounts').execute();
}
