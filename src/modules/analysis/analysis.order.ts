// The suggested order of a gallery's photos (docs/api.md §30), as a pure function of the photos'
// analysis and the studio's room order:
//
// - photos go in the room order, by their `analysis.room.label`;
// - a photo whose room is not read yet (null, as every photo's is until the model stage runs), or
//   whose label is not one of the 14 values, goes with `Other`, after the photos read as `Other`,
//   in its current relative order: nothing is known to move it, so it keeps its place among its kind;
// - a similar group stays together, in its best photo's room and at its first photo's place, the
//   best first, then the rest (the sharper first): the best takes the place the photographer gave
//   that view (a group's photos show the same room; read as different rooms, the best's decides);
// - within a room, photos keep their current relative order.
import { isRoom, type Room } from './analysis.room-order.ts';

export interface OrderPhoto {
  id: string;
  /** Its current position in the gallery (1..n). */
  position: number;
  room: string | null;
  similarGroup: string | null;
  bestInGroup: boolean | null;
  sharpness: number | null;
}

interface OrderReason {
  media_id: string;
  room: string | null;
  note: string;
}

export interface SuggestedOrder {
  media_ids: string[];
  reasons: OrderReason[];
}

const ordinal = (n: number): string => {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${n % 10 === 1 ? 'st' : n % 10 === 2 ? 'nd' : n % 10 === 3 ? 'rd' : 'th'}`;
};

/** Within a group: the best first, then the sharpest, then the current order. */
const groupOrder = (a: OrderPhoto, b: OrderPhoto): number =>
  Number(b.bestInGroup === true) - Number(a.bestInGroup === true) ||
  (b.sharpness ?? -1) - (a.sharpness ?? -1) ||
  a.position - b.position;

export function suggestOrder(photos: readonly OrderPhoto[], roomOrder: readonly Room[]): SuggestedOrder {
  const rankOf = new Map<string, number>(roomOrder.map((room, i) => [room, i]));
  const otherRank = rankOf.get('Other') ?? roomOrder.length;
  const known = (p: OrderPhoto): boolean => p.room !== null && isRoom(p.room);
  const rank = (p: OrderPhoto): number => (known(p) ? (rankOf.get(p.room ?? '') ?? otherRank) : otherRank);

  // Each unit is a photo alone or a similar group, led by its best photo.
  const groups = new Map<string, OrderPhoto[]>();
  const units: OrderPhoto[][] = [];
  for (const p of [...photos].sort((a, b) => a.position - b.position)) {
    if (p.similarGroup === null) {
      units.push([p]);
      continue;
    }
    const members = groups.get(p.similarGroup);
    if (members === undefined) {
      const unit = [p];
      groups.set(p.similarGroup, unit);
      units.push(unit);
    } else members.push(p);
  }
  for (const unit of units) unit.sort(groupOrder);

  const leader = (unit: OrderPhoto[]): OrderPhoto => unit[0] as OrderPhoto;
  const place = (unit: OrderPhoto[]): number => Math.min(...unit.map((p) => p.position));
  units.sort((a, b) => {
    const x = leader(a);
    const y = leader(b);
    return rank(x) - rank(y) || Number(!known(x)) - Number(!known(y)) || place(a) - place(b);
  });

  const reasons: OrderReason[] = [];
  for (const unit of units) {
    const best = leader(unit);
    for (const p of unit) {
      const { room } = p;
      let note: string;
      if (p !== best) {
        note = `Similar to ${best.id}, the best of its group of ${unit.length}: placed right after it.`;
      } else {
        note =
          room === null
            ? 'Room not read yet: placed with Other, after the photos read as Other, in its current order.'
            : known(p)
              ? `${room}: ${ordinal(rank(p) + 1)} in the room order.`
              : `${room} is not a room of the order: placed with Other, in its current order.`;
        if (unit.length > 1) note += ` The best of ${unit.length} similar photos, placed first of them.`;
      }
      reasons.push({ media_id: p.id, room, note });
    }
  }
  return { media_ids: reasons.map((r) => r.media_id), reasons };
}
