// Frozen: never import application code here, never edit once released.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // The one durable job queue (docs/decisions/0006): a row per piece of background work that
  // is still to be done (an email to send, variants to make, a webhook to deliver, an upload to
  // expire). Done or given up, the row goes; the feature's own row keeps the outcome.
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text')
    // The row the job works on (ntf_..., med_..., whd_..., upl_...).
    .addColumn('subject_id', 'text', (c) => c.notNull())
    // Jobs of one group (a webhook endpoint) are limited in how many run at once on a node.
    .addColumn('group_key', 'text')
    // When the job is due; while a worker holds it, when its lease ends.
    .addColumn('run_at', 'text', (c) => c.notNull())
    // Finished attempts (a claim is not an attempt until its outcome is recorded).
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    // The holder's token: outcomes are recorded only by the worker that holds the lease.
    .addColumn('lease', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_due_idx').on('jobs').columns(['kind', 'run_at']).execute();
  await db.schema.createIndex('jobs_subject_idx').on('jobs').columns(['subject_id']).execute();

  // Queued notifications become jobs, due when they were; the notification keeps its outcome.
  await sql`
    insert into jobs (id, kind, account_id, subject_id, group_key, run_at, attempts, lease, last_error, created_at, updated_at)
    select 'job_' || id, 'notification.send', account_id, id, null, next_attempt_at, attempts, null, last_error,
           created_at, updated_at
    from notifications where status = 'queued'
  `.execute(db);
  await db.schema.dropIndex('notifications_due_idx').execute();
  await db.schema.alterTable('notifications').dropColumn('next_attempt_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('notifications')
    .addColumn('next_attempt_at', 'text', (c) => c.notNull().defaultTo('1970-01-01T00:00:00.000Z'))
    .execute();
  await sql`
    update notifications set next_attempt_at = coalesce(
      (select run_at from jobs where jobs.subject_id = notifications.id and jobs.kind = 'notification.send'),
      updated_at)
  `.execute(db);
  await db.schema
    .createIndex('notifications_due_idx')
    .on('notifications')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema.dropTable('jobs').execute();
}
