// Frozen: never import application code here, never edit once released.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // docs/api.md §15: where an account's events are sent.
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    // JSON array of event types, or ["*"].
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    // The signing secret must be read to sign; it is shown only when created or rotated.
    .addColumn('secret', 'text', (c) => c.notNull())
    // After a rotation the old secret also signs until this time (24 hours).
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_until', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_account_idx')
    .on('webhook_endpoints')
    .columns(['account_id', 'created_at', 'id'])
    .execute();

  // Every change of an account's resources, recorded in the transaction that made it; kept 30 days.
  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    // The event object's `data` ({"object": ...}) as JSON, exactly as delivered.
    .addColumn('data', 'text', (c) => c.notNull())
    // 0 for webhook.test events: delivered like any other, never listed.
    .addColumn('listed', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_account_idx').on('events').columns(['account_id', 'created_at', 'id']).execute();
  await db.schema
    .createIndex('events_account_type_idx')
    .on('events')
    .columns(['account_id', 'type', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('events_created_idx').on('events').columns(['created_at']).execute();

  // One per (event, endpoint): what was sent, and what came back.
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('event_id', 'text', (c) => c.notNull().references('events.id').onDelete('cascade'))
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('response_status', 'integer')
    .addColumn('response_excerpt', 'text')
    .addColumn('last_error', 'text')
    .addColumn('next_attempt_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('delivered_at', 'text')
    .addUniqueConstraint('webhook_deliveries_event_endpoint', ['event_id', 'endpoint_id'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_endpoint_idx')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_endpoint_status_idx')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'status', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('jobs').where('kind', '=', 'webhook.deliver').execute();
  await db.deleteFrom('account_counts').where('counter', 'like', 'events%').execute();
  await db.deleteFrom('account_counts').where('counter', 'like', 'deliveries%').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('events').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
}
