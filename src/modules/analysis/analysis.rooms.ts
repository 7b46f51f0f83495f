// The room a photo shows, as a RESO ImageOf value, and its one-sentence alt text (docs/api.md §30,
// docs/analysis.md): inferred from the things the object detector saw and a few shares of the
// photo's pixels, by rules, not by a model of rooms (none ships in an npm package). Each rule
// scores its room from the confidences of its evidence; the best score wins, and with no evidence
// the photo is `Other` at low confidence. `Exterior Rear`, `Laundry` and `Aerial View` are never
// inferred: nothing the detector knows tells a back garden from a front one, or shows a washer.
import type { SceneStats, Seen } from './analysis.models.ts';

export const ROOMS = [
  'Exterior Front',
  'Exterior Rear',
  'Living Room',
  'Kitchen',
  'Dining Room',
  'Bedroom',
  'Bathroom',
  'Office',
  'Laundry',
  'Garage',
  'Pool',
  'Aerial View',
  'Floor Plan',
  'Other',
] as const;
export type RoomLabel = (typeof ROOMS)[number];

export interface Room {
  label: RoomLabel;
  confidence: number;
}

/** What the model stage found, as recorded on the photo's row (analysis.job.ts). */
export interface ModelFindings {
  faces: number;
  people: number;
  objects: Seen[];
  text: { text: string; confidence: number }[] | null;
  qrCodes: { data: string }[];
  room: Room;
  altText: string | null;
}

/** The confidence of `Other` when nothing points anywhere. */
const UNSURE = 0.2;

/** Combined evidence: each thing (best confidence per label, weighted) adds what the others left. */
function evidence(best: Map<string, number>, weights: Record<string, number>): number {
  let missing = 1;
  for (const [label, weight] of Object.entries(weights)) missing *= 1 - (best.get(label) ?? 0) * weight;
  return 1 - missing;
}

export function inferRoom(objects: readonly Seen[], scene: SceneStats): Room {
  const best = new Map<string, number>();
  for (const o of objects) best.set(o.label, Math.max(best.get(o.label) ?? 0, o.confidence));
  const has = (label: string) => best.has(label);
  const appliances = evidence(best, { oven: 1, refrigerator: 1, microwave: 0.9, toaster: 0.8 });
  const scores: [RoomLabel, number][] = [];

  // A floor plan: mostly white paper with dark lines, little colour and no things.
  if (
    scene.white >= 0.55 &&
    scene.saturation < 0.08 &&
    scene.dark >= 0.005 &&
    scene.dark <= 0.35 &&
    objects.length === 0
  )
    scores.push(['Floor Plan', Math.min(0.9, 0.4 + scene.white * 0.5)]);

  scores.push(['Kitchen', Math.max(appliances, evidence(best, { sink: 0.5 }) * (has('toilet') ? 0 : 1))]);
  scores.push(['Bathroom', Math.max(evidence(best, { toilet: 1 }), has('sink') && appliances === 0 && !has('bed') ? evidence(best, { sink: 0.6 }) : 0)]); // prettier-ignore
  scores.push(['Bedroom', evidence(best, { bed: 1 })]);
  scores.push(['Dining Room', has('dining table') && appliances < 0.3 ? evidence(best, { 'dining table': 0.8, chair: 0.4 }) : 0]); // prettier-ignore
  scores.push(['Living Room', evidence(best, { couch: 0.95, tv: 0.7, 'potted plant': 0.2, chair: 0.2 }) * (has('bed') ? 0.5 : 1)]); // prettier-ignore
  scores.push(['Office', evidence(best, { laptop: 0.7, keyboard: 0.8, mouse: 0.6 })]);

  const vehicles = evidence(best, { car: 1, truck: 0.9, motorcycle: 0.8, bicycle: 0.5 });
  // A sky over a fifth of the top third is outdoors; over half of it, surely.
  const outdoors = scene.sky < 0.2 ? 0 : Math.min(1, scene.sky * 2);
  // A vehicle under a roof is in a garage; under a sky, in front of the house.
  scores.push(['Garage', vehicles * (1 - outdoors) * 0.8]);
  scores.push(['Exterior Front', Math.max(vehicles * outdoors, outdoors * 0.6)]);
  scores.push(['Pool', Math.min(0.85, scene.water * 2) * (scene.water >= 0.15 ? 1 : 0)]);

  let room: Room = { label: 'Other', confidence: UNSURE };
  for (const [label, score] of scores)
    if (score > room.confidence) room = { label, confidence: Math.round(score * 1000) / 1000 };
  return room;
}

// --- alt text ---------------------------------------------------------------------------------

/** How a COCO label reads in a sentence, and its plural. */
const WORDS: Record<string, [string, string]> = {
  tv: ['TV', 'TVs'],
  couch: ['sofa', 'sofas'],
  person: ['person', 'people'],
  'dining table': ['dining table', 'dining tables'],
  'potted plant': ['potted plant', 'potted plants'],
  'wine glass': ['wine glass', 'wine glasses'],
  bench: ['bench', 'benches'],
  bus: ['bus', 'buses'],
  knife: ['knife', 'knives'],
  mouse: ['mouse', 'mice'],
  sheep: ['sheep', 'sheep'],
  skis: ['pair of skis', 'pairs of skis'],
  scissors: ['pair of scissors', 'pairs of scissors'],
};

const NUMBERS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];

function phrase(label: string, count: number): string {
  const [one, many] = WORDS[label] ?? [label, `${label}s`];
  if (count === 1) return `${/^[aeiou]/i.test(one) ? 'an' : 'a'} ${one}`;
  return `${NUMBERS[count] ?? String(count)} ${many}`;
}

function list(parts: string[]): string {
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/** At most this many kinds of thing are named. */
const NAMED = 3;

/**
 * One sentence from the room and the things seen ("Kitchen with an oven and a refrigerator"),
 * the most confident kinds of thing first; null when there is nothing to say.
 */
export function altText(room: Room | null, objects: readonly Seen[]): string | null {
  const counts = new Map<string, number>();
  for (const o of objects) counts.set(o.label, (counts.get(o.label) ?? 0) + 1);
  const parts = [...counts].slice(0, NAMED).map(([label, n]) => phrase(label, n));
  const known = room !== null && room.label !== 'Other';
  if (!known && parts.length === 0) return null;
  const subject = known ? room.label : 'Photo';
  return parts.length === 0 ? subject : `${subject} with ${list(parts)}`;
}
