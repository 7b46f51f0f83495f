// Frozen: never import application code here, never edit once released.
// docs/api.md §29: products, invoices (their items and payments) and each account's invoice
// number sequence. Amounts are integers in the account's currency's minor unit (bigint: an
// invoice total may pass 2^31). The invoice emails go through the notifications outbox, which
// now says what each notification is (`kind`) and, for an invoice's, which invoice.
import { SqliteAdapter, sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely';

const SHOWN = ['products', 'invoices', 'invoice_items', 'payments'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  const account = (c: ColumnDefinitionBuilder) => c.notNull().references('accounts.id').onDelete('cascade');

  await db.schema
    .createTable('products')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', account)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('unit_amount', 'bigint', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('products_account_created')
    .on('products')
    .columns(['account_id', 'created_at', 'id'])
    .execute();

  // No foreign key to the gallery or the client: an invoice is a record of money and outlives them.
  await db.schema
    .createTable('invoices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', account)
    .addColumn('number', 'text')
    .addColumn('listing_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('subtotal', 'bigint', (c) => c.notNull())
    .addColumn('discount', 'bigint', (c) => c.notNull())
    .addColumn('tax_rate_bps', 'integer', (c) => c.notNull())
    .addColumn('tax', 'bigint', (c) => c.notNull())
    .addColumn('total', 'bigint', (c) => c.notNull())
    .addColumn('amount_paid', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('pay_to_unlock', 'integer', (c) => c.notNull())
    .addColumn('due_at', 'text')
    .addColumn('note', 'text')
    .addColumn('issued_at', 'text')
    .addColumn('paid_at', 'text')
    .addColumn('voided_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('invoices_account_created')
    .on('invoices')
    .columns(['account_id', 'created_at', 'id'])
    .execute();
  // A number is given once per account: a second holder of one is refused by the database too.
  await db.schema
    .createIndex('invoices_account_number')
    .on('invoices')
    .columns(['account_id', 'number'])
    .unique()
    .execute();

  await db.schema
    .createTable('invoice_items')
    .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text')
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('unit_amount', 'bigint', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('invoice_items_pk', ['invoice_id', 'position'])
    .execute();

  await db.schema
    .createTable('payments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', account)
    .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id').onDelete('cascade'))
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('paid_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payments_invoice').on('payments').columns(['invoice_id', 'created_at', 'id']).execute();

  // The last number given per account; moved only under the account's lock, never back.
  await db.schema
    .createTable('invoice_numbers')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('last_number', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .alterTable('notifications')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('assignment'))
    .execute();
  await db.schema.alterTable('notifications').addColumn('invoice_id', 'text').execute();

  // Shown rows raise the account's version, as every other shown row does (2026-11-26-0014).
  for (const table of SHOWN) {
    if (sqlite) {
      for (const [event, row] of [
        ['insert', 'new'],
        ['update', 'new'],
        ['delete', 'old'],
      ] as const) {
        await sql`
          create trigger ${sql.id(`${table}_version_${event}`)} after ${sql.raw(event)} on ${sql.id(table)}
          begin
            insert into account_versions (account_id, version) values (${sql.raw(row)}.account_id, 1)
              on conflict (account_id) do update set version = version + 1;
          end
        `.execute(db);
      }
    } else {
      await sql`
        create constraint trigger ${sql.id(`${table}_version`)}
        after insert or update or delete on ${sql.id(table)}
        deferrable initially deferred
        for each row execute function lightbox_raise_account_version()
      `.execute(db);
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('notifications').dropColumn('invoice_id').execute();
  await db.schema.alterTable('notifications').dropColumn('kind').execute();
  for (const table of ['invoice_numbers', 'payments', 'invoice_items', 'invoices', 'products']) {
    await db.schema.dropTable(table).execute();
  }
}
