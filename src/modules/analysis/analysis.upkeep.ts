// `lightbox media analyze [--listing ID]` (docs/api.md §30): queues the photos whose analysis is
// missing (from before analysis, or uploaded with ANALYSIS=off) or failed, under each photo's lock,
// so two runs at once never queue a photo twice.
import type { Deps } from '../../deps.ts';
import type { Writes } from '../../mechanisms/writes/writes.ts';
import { pendingJob } from '../../mechanisms/queue/queue.ts';
import * as repo from './analysis.repository.ts';

const PAGE = 500;

export type AnalysisUpkeep = ReturnType<typeof createAnalysisUpkeep>;

export function createAnalysisUpkeep({ db, writes }: Pick<Deps, 'db'> & { writes: Writes }) {
  function queue(ref: { id: string; account_id: string }): Promise<boolean> {
    return writes.run(ref.account_id, { lock: { photo: ref.id } }, async (w) => {
      const photo = w.photo;
      if (photo?.kind !== 'photo') return false;
      if ((await pendingJob(w.trx, 'media.analyze', photo.id)) !== undefined) return false;
      await repo.setPending(w.trx, w.accountId, photo.id);
      w.enqueue({ kind: 'media.analyze', accountId: w.accountId, subjectId: photo.id, runAt: w.now });
      return true;
    });
  }

  return {
    /** Queues every photo (of one gallery, if given) whose analysis is missing or failed; returns how many. */
    async analyse(listingId?: string): Promise<number> {
      let queued = 0;
      let after = '';
      for (;;) {
        const page = await repo.photosToAnalyse(db.kysely, listingId, after, PAGE);
        const last = page.at(-1);
        if (last === undefined) return queued;
        after = last.id;
        for (const photo of page) if (await queue(photo)) queued += 1;
      }
    },
  };
}
