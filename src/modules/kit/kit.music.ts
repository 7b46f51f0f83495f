// The studio's music track (docs/api.md §32): an audio file uploaded in Settings that the listing
// kit's slideshows and reel carry (AAC, faded out at the end, kit.video.ts); without one they have
// no audio stream. Kept as the watermark logo is (variants.logo.ts): its bytes in media storage
// under `<account>/music-<ext>-<random>`, owned by the account row's `kit_music_key` (the orphan
// sweep knows it: media.repository.ts knownKeys); a replaced or removed track goes through the
// cleanup ledger like any media's bytes.
//
// Checked before it is kept: its bytes name MP3, M4A (AAC in MP4), AAC (ADTS) or WAV (file-type),
// and the installed ffmpeg decodes its first audio stream to the end (bounded in time and memory,
// as every ffmpeg run): a file that only looks like audio is refused here, not by a kit build.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import type { Deps } from '../../deps.ts';
import type { Executor } from '../../db/executor.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Log } from '../../lib/log.ts';
import type { Writes } from '../../mechanisms/writes/writes.ts';
import type { MediaCleanup } from '../media/media.cleanup.ts';
import { VariantError } from '../variants/variants.images.ts';
import { runFfmpeg } from '../variants/variants.video.ts';

/** About twenty minutes of MP3 at 128 kb/s: far more than any kit video's length. */
export const MUSIC_MAX_BYTES = 20 * 1024 * 1024;
/** What each sniffed type is kept as: its key's part and its content type. */
const MUSIC_TYPES: Record<string, { ext: string; contentType: string }> = {
  mp3: { ext: 'mp3', contentType: 'audio/mpeg' },
  m4a: { ext: 'm4a', contentType: 'audio/mp4' },
  mp4: { ext: 'm4a', contentType: 'audio/mp4' },
  aac: { ext: 'aac', contentType: 'audio/aac' },
  wav: { ext: 'wav', contentType: 'audio/wav' },
};
const CONTENT_TYPES: Record<string, string> = {
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
  wav: 'audio/wav',
};
/** How long a track's bytes may take to be recorded before the ledger removes them. */
const LEASE_MS = 10 * 60_000;
/** The check's ffmpeg run: a 20 MB track decodes in seconds. */
const CHECK_LIMITS = { timeoutMs: 120_000, memoryBytes: 1024 * 1024 ** 2, threads: 1 };

const refuse = (message: string): AppError =>
  new AppError('validation_error', `music ${message}`, [{ field: 'music', message }]);

/** The track's content type, from its key. */
const musicContentType = (key: string): string =>
  CONTENT_TYPES[/\/music-(mp3|m4a|aac|wav)-/.exec(key)?.[1] ?? 'mp3'] ?? 'audio/mpeg';

/** The account's music key, a test account's its studio's (docs/api.md §20: one studio, two modes). */
async function musicKeyOf(db: Executor, accountId: string): Promise<string | null> {
  const row = await db
    .selectFrom('accounts as a')
    .leftJoin('accounts as live', 'live.id', 'a.live_account_id')
    .select(['a.kit_music_key as own', 'live.kit_music_key as studio'])
    .where('a.id', '=', accountId)
    .executeTakeFirst();
  return row?.own ?? row?.studio ?? null;
}

async function replaceKey(trx: Executor, accountId: string, key: string | null, now: string): Promise<string | null> {
  const row = await trx.selectFrom('accounts').select('kit_music_key').where('id', '=', accountId).executeTakeFirst();
  if (row === undefined) throw notFound('Account');
  await trx.updateTable('accounts').set({ kit_music_key: key, updated_at: now }).where('id', '=', accountId).execute();
  return row.kit_music_key;
}

/** Decodes the track's first audio stream to the end; its length in seconds, or a refusal. */
async function checkAudio(bytes: Buffer, tmpDir: string): Promise<number> {
  await mkdir(tmpDir, { recursive: true });
  const dir = await mkdtemp(path.join(tmpDir, 'music-'));
  try {
    const file = path.join(dir, 'track');
    await writeFile(file, bytes);
    let stderr: string;
    try {
      stderr = await runFfmpeg(['-i', file, '-map', '0:a:0', '-vn', '-f', 'null', '-'], CHECK_LIMITS);
    } catch (err) {
      if (err instanceof VariantError) throw refuse('cannot be read as audio');
      throw err;
    }
    if (!/Stream #\d+:\d+[^:]*: Audio: /.test(stderr)) throw refuse('cannot be read as audio');
    const t = [...stderr.matchAll(/time=(\d+):(\d{2}):(\d{2}(?:\.\d+)?)/g)].pop();
    const seconds = t === undefined ? 0 : Number(t[1]) * 3600 + Number(t[2]) * 60 + Number(t[3]);
    if (!(seconds >= 1)) throw refuse('is shorter than a second');
    return seconds;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export type KitMusicService = ReturnType<typeof createKitMusicService>;

export function createKitMusicService({
  db,
  clock,
  storage,
  writes,
  cleanup,
  config,
}: Pick<Deps, 'db' | 'clock' | 'storage' | 'config'> & { writes: Writes; cleanup: MediaCleanup }) {
  // The check's copy goes where the variants' work does (DATA_DIR/tmp), removed after.
  const tmpDir = path.join(config.dataDir, 'tmp');
  return {
    /** The account's music key, or null (the kit's videos are silent). */
    key(accountId: string): Promise<string | null> {
      return musicKeyOf(db.kysely, accountId);
    },

    /** The account's track's bytes (the settings page's player, a kit build), or undefined. */
    async open(accountId: string): Promise<{ body: Readable; contentType: string } | undefined> {
      const key = await musicKeyOf(db.kysely, accountId);
      if (key === null) return undefined;
      return { body: await storage.get(key), contentType: musicContentType(key) };
    },

    /**
     * Checks and stores a new track (MP3, M4A, AAC or WAV by its bytes, at most 20 MB, decoded
     * by ffmpeg), replacing any before it. Refuses anything else with a validation error on `music`.
     */
    async set(accountId: string, bytes: Buffer, log?: Log): Promise<void> {
      if (bytes.length === 0) throw refuse('is empty: choose an audio file');
      if (bytes.length > MUSIC_MAX_BYTES) throw refuse('is larger than 20 MB');
      const type = MUSIC_TYPES[(await fileTypeFromBuffer(bytes))?.ext ?? ''];
      if (type === undefined) throw refuse('must be an MP3, M4A, AAC or WAV file');
      await checkAudio(bytes, tmpDir);
      const key = `${accountId}/music-${type.ext}-${randomBytes(9).toString('base64url')}`;
      await cleanup.lease([key], LEASE_MS);
      try {
        await storage.put(key, Readable.from(bytes, { objectMode: false }), { contentType: type.contentType });
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

    /** Back to silent videos: the track's bytes are removed. */
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
