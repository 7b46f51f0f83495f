// The studio's watermark logo (docs/api.md §29): an image uploaded in Settings that the previews
// of locked galleries carry instead of the studio's name. Its bytes are in media storage under
// `<account>/logo-<type>-<random>`, owned by the account row's `watermark_logo_key` (the orphan
// sweep knows it: media.repository.ts knownKeys); a replaced or removed logo goes through the
// cleanup ledger like any media's bytes. The key is part of every preview's `mark`, so a change
// makes the previews stale and a locked page has them made again, as a rename does.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import sharp from 'sharp';
import type { Deps } from '../../deps.ts';
import type { Executor } from '../../db/executor.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Log } from '../../lib/log.ts';
import type { Writes } from '../../mechanisms/writes/writes.ts';
import type { MediaCleanup } from '../media/media.cleanup.ts';

/** Large enough for any logo; a preview draws it at a fraction of the photo. */
export const LOGO_MAX_BYTES = 2 * 1024 * 1024;
const LOGO_MAX_SIDE = 4096;
const LOGO_MIN_SIDE = 16;
const LOGO_TYPES = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/webp': 'webp' } as const;
type LogoMime = keyof typeof LOGO_TYPES;
/** How long a logo's bytes may take to be recorded before the ledger removes them. */
const LEASE_MS = 10 * 60_000;

const refuse = (message: string): AppError =>
  new AppError('validation_error', `logo ${message}`, [{ field: 'logo', message }]);

/** The logo's content type, from its key. */
const logoContentType = (key: string): string => {
  const type = /\/logo-(png|jpeg|webp)-/.exec(key)?.[1] ?? 'png';
  return `image/${type}`;
};

/** The account's logo key, a test account's its studio's (docs/api.md §20: one studio, two modes). */
async function logoKeyOf(db: Executor, accountId: string): Promise<string | null> {
  const row = await db
    .selectFrom('accounts as a')
    .leftJoin('accounts as live', 'live.id', 'a.live_account_id')
    .select(['a.watermark_logo_key as own', 'live.watermark_logo_key as studio'])
    .where('a.id', '=', accountId)
    .executeTakeFirst();
  return row?.own ?? row?.studio ?? null;
}

async function replaceKey(trx: Executor, accountId: string, key: string | null, now: string): Promise<string | null> {
  const row = await trx
    .selectFrom('accounts')
    .select('watermark_logo_key')
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (row === undefined) throw notFound('Account');
  await trx
    .updateTable('accounts')
    .set({ watermark_logo_key: key, updated_at: now })
    .where('id', '=', accountId)
    .execute();
  return row.watermark_logo_key;
}

export type LogoService = ReturnType<typeof createLogoService>;

export function createLogoService({
  db,
  clock,
  storage,
  writes,
  cleanup,
}: Pick<Deps, 'db' | 'clock' | 'storage'> & { writes: Writes; cleanup: MediaCleanup }) {
  return {
    /** The account's logo key, or null (previews carry the name). */
    key(accountId: string): Promise<string | null> {
      return logoKeyOf(db.kysely, accountId);
    },

    /** The account's own logo's bytes (the settings page's preview), or undefined. */
    async open(accountId: string): Promise<{ body: Readable; contentType: string } | undefined> {
      const key = await logoKeyOf(db.kysely, accountId);
      if (key === null) return undefined;
      return { body: await storage.get(key), contentType: logoContentType(key) };
    },

    /**
     * Checks and stores a new logo (PNG, JPEG or WebP by its bytes, at most 2 MB and 4096 px a
     * side), replacing any before it. Refuses anything else with a validation error on `logo`.
     */
    async set(accountId: string, bytes: Buffer, log?: Log): Promise<void> {
      if (bytes.length === 0) throw refuse('is empty: choose an image file');
      if (bytes.length > LOGO_MAX_BYTES) throw refuse('is larger than 2 MB');
      const mime = (await fileTypeFromBuffer(bytes))?.mime;
      if (mime === undefined || !(mime in LOGO_TYPES)) throw refuse('must be a PNG, JPEG or WebP image');
      let meta;
      try {
        meta = await sharp(bytes, { failOn: 'error', limitInputPixels: LOGO_MAX_SIDE * LOGO_MAX_SIDE }).metadata();
        // Decoded once in full, so a truncated file is refused here and not by the job.
        await sharp(bytes, { failOn: 'error', limitInputPixels: LOGO_MAX_SIDE * LOGO_MAX_SIDE })
          .raw()
          .toBuffer();
      } catch {
        throw refuse('cannot be read as an image');
      }
      if (meta.width > LOGO_MAX_SIDE || meta.height > LOGO_MAX_SIDE) throw refuse('is larger than 4096 px a side');
      if (meta.width < LOGO_MIN_SIDE || meta.height < LOGO_MIN_SIDE) throw refuse('is smaller than 16 px a side');
      const key = `${accountId}/logo-${LOGO_TYPES[mime as LogoMime]}-${randomBytes(9).toString('base64url')}`;
      await cleanup.lease([key], LEASE_MS);
      try {
        await storage.put(key, Readable.from(bytes, { objectMode: false }), { contentType: mime });
      } catch (err) {
        await cleanup.dueNow([key]);
        await cleanup.purge([key], log);
        throw err;
      }
      const now = clock.iso();
      const old = await writes.run(accountId, { now }, async ({ trx }) => {
        const before = await replaceKey(trx, accountId, key, now);
        await cleanup.release(trx, [key]);
        if (before !== null) await cleanup.scheduleNow(trx, [before]);
        return before;
      });
      if (old !== null) await cleanup.purge([old], log);
    },

    /** Back to the studio's name: the logo's bytes are removed. */
    async remove(accountId: string, log?: Log): Promise<void> {
      const now = clock.iso();
      const old = await writes.run(accountId, { now }, async ({ trx }) => {
        const before = await replaceKey(trx, accountId, null, now);
        if (before !== null) await cleanup.scheduleNow(trx, [before]);
        return before;
      });
      if (old !== null) await cleanup.purge([old], log);
    },
  };
}
