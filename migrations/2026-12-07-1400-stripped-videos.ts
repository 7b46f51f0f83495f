// Frozen: never import application code here, never edit once released.
// docs/api.md §25: the unbranded property page plays a video only as a rendition with none of the
// original's tags: its `web` rendition, or the `stripped` copy that the `media.variants` job now
// makes of an original that needs no web rendition. Videos made before have a poster and no such
// copy: each gets one media.variants job (unless one is queued already), so a running service
// makes it by itself. They stay `ready`, and keep their poster served, until the job replaces it.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const now = new Date().toISOString();
  await sql`
    insert into jobs (id, kind, account_id, subject_id, group_key, run_at, attempts, lease, last_error, created_at, updated_at)
    select 'job_vs' || m.id, 'media.variants', m.account_id, m.id, null, ${now}, 0, null, null, ${now}, ${now}
    from media m
    where m.kind = 'video'
      and m.variants_status = 'ready'
      and not exists (
        select 1 from media_variants v where v.media_id = m.id and v.name in ('web', 'stripped')
      )
      and not exists (select 1 from jobs j where j.kind = 'media.variants' and j.subject_id = m.id)
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  // The copies go, their bytes through the cleanup ledger (due now). A job still queued makes a
  // poster again, which the earlier version does too.
  const now = new Date().toISOString();
  await sql`
    insert into media_cleanup (storage_key, delete_after, created_at)
    select storage_key, ${now}, ${now} from media_variants where name = 'stripped'
    on conflict (storage_key) do nothing
  `.execute(db);
  await sql`delete from media_variants where name = 'stripped'`.execute(db);
}
