// What the property pages (/p, docs/api.md §25) ask of their rows: resolve a token, count a view.
// A view changes the gallery object's `property_page.views`; the row's version trigger moves the
// account's ETags (docs/api.md §17). No event type reports a view (docs/api.md §15 lists none).
import type { Deps } from '../../deps.ts';
import type { Writes } from '../../mechanisms/writes/writes.ts';
import { hasPageTokenShape } from './property-pages.entry.ts';
import * as repo from './property-pages.repository.ts';

export type PropertyPagesService = ReturnType<typeof createPropertyPagesService>;

export function createPropertyPagesService({ db, writes }: Pick<Deps, 'db'> & { writes: Writes }) {
  return {
    /** The page a token opens and whether it is the unbranded one; undefined when unknown or taken down. */
    async resolve(token: string): Promise<{ page: repo.PropertyPageRow; branded: boolean } | undefined> {
      if (!hasPageTokenShape(token)) return undefined;
      const page = await repo.findByToken(db.kysely, token);
      if (page === undefined) return undefined;
      return { page, branded: page.token === token };
    },

    /** A page load. False when the page was taken down meanwhile. */
    countView: (page: repo.PropertyPageRow): Promise<boolean> =>
      writes.run(page.account_id, {}, (w) => repo.countView(w.trx, page.account_id, page.listing_id, page.token)),
  };
}
