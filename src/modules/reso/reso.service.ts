// docs/api.md §33: the RESO media feed. The account's shown photos with their mls variant, oldest
// change first, by keyset on (MediaModificationTimestamp, MediaKey): the timestamp is moved by the
// database on every change of the record (migration 2026-12-09-0500) and strictly increases per
// account, so a photo changed while a client pages comes again on a later page, never skipped.
// MediaURL is the photo at its gallery's feed link (a gallery link of kind `feed`, the one kind of
// public link to a gallery, client-links.entry.ts): made for the day, it works until the start of
// the eighth day after, so at least 7 days from any answer of that day.
import type { Deps } from '../../deps.ts';
import { listCursors } from '../../db/keyset.ts';
import type { CursorScope } from '../../lib/cursor.ts';
import type { Writes } from '../../mechanisms/writes/writes.ts';
import { feedLinks } from '../client-links/client-links.entry.ts';
import { parseFilter, type FeedFilter } from './reso.odata.ts';
import * as repo from './reso.repository.ts';
import { DEFAULT_TOP, type FeedQueryType, type ResoMediaFeedType } from './reso.schemas.ts';
import { toResoMedia } from './reso.serializer.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The day (UTC) an answer is made on: its links, and its ETag, are the day's. */
export const feedDay = (now: number): number => Math.floor(now / DAY_MS);

/** When the links of an answer made on `day` stop working: the start of the eighth day after. */
const linksUntil = (day: number): string => new Date((day + 8) * DAY_MS).toISOString();

export type ResoService = ReturnType<typeof createResoService>;

export function createResoService({
  db,
  clock,
  config,
  writes,
}: Pick<Deps, 'db' | 'clock' | 'config'> & { writes: Writes }) {
  const base = config.publicUrl.replace(/\/+$/, '');

  /** The galleries a filter keeps (every ResourceRecordID and every ResourceRecordKey must match). */
  async function scopeOf(accountId: string, filter: FeedFilter): Promise<repo.FeedScope> {
    let ids: string[] | undefined;
    const keep = (some: string[]) => {
      ids = ids === undefined ? [...new Set(some)] : ids.filter((id) => some.includes(id));
    };
    if (filter.recordIds.length > 0)
      keep([filter.recordIds[0] ?? ''].filter((id) => filter.recordIds.every((o) => o === id)));
    for (const key of filter.recordKeys) keep(await repo.listingsOfRecordKey(db.kysely, accountId, key));
    return { listingIds: ids, after: filter.after, atOrAfter: filter.atOrAfter };
  }

  return {
    async media(accountId: string, query: FeedQueryType): Promise<ResoMediaFeedType> {
      const filter = parseFilter(query.$filter);
      const codec = await listCursors(db);
      const scope: CursorScope = { list: 'reso.media', accountId, params: { filter: query.$filter ?? null } };
      const after = query.cursor === undefined ? undefined : codec.decode(scope, query.cursor);
      const top = query.$top ?? DEFAULT_TOP;
      const rows = await repo.feedPage(db.kysely, accountId, await scopeOf(accountId, filter), after, top + 1);
      const page = rows.slice(0, top);
      const until = linksUntil(feedDay(clock.now()));
      const galleries = [...new Set(page.map((r) => r.listing_id))];
      const [tokens, mlsNumbers] = await Promise.all([
        feedLinks(db.kysely, writes, accountId, galleries, until),
        repo.mlsNumbersOf(db.kysely, accountId, galleries),
      ]);
      const answer: ResoMediaFeedType = {
        '@odata.context': `${base}/v1/reso/$metadata#Media`,
        value: page.map((row) =>
          toResoMedia(
            row,
            mlsNumbers.get(row.listing_id) ?? null,
            `${base}/g/${tokens.get(row.listing_id) ?? ''}/mls/${row.id}`,
          ),
        ),
      };
      const last = page.at(-1);
      if (rows.length > top && last !== undefined) {
        const params = [
          ...(query.$filter === undefined ? [] : [`$filter=${encodeURIComponent(query.$filter)}`]),
          ...(query.$top === undefined ? [] : [`$top=${query.$top}`]),
          ...(query.$orderby === undefined ? [] : [`$orderby=${encodeURIComponent(query.$orderby)}`]),
          `cursor=${encodeURIComponent(codec.encode(scope, { value: last.modified_at, id: last.id }))}`,
        ];
        answer['@odata.nextLink'] = `${base}/v1/reso/Media?${params.join('&')}`;
      }
      return answer;
    },
  };
}
