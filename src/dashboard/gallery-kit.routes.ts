// The listing kit on a gallery's dashboard page (docs/api.md §32): Build or Rebuild (the API's
// POST, through the same service), and each item's bytes for the panel's previews and downloads,
// read by the kit service as /v1 reads them (strong ETag, 304, one Range). Anyone on the team, as
// the gallery's other work is (docs/api.md §27).
import { AppError } from '../errors.ts';
import { sendStoredBytes } from '../http/send-bytes.ts';
import type { App } from '../http/types.ts';
import { KIT_ITEM_NAMES, type KitItemName } from '../db/schema-kit.ts';
import { PAGE_ROUTE, viewerOf, type DashboardContext } from './page.ts';
import type { Notice } from './views/layout.ts';

const MEMBER = { dashboard: 'member' } as const;

/** What the kit's redirects can say on the gallery page (`?notice=`). */
export const KIT_NOTICES: Record<string, Notice> = {
  'kit-building': {
    kind: 'success',
    text: 'The listing kit is being built. The videos take a few minutes: reload this page to see it.',
  },
  'kit-not-active': {
    kind: 'error',
    text: "The kit was not built: only an active gallery's kit is built. Set its status to active first.",
  },
  'kit-no-photo': {
    kind: 'error',
    text: 'The kit was not built: the gallery has no visible photo ready yet. Upload one, or wait for it to be ready.',
  },
};

const isItemName = (name: string): name is KitItemName => (KIT_ITEM_NAMES as readonly string[]).includes(name);

export function registerGalleryKitRoutes(scope: App, { services }: DashboardContext): void {
  scope.post('/galleries/:id/kit', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const { id } = request.params as { id: string };
    let notice = 'kit-building';
    try {
      await services.kit.build(account.id, id);
    } catch (err) {
      // 409 (docs/api.md §32): not active, or no ready photo; said on the page, nothing changed.
      if (!(err instanceof AppError && err.code === 'conflict')) throw err;
      const listing = await services.listings.get(account.id, id);
      notice = listing.status === 'active' ? 'kit-no-photo' : 'kit-not-active';
    }
    return reply.redirect(`/dashboard/galleries/${id}?notice=${notice}#kit`, 303);
  });

  // An item's bytes: shown in the panel (images, videos) and downloaded (its link's `download`).
  scope.get('/galleries/:id/kit/:name', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const { id, name } = request.params as { id: string; name: string };
    if (!isItemName(name)) throw new AppError('not_found', 'No such kit item');
    const file = await services.kit.file(account.id, id, name);
    const sent = await sendStoredBytes(request, reply, file);
    return sent.reply;
  });
}
