// Frozen: never import application code here, never edit once released.
// docs/api.md §25: videos get variants (a poster and a web rendition) through the same
// `media.variants` job as photos. Videos uploaded before: pending, with a job each, so a running
// service catches up by itself.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const now = new Date().toISOString();
  await sql`update media set variants_status = 'pending' where kind = 'video' and variants_status is null`.execute(db);
  await sql`
    insert into jobs (id, kind, account_id, subject_id, group_key, run_at, attempts, lease, last_error, created_at, updated_at)
    select 'job_vv' || m.id, 'media.variants', m.account_id, m.id, null, ${now}, 0, null, null, ${now}, ${now}
    from media m
    where m.kind = 'video'
      and not exists (select 1 from jobs j where j.kind = 'media.variants' and j.subject_id = m.id)
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from jobs where kind = 'media.variants' and subject_id in (select id from media where kind = 'video')`.execute(
    db,
  );
  // The variants' bytes are left to the sweep once their rows are gone.
  await sql`delete from media_variants where media_id in (select id from media where kind = 'video')`.execute(db);
  await sql`update media set variants_status = null where kind = 'video'`.execute(db);
}
