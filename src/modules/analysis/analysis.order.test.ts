// docs/api.md §30's suggested order, rule by rule, as a pure function (the HTTP route, its scope
// and the studio's setting are in analysis.routes.test.ts): rooms in the studio's order, unread
// rooms with Other in their current order, similar photos together with the best first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suggestOrder, type OrderPhoto } from './analysis.order.ts';
import { DEFAULT_ROOM_ORDER, parseRoomOrder, roomOrderProblems, type Room } from './analysis.room-order.ts';
import { ROOMS } from './analysis.rooms.ts';

const photo = (id: string, position: number, room: string | null, more: Partial<OrderPhoto> = {}): OrderPhoto => ({
  id,
  position,
  room,
  similarGroup: null,
  bestInGroup: true,
  sharpness: 0.7,
  ...more,
});

test('rooms follow the default order; within a room, the current order', () => {
  const photos = [
    photo('med_plan', 1, 'Floor Plan'),
    photo('med_bed', 2, 'Bedroom'),
    photo('med_kitchen2', 3, 'Kitchen'),
    photo('med_front', 4, 'Exterior Front'),
    photo('med_kitchen1', 5, 'Kitchen'),
    photo('med_rear', 6, 'Exterior Rear'),
    photo('med_aerial', 7, 'Aerial View'),
    photo('med_living', 8, 'Living Room'),
    photo('med_garage', 9, 'Garage'),
  ];
  const { media_ids, reasons } = suggestOrder(photos, DEFAULT_ROOM_ORDER);
  assert.deepEqual(media_ids, [
    'med_front',
    'med_living',
    'med_kitchen2',
    'med_kitchen1',
    'med_bed',
    'med_garage',
    'med_rear',
    'med_aerial',
    'med_plan',
  ]);
  assert.deepEqual(
    reasons.map((r) => r.media_id),
    media_ids,
  );
  assert.deepEqual(reasons[0], {
    media_id: 'med_front',
    room: 'Exterior Front',
    note: 'Exterior Front: 1st in the room order.',
  });
  assert.equal(reasons[2]?.note, 'Kitchen: 3rd in the room order.');
});

test("the studio's own order is followed", () => {
  const order: Room[] = ['Kitchen', ...DEFAULT_ROOM_ORDER.filter((r) => r !== 'Kitchen')];
  const photos = [photo('med_a', 1, 'Exterior Front'), photo('med_b', 2, 'Kitchen')];
  assert.deepEqual(suggestOrder(photos, order).media_ids, ['med_b', 'med_a']);
});

test('unread rooms go with Other, after the photos read as Other, in their current order', () => {
  const photos = [
    photo('med_u1', 1, null),
    photo('med_rear', 2, 'Exterior Rear'),
    photo('med_other', 3, 'Other'),
    photo('med_u2', 4, null),
    photo('med_odd', 5, 'Attic'),
    photo('med_pool', 6, 'Pool'),
    photo('med_front', 7, 'Exterior Front'),
  ];
  const { media_ids, reasons } = suggestOrder(photos, DEFAULT_ROOM_ORDER);
  assert.deepEqual(media_ids, ['med_front', 'med_pool', 'med_other', 'med_u1', 'med_u2', 'med_odd', 'med_rear']);
  const u1 = reasons.find((r) => r.media_id === 'med_u1');
  assert.equal(u1?.room, null);
  assert.match(u1?.note ?? '', /^Room not read yet: placed with Other/);
  assert.match(reasons.find((r) => r.media_id === 'med_odd')?.note ?? '', /Attic is not a room of the order/);
});

test('with no room read at all (before the model stage), the current order stays', () => {
  const photos = [photo('med_3', 3, null), photo('med_1', 1, null), photo('med_2', 2, null)];
  assert.deepEqual(suggestOrder(photos, DEFAULT_ROOM_ORDER).media_ids, ['med_1', 'med_2', 'med_3']);
});

test("a similar group stays together at its first photo's place, the best first", () => {
  const g = { similarGroup: 'sim_x' };
  const photos = [
    photo('med_k1', 1, 'Kitchen', { ...g, bestInGroup: false, sharpness: 0.5 }),
    photo('med_front', 2, 'Exterior Front'),
    photo('med_k2', 3, 'Kitchen', { ...g, bestInGroup: false, sharpness: 0.6 }),
    photo('med_bath', 4, 'Bathroom'),
    photo('med_k3', 5, 'Kitchen', { ...g, bestInGroup: true, sharpness: 0.9 }),
    photo('med_kitchen', 6, 'Kitchen'),
  ];
  const { media_ids, reasons } = suggestOrder(photos, DEFAULT_ROOM_ORDER);
  // The group's place is its first photo's (position 1: before the kitchen at 6), led by its best;
  // the rest follow the best, the sharper first.
  assert.deepEqual(media_ids, ['med_front', 'med_k3', 'med_k2', 'med_k1', 'med_kitchen', 'med_bath']);
  assert.match(reasons[1]?.note ?? '', /The best of 3 similar photos, placed first of them\.$/);
  assert.equal(reasons[2]?.note, 'Similar to med_k3, the best of its group of 3: placed right after it.');
});

test('the best of a group takes the place of its first photo', () => {
  const g = { similarGroup: 'sim_w' };
  const photos = [
    photo('med_a', 1, null, { ...g, bestInGroup: false }),
    photo('med_b', 2, null),
    photo('med_c', 3, null, { ...g, bestInGroup: true }),
  ];
  assert.deepEqual(suggestOrder(photos, DEFAULT_ROOM_ORDER).media_ids, ['med_c', 'med_a', 'med_b']);
});

test("a group whose photos read as different rooms follows its best one's room", () => {
  const g = { similarGroup: 'sim_y' };
  const photos = [
    photo('med_a', 1, 'Dining Room', { ...g, bestInGroup: false }),
    photo('med_b', 2, 'Living Room', { ...g, bestInGroup: true }),
    photo('med_c', 3, 'Kitchen'),
  ];
  assert.deepEqual(suggestOrder(photos, DEFAULT_ROOM_ORDER).media_ids, ['med_b', 'med_a', 'med_c']);
});

test('a group whose best photo is hidden (not given) is led by its sharpest visible one', () => {
  const g = { similarGroup: 'sim_z', bestInGroup: false };
  const photos = [photo('med_a', 1, null, { ...g, sharpness: 0.4 }), photo('med_b', 2, null, { ...g, sharpness: 0.8 })];
  assert.deepEqual(suggestOrder(photos, DEFAULT_ROOM_ORDER).media_ids, ['med_b', 'med_a']);
});

test('a room order: the 14 rooms, each exactly once', () => {
  assert.deepEqual(roomOrderProblems(DEFAULT_ROOM_ORDER), []);
  assert.equal(new Set(DEFAULT_ROOM_ORDER).size, ROOMS.length);
  assert.deepEqual(roomOrderProblems([...DEFAULT_ROOM_ORDER.slice(1), 'Kitchen']), [
    'Kitchen is named more than once',
    'Exterior Front is missing',
  ]);
  assert.deepEqual(roomOrderProblems([...DEFAULT_ROOM_ORDER, 'Attic']), ['"Attic" is not a room']);
  assert.deepEqual(parseRoomOrder(null), DEFAULT_ROOM_ORDER);
  assert.deepEqual(parseRoomOrder('["Kitchen"]'), DEFAULT_ROOM_ORDER);
  const mine = [...DEFAULT_ROOM_ORDER].reverse();
  assert.deepEqual(parseRoomOrder(JSON.stringify(mine)), mine);
});
