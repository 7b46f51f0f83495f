// The suggested order of a gallery's photos (docs/api.md §30): read from the media objects as
// GET .../media shows them (so it follows whatever `analysis` the installation fills) and the
// studio's room order; applied through §13's reorder, the one way a gallery's order is written.
import type { WholePage } from '../../lib/pagination.ts';
import type { AccountsService } from '../accounts/accounts.service.ts';
import type { MediaType } from '../media/media.schemas.ts';
import type { MediaService } from '../media/media.service.ts';
import { suggestOrder, type OrderPhoto, type SuggestedOrder } from './analysis.order.ts';

export interface SuggestedOrderService {
  /**
   * The gallery's visible photos in the suggested order. `accountId` scopes the gallery (a test
   * key's is its test account); `studioId` is the live account whose Settings hold the room order.
   */
  suggest(accountId: string, studioId: string, listingId: string): Promise<SuggestedOrder>;
  /**
   * Puts the gallery in the suggested order: the suggested photos first, then its other media
   * (hidden photos, videos, documents) in their current relative order.
   */
  apply(accountId: string, studioId: string, listingId: string): Promise<WholePage<MediaType>>;
}

const asPhoto = (m: MediaType): OrderPhoto => ({
  id: m.id,
  position: m.position,
  room: m.analysis?.room?.label ?? null,
  similarGroup: m.analysis?.similar_group ?? null,
  bestInGroup: m.analysis?.best_in_group ?? null,
  sharpness: m.analysis?.sharpness ?? null,
});

const isVisiblePhoto = (m: MediaType): boolean => m.kind === 'photo' && !m.hidden;

export function createSuggestedOrderService({
  media,
  accounts,
}: {
  media: MediaService;
  accounts: AccountsService;
}): SuggestedOrderService {
  async function compute(accountId: string, studioId: string, listingId: string) {
    const [all, roomOrder] = await Promise.all([media.list(accountId, listingId), accounts.roomOrder(studioId)]);
    return { all: all.data, order: suggestOrder(all.data.filter(isVisiblePhoto).map(asPhoto), roomOrder) };
  }

  return {
    async suggest(accountId, studioId, listingId) {
      return (await compute(accountId, studioId, listingId)).order;
    },

    async apply(accountId, studioId, listingId) {
      const { all, order } = await compute(accountId, studioId, listingId);
      const placed = new Set(order.media_ids);
      const rest = all.filter((m) => !placed.has(m.id)).map((m) => m.id);
      return media.reorder(accountId, listingId, [...order.media_ids, ...rest]);
    },
  };
}
