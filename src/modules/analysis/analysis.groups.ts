// Similar photos of one gallery (docs/api.md §30): photos whose hashes differ in at most
// SIMILAR_BITS of 64 bits are linked, and each connected set of two or more is a group; in each,
// the sharpest (then the largest, then the first uploaded) is the best. A photo near no other has
// no group and is the best of itself.
import { hammingDistance } from './analysis.pixels.ts';

export const SIMILAR_BITS = 10;

export interface Hashed {
  id: string;
  phash: string;
  sharpness: number;
  pixels: number;
}

export interface Grouping {
  similarGroup: string | null;
  bestInGroup: boolean;
}

export function groupSimilar(photos: readonly Hashed[]): Map<string, Grouping> {
  const sorted = [...photos].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const parent = sorted.map((_, i) => i);
  const find = (i: number): number => {
    let at = i;
    for (let up = parent[at] ?? at; up !== at; up = parent[at] ?? at) at = up;
    return at;
  };
  for (const [i, p] of sorted.entries()) {
    for (const [j, q] of sorted.entries()) {
      if (j > i && hammingDistance(p.phash, q.phash) <= SIMILAR_BITS) {
        const a = find(i);
        const b = find(j);
        // The root is the member with the smallest id: the group's name stays while it grows.
        if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
      }
    }
  }
  const members = new Map<number, Hashed[]>();
  sorted.forEach((p, i) => {
    const root = find(i);
    const list = members.get(root);
    if (list === undefined) members.set(root, [p]);
    else list.push(p);
  });
  const out = new Map<string, Grouping>();
  for (const list of members.values()) {
    const [first] = list;
    if (first === undefined) continue;
    if (list.length === 1) {
      out.set(first.id, { similarGroup: null, bestInGroup: true });
      continue;
    }
    // Named after its first member: `sim_` and that photo's id without its `med_`.
    const name = `sim_${first.id.replace(/^med_/, '')}`;
    const best = list.reduce((b, p) =>
      p.sharpness > b.sharpness || (p.sharpness === b.sharpness && p.pixels > b.pixels) ? p : b,
    );
    for (const p of list) out.set(p.id, { similarGroup: name, bestInGroup: p === best });
  }
  return out;
}
