// docs/api.md §32 on the property pages (§25): a ready kit's items, linked from the page and
// served under its own path, /p/<token>/kit/<name> (attachment, ETag, one Range), by the kit
// service as /v1 serves them. The branded page offers the branded items (the flyer, the branded
// videos, the social images); the unbranded page the unbranded slideshow alone, and not even that
// when the page leaves out photos the slideshow shows (the MLS profile's, §31). The MLS pack is the
// studio's (the page offers no ZIP). Nothing while the kit is not ready (a stale kit may show what
// the gallery no longer does: a photo since hidden) or while the gallery waits for payment (§29).
import type { KitItemName } from '../db/schema-kit.ts';
import type { KitType } from '../modules/kit/kit.schemas.ts';
import type { Services } from '../services.ts';
import type { PropertyView } from './property.load.ts';

/** An item a page offers, with what its link says. */
export interface PageKitItem {
  name: KitItemName;
  kind: 'pdf' | 'image' | 'video';
  size: number;
  width: number | null;
  height: number | null;
  /** A video's length. */
  seconds: number | null;
}

const BRANDED_FILES = ['flyer'] as const;
const BRANDED_VIDEOS = ['slideshow', 'reel', 'teaser'] as const;

/** The items of `kit` the page offers, in the order it lists them. */
function offered(kit: KitType, view: PropertyView): PageKitItem[] {
  const video = (name: 'slideshow' | 'slideshow_unbranded' | 'reel' | 'teaser'): PageKitItem[] => {
    const v = kit[name];
    if (v === null) return [];
    return [{ name, kind: 'video', size: v.size, width: v.width, height: v.height, seconds: v.duration_seconds }];
  };
  if (!view.branded) return view.leavesOut ? [] : video('slideshow_unbranded');
  const items: PageKitItem[] = [];
  for (const name of BRANDED_FILES) {
    const f = kit[name];
    if (f !== null) items.push({ name, kind: 'pdf', size: f.size, width: null, height: null, seconds: null });
  }
  for (const name of BRANDED_VIDEOS) items.push(...video(name));
  for (const s of kit.social ?? []) {
    const name: KitItemName = `social_${s.format}`;
    items.push({ name, kind: 'image', size: s.size, width: s.width, height: s.height, seconds: null });
  }
  return items;
}

/** What the page offers of the gallery's kit: nothing unless it is ready and the gallery unlocked. */
export async function pageKit(services: Services, view: PropertyView): Promise<PageKitItem[]> {
  if (view.locked) return [];
  const kit = await services.kit.get(view.page.account_id, view.page.listing_id);
  return kit.status === 'ready' ? offered(kit, view) : [];
}
