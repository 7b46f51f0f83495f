// The kit object (docs/api.md §32) from its row and its items' rows: one serializer, used by GET,
// POST, the `listing.kit_ready` event and the dashboard; and how every route names an item's bytes.
import type { KitItemName } from '../../db/schema-kit.ts';
import type { KitItemRow, KitRow } from './kit.repository.ts';
import type { KitType, SocialFormat } from './kit.schemas.ts';

const SOCIAL: readonly [SocialFormat, KitItemName][] = [
  ['square', 'social_square'],
  ['portrait', 'social_portrait'],
  ['story', 'social_story'],
];

/** The download's name: the item and what it is (never the studio's or the gallery's name). */
const FILE_NAMES: Record<KitItemName, string> = {
  mls_zip: 'mls-pack.zip',
  flyer: 'flyer.pdf',
  social_square: 'social-square.jpg',
  social_portrait: 'social-portrait.jpg',
  social_story: 'social-story.jpg',
  slideshow: 'slideshow.mp4',
  slideshow_unbranded: 'slideshow-unbranded.mp4',
  reel: 'reel.mp4',
  teaser: 'teaser.mp4',
};

/** An item's file name, wherever its bytes are served (/v1, the dashboard, the property pages). */
export const kitItemFileName = (name: KitItemName): string => FILE_NAMES[name];

/** Strong: the item's key names its bytes (a rebuild writes new keys). */
export const kitItemEtag = (row: KitItemRow): string =>
  `"${row.storage_key.slice(row.storage_key.lastIndexOf('/') + 1)}-${Number(row.size).toString(36)}"`;

/** Where an item's bytes are served under the API key. */
const kitItemUrl = (publicUrl: string, listingId: string, name: KitItemName): string =>
  `${publicUrl}/v1/listings/${listingId}/kit/${name}`;

export function serializeKit(
  publicUrl: string,
  listingId: string,
  kit: KitRow | undefined,
  items: readonly KitItemRow[],
): KitType {
  const byName = new Map(items.map((i) => [i.name, i]));
  const base = (i: KitItemRow) => ({ url: kitItemUrl(publicUrl, listingId, i.name), size: Number(i.size) });
  const file = <C extends string>(name: KitItemName, contentType: C) => {
    const i = byName.get(name);
    return i === undefined ? null : { ...base(i), content_type: contentType };
  };
  const video = (name: KitItemName) => {
    const i = byName.get(name);
    if (i === undefined) return null;
    return {
      ...base(i),
      content_type: 'video/mp4' as const,
      duration_seconds: i.duration_seconds ?? 0,
      width: i.width ?? 1,
      height: i.height ?? 1,
    };
  };
  const social = SOCIAL.flatMap(([format, name]) => {
    const i = byName.get(name);
    if (i === undefined) return [];
    return [{ format, ...base(i), content_type: 'image/jpeg' as const, width: i.width ?? 1, height: i.height ?? 1 }];
  });
  return {
    listing_id: listingId,
    status: kit?.status ?? 'none',
    built_at: kit?.built_at ?? null,
    mls_zip: file('mls_zip', 'application/zip'),
    slideshow: video('slideshow'),
    slideshow_unbranded: video('slideshow_unbranded'),
    reel: video('reel'),
    teaser: video('teaser'),
    flyer: file('flyer', 'application/pdf'),
    social: social.length === 0 ? null : social,
  };
}
