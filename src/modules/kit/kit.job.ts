// The `listing.kit` job on the durable queue (docs/api.md §32): makes a gallery's kit (the MLS pack,
// the flyer, the social images, and the videos once kit.video.ts is here) and records it, as the
// variants job records a photo's variants (variants.job.ts): every object is owned at all times,
// by a cleanup-ledger lease while it is written and by its listing_kit_items row once recorded (the
// lease goes in the same transaction); a rebuild replaces the rows and schedules the old keys'
// deletion; the rows are recorded under the gallery's lock, in one fenced transaction with the
// job's end, and `listing.kit_ready` is announced there. The job's lease and the keys' are renewed
// while it runs (KIT_LEASE_MS), so another node neither takes it over nor sweeps its bytes.
//
// A kit never delays uploads, variants or the API: one build at a time per node, started only
// while no photo's variants are due (it gives way to them, postponed a few seconds), and at most
// one a few seconds while the node is busy answering requests (src/jobs.ts).
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { buffer } from 'node:stream/consumers';
import type { Deps } from '../../deps.ts';
import type { KitItemName } from '../../db/schema-kit.ts';
import type { Log } from '../../lib/log.ts';
import {
  finishJob,
  postponeJob,
  renewLease,
  retryJob,
  withJobOutcome,
  type ClaimedJob,
} from '../../mechanisms/queue/queue.ts';
import type { JobHandler } from '../../mechanisms/queue/queue.runner.ts';
import type { Writes } from '../../mechanisms/writes/writes.ts';
import type { MediaCleanup } from '../media/media.cleanup.ts';
import { factsLine, renderFlyer } from './kit.flyer.ts';
import { mlsCompliance, planMlsPack, type MlsPhoto } from './kit.mls.ts';
import * as repo from './kit.repository.ts';
import type { KitPhoto } from './kit.repository.ts';
import { kitComplianceOf } from '../mls/mls.entry.ts';
import { kitFingerprint, scheduleRebuild } from './kit.service.ts';
import { renderSocialImage, SOCIAL_SIZES } from './kit.social.ts';
import { renderKitVideo, type KitVideoKind } from './kit.video.ts';
import { teaserOrder } from './kit.teaser.ts';

/** A kit that will not build ends `failed` after this many tries. */
const MAX_KIT_TRIES = 3;
const RETRY_DELAYS_MS = [30_000, 2 * 60_000];
/** How long a build waits while photos' variants are due (they go first). */
const GIVE_WAY_MS = 5_000;

/** Thrown for a gallery that cannot be built (not active, no ready photo): failed at once, not retried. */
class KitRefused extends Error {}

interface MadeItem {
  name: KitItemName;
  contentType: string;
  size: number;
  width: number | null;
  height: number | null;
  durationSeconds: number | null;
}

const SOCIAL_NAMES = { square: 'social_square', portrait: 'social_portrait', story: 'social_story' } as const;
/** The nice value of a kit's ffmpeg runs: the API's thread and the variants' work go first. */
const KIT_FFMPEG_NICENESS = 10;
const VIDEO_NAMES: readonly KitVideoKind[] = ['slideshow', 'slideshow_unbranded', 'reel', 'teaser'];
/** Every item a build makes, in the order it makes them. */
const ITEM_NAMES: readonly KitItemName[] = [
  'mls_zip',
  'flyer',
  'social_square',
  'social_portrait',
  'social_story',
  ...VIDEO_NAMES,
];

/** For tests: smaller videos of the same orientation (a 1080p slideshow takes a while on 2 cores). */
export interface KitJobOptions {
  videoScale?: number;
  /** The studio's music track for the videos (Settings > Studio, kit.music.ts), if it has one. */
  music?: (accountId: string) => Promise<{ body: Readable; contentType: string } | undefined>;
}

/** A video's size at `scale` of its own (tests), even in both sides; undefined: its own. */
function scaled(kind: KitVideoKind, scale: number | undefined): { width: number; height: number } | undefined {
  if (scale === undefined) return undefined;
  const [w, h] = kind === 'reel' ? [1080, 1920] : [1920, 1080];
  return { width: Math.round((w * scale) / 2) * 2, height: Math.round((h * scale) / 2) * 2 };
}

export function kitHandler(
  { db, clock, config, storage, writes }: Pick<Deps, 'db' | 'clock' | 'config' | 'storage'> & { writes: Writes },
  cleanup: MediaCleanup,
  log: Log,
  options: KitJobOptions = {},
): JobHandler {
  const leaseMs = config.kit.leaseMs;
  const tmpRoot = path.join(config.dataDir, 'tmp');
  const videoLimits = {
    timeoutMs: config.media.variants.videoTimeoutMs,
    memoryBytes: config.media.variants.videoMemoryBytes,
    threads: config.media.variants.threads,
    // docs/api.md §32: a kit build gives way; its ffmpeg runs at a lower priority than the service.
    niceness: KIT_FFMPEG_NICENESS,
  };
  const delay = (attempts: number): number => RETRY_DELAYS_MS[Math.min(attempts, RETRY_DELAYS_MS.length) - 1] ?? 0;

  const read = async (key: string): Promise<Buffer> => buffer(await storage.get(key));

  /** The job's lease and the keys' ledger lease, renewed every quarter of a lease while the kit is made. */
  function heartbeat(job: ClaimedJob, keys: string[], lost: AbortController): { stop(): Promise<void> } {
    let inFlight: Promise<void> | undefined;
    const timer = setInterval(
      () => {
        if (inFlight !== undefined) return;
        inFlight = (async () => {
          try {
            if (await renewLease(db.kysely, job, clock.iso(leaseMs), clock.iso())) {
              await cleanup.extendLease(keys, leaseMs);
            } else {
              // Another node has it now: ffmpeg stops, and this try's bytes go.
              clearInterval(timer);
              lost.abort(new Error('the kit job lease was lost'));
            }
          } catch (err) {
            log.warn({ err, job_id: job.id }, 'could not renew a kit job lease');
          }
        })().finally(() => (inFlight = undefined));
      },
      Math.max(1, Math.floor(leaseMs / 4)),
    );
    return {
      async stop() {
        clearInterval(timer);
        await inFlight;
      },
    };
  }

  /** Whether photos' variants are due now: the kit waits for them. */
  async function variantsDue(): Promise<boolean> {
    const row = await db.kysely
      .selectFrom('jobs')
      .select('id')
      .where('kind', '=', 'media.variants')
      .where('run_at', '<=', clock.iso())
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async function fail(job: ClaimedJob, listingId: string, accountId: string, keys: string[], reason: string) {
    await withJobOutcome(
      db,
      (trx) => finishJob(trx, job),
      (trx) =>
        writes.within(trx, accountId, { lock: { listing: listingId }, now: clock.iso() }, async (w) => {
          if (w.listing === undefined) return;
          await repo.setStatus(trx, listingId, 'failed', w.now, { error: reason.slice(0, 500) });
        }),
    );
    await cleanup.dueNow(keys);
    await cleanup.purge(keys, log);
    log.warn({ listing_id: listingId, attempts: job.attempts + 1, reason }, 'listing kit failed');
  }

  /** Makes every item whose inputs are there; writes each to `keyOf(name)`. */
  async function make(
    listingId: string,
    accountId: string,
    keyOf: (name: KitItemName) => string,
    signal: AbortSignal,
  ): Promise<MadeItem[]> {
    const listing = await repo.findListingForKit(db.kysely, accountId, listingId);
    if (listing === undefined) throw new KitRefused('the gallery is gone');
    if (listing.status !== 'active') throw new KitRefused(`the gallery is ${listing.status}`);
    const photos = (await repo.visiblePhotos(db.kysely, accountId, listingId)).filter(
      (p) => p.variants_status === 'ready',
    );
    const variants = await repo.photoVariants(
      db.kysely,
      accountId,
      photos.map((p) => p.id),
    );
    const variant = (id: string, name: 'mls' | 'large') => variants.find((v) => v.media_id === id && v.name === name);
    const ready = photos.filter((p) => variant(p.id, 'mls') !== undefined && variant(p.id, 'large') !== undefined);
    if (ready.length === 0) throw new KitRefused('the gallery has no ready photo');
    const studio = await repo.studioOf(db.kysely, accountId);
    const page = await repo.pageTokens(db.kysely, accountId, listingId);
    const now = new Date(clock.now());
    const made: MadeItem[] = [];

    // The MLS pack.
    const mlsPhotos: MlsPhoto[] = ready.map((p, i) => {
      const v = variant(p.id, 'mls');
      if (v === undefined) throw new Error('kit: a ready photo lost its mls variant');
      return {
        id: p.id,
        order: i + 1,
        room: p.analysis_room,
        caption: p.caption,
        altText: p.alt_text,
        mls: { storageKey: v.storage_key, width: v.width, height: v.height, size: v.size },
        modifiedAt: new Date(p.created_at),
      };
    });
    const verdict = await kitComplianceOf(db.kysely, accountId, listingId, clock.iso());
    const compliance = mlsCompliance(
      mlsPhotos,
      verdict === undefined
        ? undefined
        : { ...verdict.report, profileName: verdict.profileName, maxPhotos: verdict.maxPhotos },
    );
    const renumbered = compliance.photos.map((p, i) => ({ ...p, order: i + 1 }));
    const pack = await planMlsPack(renumbered, compliance.report, (key, range) => storage.get(key, range), now);
    await storage.put(keyOf('mls_zip'), pack.stream(), { contentType: 'application/zip' });
    made.push({
      name: 'mls_zip',
      contentType: 'application/zip',
      size: pack.size,
      width: null,
      height: null,
      durationSeconds: null,
    });

    // The cover: the gallery's, when visible and ready, else the first photo.
    const cover = ready.find((p) => p.id === listing.cover_media_id) ?? ready[0];
    if (cover === undefined) throw new KitRefused('the gallery has no ready photo');
    const coverKey = variant(cover.id, 'large')?.storage_key;
    if (coverKey === undefined) throw new Error('kit: the cover lost its large variant');
    const coverBytes = await read(coverKey);
    const studioName = studio?.name ?? '';
    const facts = factsLine(listing);

    // The flyer.
    const others = ready.filter((p) => p.id !== cover.id).slice(0, 4);
    const more: Buffer[] = [];
    for (const p of others) {
      const key = variant(p.id, 'large')?.storage_key;
      if (key !== undefined) more.push(await read(key));
    }
    const pdf = await renderFlyer({
      paper: studio?.kit_paper ?? config.kit.paper,
      address: listing.address,
      beds: listing.beds,
      baths: listing.baths,
      sqft: listing.sqft,
      description: listing.description,
      studio: studioName,
      cover: coverBytes,
      more,
      pageUrl: page === undefined ? null : `${config.publicUrl}/p/${page.token}`,
      date: now,
    });
    await storage.put(keyOf('flyer'), Readable.from([pdf]), { contentType: 'application/pdf' });
    made.push({
      name: 'flyer',
      contentType: 'application/pdf',
      size: pdf.length,
      width: null,
      height: null,
      durationSeconds: null,
    });

    // The social images.
    for (const size of SOCIAL_SIZES) {
      const jpeg = await renderSocialImage(coverBytes, size, { address: listing.address, facts, studio: studioName });
      const name = SOCIAL_NAMES[size.format];
      await storage.put(keyOf(name), Readable.from([jpeg]), { contentType: 'image/jpeg' });
      made.push({
        name,
        contentType: 'image/jpeg',
        size: jpeg.length,
        width: size.width,
        height: size.height,
        durationSeconds: null,
      });
    }

    // The videos: from the photos' `large` variants as local files, the cover first; the teaser's
    // are the cover and the best photos (kit.teaser.ts).
    await mkdir(tmpRoot, { recursive: true });
    const dir = await mkdtemp(path.join(tmpRoot, 'kit-'));
    try {
      const fileOf = new Map<string, string>();
      for (const [i, p] of ready.entries()) {
        const key = variant(p.id, 'large')?.storage_key;
        if (key === undefined) continue;
        const local = storage.localPath?.(key);
        if (local !== undefined) {
          fileOf.set(p.id, local);
          continue;
        }
        const copy = path.join(dir, `photo-${i}.jpg`);
        await pipeline(await storage.get(key), createWriteStream(copy));
        fileOf.set(p.id, copy);
      }
      const filesOf = (photos: readonly KitPhoto[]): string[] => photos.flatMap((p) => fileOf.get(p.id) ?? []);
      const files = filesOf([cover, ...ready.filter((r) => r.id !== cover.id)]);
      const teaserFiles = filesOf(teaserOrder(cover, ready));
      const card = { address: listing.address, facts, studio: studioName };
      // docs/api.md §32: the studio's track, when it has one, under both slideshows, the reel and the teaser.
      const track = await options.music?.(accountId);
      let music: string | null = null;
      if (track !== undefined) {
        music = path.join(dir, 'music');
        await pipeline(track.body, createWriteStream(music));
      }
      for (const kind of VIDEO_NAMES) {
        signal.throwIfAborted();
        const out = path.join(dir, `${kind}.mp4`);
        const video = await renderKitVideo({
          kind,
          photos: kind === 'teaser' ? teaserFiles : files,
          out,
          card: kind === 'slideshow_unbranded' ? null : card,
          music,
          secondsPerPhoto: config.kit.secondsPerPhoto,
          signal,
          limits: videoLimits,
          tmpDir: dir,
          size: scaled(kind, options.videoScale),
        });
        await storage.put(keyOf(kind), createReadStream(out), { contentType: 'video/mp4' });
        made.push({
          name: kind,
          contentType: 'video/mp4',
          size: video.size,
          width: video.width,
          height: video.height,
          durationSeconds: video.durationSeconds,
        });
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    return made;
  }

  async function run(job: ClaimedJob): Promise<void> {
    const listingId = job.subject_id;
    const kit = await repo.findKitById(db.kysely, listingId);
    if (kit === undefined) {
      await finishJob(db.kysely, job);
      return;
    }
    if (await variantsDue()) {
      await postponeJob(db.kysely, job, clock.iso(GIVE_WAY_MS));
      return;
    }
    const accountId = kit.account_id;
    const fingerprint = await kitFingerprint(db.kysely, accountId, listingId);
    if (fingerprint === undefined) {
      await finishJob(db.kysely, job);
      return;
    }
    if (kit.status !== 'building') {
      await writes.run(accountId, { lock: { listing: listingId } }, async (w) => {
        if (w.listing !== undefined) await repo.setStatus(w.trx, listingId, 'building', w.now);
      });
    }
    const generation = randomBytes(6).toString('base64url');
    const keyOf = (name: KitItemName): string => `${accountId}/${listingId}/kit-${name}-${generation}`;
    const keys = ITEM_NAMES.map(keyOf);
    await cleanup.lease(keys, leaseMs);
    const lost = new AbortController();
    const beat = heartbeat(job, keys, lost);
    let made: MadeItem[];
    try {
      made = await make(listingId, accountId, keyOf, lost.signal);
    } catch (err) {
      await beat.stop();
      if (lost.signal.aborted) {
        // Taken over: the new holder records the outcome; this try's bytes are nobody's.
        await cleanup.dueNow(keys);
        await cleanup.purge(keys, log);
        return;
      }
      const reason = err instanceof Error ? err.message : String(err);
      if (err instanceof KitRefused || job.attempts + 1 >= MAX_KIT_TRIES) {
        await fail(job, listingId, accountId, keys, reason);
        return;
      }
      await retryJob(db.kysely, job, clock.iso(delay(job.attempts + 1)), reason.slice(0, 500), clock.iso());
      await cleanup.dueNow(keys);
      log.info({ listing_id: listingId, attempts: job.attempts + 1, reason }, 'listing kit will be retried');
      return;
    }
    await beat.stop();
    const now = clock.iso();
    const outcome = await withJobOutcome(
      db,
      (trx) => finishJob(trx, job),
      (trx): Promise<{ gone: true } | { gone: false; replaced: string[] }> =>
        writes.within(trx, accountId, { lock: { listing: listingId }, now }, async (w) => {
          if (w.listing === undefined) return { gone: true };
          const replaced = await repo.replaceItems(
            trx,
            listingId,
            made.map((m) => ({
              listing_id: listingId,
              name: m.name,
              account_id: accountId,
              storage_key: keyOf(m.name),
              content_type: m.contentType,
              size: m.size,
              width: m.width,
              height: m.height,
              duration_seconds: m.durationSeconds,
              created_at: now,
            })),
          );
          await cleanup.release(trx, keys);
          await cleanup.scheduleNow(trx, replaced);
          // Changed while it was made: served as it is, and made again shortly.
          const current = await kitFingerprint(trx, accountId, listingId);
          const stale = current !== fingerprint;
          await repo.setStatus(trx, listingId, stale ? 'stale' : 'ready', now, {
            built_at: now,
            fingerprint,
            error: null,
          });
          if (stale) await scheduleRebuild(w, listingId, config.kit.rebuildDelayMs);
          w.announce('listing.kit_ready', listingId);
          return { gone: false, replaced };
        }),
    );
    if (outcome === undefined || outcome.gone) {
      await cleanup.dueNow(keys);
      await cleanup.purge(keys, log);
      return;
    }
    await cleanup.purge(outcome.replaced, log);
  }

  return {
    kind: 'listing.kit',
    concurrency: 1,
    batch: 1,
    leaseMs,
    startMarginMs: 0,
    run,
    faultDelayMs: (attempts) => delay(Math.min(attempts, RETRY_DELAYS_MS.length)),
  };
}
