// The room and alt text rules (docs/api.md §30, docs/analysis.md) on things as the detector
// reports them: each room from its evidence, the floor plan, the sky and the pool from the
// pixels' shares, `Other` when nothing points anywhere, and the sentence built from them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SceneStats, Seen } from './analysis.models.ts';
import { altText, inferRoom, ROOMS } from './analysis.rooms.ts';

const indoors: SceneStats = { white: 0.05, dark: 0.1, saturation: 0.3, sky: 0, water: 0 };
const seen = (...pairs: [string, number][]): Seen[] => pairs.map(([label, confidence]) => ({ label, confidence }));

test('each room from what is seen in it', () => {
  const cases: [Seen[], SceneStats, string][] = [
    [seen(['oven', 0.8], ['refrigerator', 0.6]), indoors, 'Kitchen'],
    [seen(['sink', 0.7], ['microwave', 0.5]), indoors, 'Kitchen'],
    [seen(['toilet', 0.6], ['sink', 0.7]), indoors, 'Bathroom'],
    [seen(['sink', 0.8]), indoors, 'Bathroom'],
    [seen(['bed', 0.7], ['chair', 0.5]), indoors, 'Bedroom'],
    [seen(['dining table', 0.7], ['chair', 0.6], ['chair', 0.5]), indoors, 'Dining Room'],
    [seen(['couch', 0.7], ['tv', 0.6]), indoors, 'Living Room'],
    [seen(['laptop', 0.7], ['keyboard', 0.6], ['chair', 0.5]), indoors, 'Office'],
    [seen(['car', 0.8]), indoors, 'Garage'],
    [seen(['car', 0.8]), { ...indoors, sky: 0.5 }, 'Exterior Front'],
    [[], { ...indoors, sky: 0.6 }, 'Exterior Front'],
    [[], { ...indoors, sky: 0.3, water: 0.4 }, 'Pool'],
    [[], { white: 0.9, dark: 0.05, saturation: 0.01, sky: 0, water: 0 }, 'Floor Plan'],
    [[], indoors, 'Other'],
    [seen(['person', 0.7]), indoors, 'Other'],
  ];
  for (const [objects, scene, label] of cases) {
    const room = inferRoom(objects, scene);
    assert.equal(room.label, label, JSON.stringify(objects));
    assert.ok(ROOMS.includes(room.label));
    assert.ok(room.confidence > 0 && room.confidence <= 1);
  }
  assert.deepEqual(inferRoom([], indoors), { label: 'Other', confidence: 0.2 });
  // More evidence, more confidence.
  assert.ok(
    inferRoom(seen(['oven', 0.8], ['refrigerator', 0.6]), indoors).confidence >
      inferRoom(seen(['oven', 0.8]), indoors).confidence,
  );
});

test('the alt text: the room, then the most confident things, counted and in plain words', () => {
  const kitchen = { label: 'Kitchen', confidence: 0.9 } as const;
  assert.equal(altText(kitchen, seen(['oven', 0.8], ['refrigerator', 0.6])), 'Kitchen with an oven and a refrigerator');
  assert.equal(
    altText(
      { label: 'Living Room', confidence: 0.8 },
      seen(['couch', 0.9], ['chair', 0.7], ['chair', 0.6], ['tv', 0.5], ['vase', 0.5]),
    ),
    'Living Room with a sofa, two chairs and a TV',
  );
  assert.equal(
    altText({ label: 'Other', confidence: 0.2 }, seen(['person', 0.7], ['person', 0.6])),
    'Photo with two people',
  );
  assert.equal(altText({ label: 'Floor Plan', confidence: 0.8 }, []), 'Floor Plan');
  assert.equal(altText({ label: 'Other', confidence: 0.2 }, []), null);
  assert.equal(altText(null, []), null);
});
