// The studio's room order (docs/api.md §30),
// the order the suggested photo order follows: each of the 14 values exactly once.
import { ROOMS, type RoomLabel } from './analysis.rooms.ts';

/**
 * A photo leaning more than this many degrees is flagged as tilted in the dashboard: the same
 * threshold as docs/api.md §31's `tilted` compliance issue, so the studio meets one rule.
 */
export const TILT_FLAG_DEGREES = 2;

/** A room label: one of the 14 RESO ImageOf values of docs/api.md §30. */
export type Room = RoomLabel;

/**
 * docs/api.md §30's default: exterior front first, then living, kitchen, dining, bedrooms,
 * bathrooms, the other rooms, exterior rear, aerial, floor plans.
 */
export const DEFAULT_ROOM_ORDER: readonly Room[] = [
  'Exterior Front',
  'Living Room',
  'Kitchen',
  'Dining Room',
  'Bedroom',
  'Bathroom',
  'Office',
  'Laundry',
  'Garage',
  'Pool',
  'Other',
  'Exterior Rear',
  'Aerial View',
  'Floor Plan',
];

const KNOWN: ReadonlySet<string> = new Set(ROOMS);

export const isRoom = (value: string): value is Room => KNOWN.has(value);

/**
 * What is wrong with a room order, in words for a form or an error (empty when it is right):
 * every one of the 14 values exactly once, and nothing else.
 */
export function roomOrderProblems(order: readonly string[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const room of order) {
    if (!isRoom(room)) problems.push(`"${room}" is not a room`);
    else if (seen.has(room)) problems.push(`${room} is named more than once`);
    seen.add(room);
  }
  for (const room of ROOMS) if (!seen.has(room)) problems.push(`${room} is missing`);
  return problems;
}

/** A stored room order (JSON), or the default when none is stored or it is not a right one. */
export function parseRoomOrder(stored: string | null): readonly Room[] {
  if (stored === null) return DEFAULT_ROOM_ORDER;
  try {
    const value: unknown = JSON.parse(stored);
    if (Array.isArray(value) && value.every((v) => typeof v === 'string') && roomOrderProblems(value).length === 0) {
      return value as Room[];
    }
  } catch {
    // A stored value is written by setRoomOrder only; anything else reads as the default.
  }
  return DEFAULT_ROOM_ORDER;
}
