// docs/api.md §32, the MLS pack's names and its photos.csv: rooms slugged (`photo` when unknown),
// two-digit order prefixes, and CSV fields quoted as RFC 4180 says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { csvField, mlsCompliance, mlsFileName, photosCsv, roomSlug, type MlsPhoto } from './kit.mls.ts';

test('rooms are slugged; unknown or empty is photo', () => {
  assert.equal(roomSlug('Exterior front'), 'exterior-front');
  assert.equal(roomSlug('  Living Room / Dining  '), 'living-room-dining');
  assert.equal(roomSlug('Salle à manger'), 'salle-a-manger');
  assert.equal(roomSlug(null), 'photo');
  assert.equal(roomSlug('!!!'), 'photo');
  assert.equal(mlsFileName(1, 'Exterior front'), '01-exterior-front.jpg');
  assert.equal(mlsFileName(12, null), '12-photo.jpg');
  assert.equal(mlsFileName(105, 'Kitchen'), '105-kitchen.jpg');
});

test('CSV fields are quoted when they hold a quote, a comma or a line break', () => {
  assert.equal(csvField(null), '');
  assert.equal(csvField(12), '12');
  assert.equal(csvField('plain'), 'plain');
  assert.equal(csvField('a, b'), '"a, b"');
  assert.equal(csvField('say "hi"'), '"say ""hi"""');
  assert.equal(csvField('two\nlines'), '"two\nlines"');
  assert.equal(csvField('cr\r'), '"cr\r"');
});

test('photos.csv: a header, a line a photo, CRLF', () => {
  const photo = (order: number, caption: string | null): MlsPhoto => ({
    id: `med_${order}`,
    order,
    room: order === 1 ? 'Exterior front' : null,
    caption,
    altText: order === 1 ? 'A brick house' : null,
    mls: { storageKey: 'k', width: 2048, height: 1365, size: 1 },
    modifiedAt: new Date(0),
  });
  const csv = photosCsv([photo(1, null), photo(2, 'Kitchen, "chef\'s"')], ['01-exterior-front.jpg', '02-photo.jpg']);
  assert.equal(
    csv,
    'file,order,room,caption,alt_text,width,height\r\n' +
      '01-exterior-front.jpg,1,exterior-front,,A brick house,2048,1365\r\n' +
      '02-photo.jpg,2,photo,"Kitchen, ""chef\'s""",,2048,1365\r\n',
  );
});

test('with a profile: only the photos that pass, at most max_photos, and the report', () => {
  const photo = (n: number): MlsPhoto => ({
    id: `med_${n}`,
    order: n,
    room: null,
    caption: null,
    altText: null,
    mls: { storageKey: 'k', width: 2048, height: 1365, size: 1 },
    modifiedAt: new Date(0),
  });
  const photos = [1, 2, 3, 4].map(photo);
  const { photos: kept, report } = mlsCompliance(photos, {
    profileName: 'Bright MLS',
    maxPhotos: 2,
    status: 'fail',
    issues: [],
    photos: [
      { media_id: 'med_1', status: 'pass', issues: [] },
      {
        media_id: 'med_2',
        status: 'fail',
        issues: [{ code: 'person', message: 'A person is in the photo.', severity: 'fail' }],
      },
      { media_id: 'med_3', status: 'warn', issues: [] },
      { media_id: 'med_4', status: 'pass', issues: [] },
    ],
  });
  assert.deepEqual(
    kept.map((p) => p.id),
    ['med_1', 'med_3'],
  );
  assert.match(report, /^MLS profile: Bright MLS\r\n/);
  assert.match(report, /Photo 2 \(med_2\): fail, left out\r\n {2}fail: A person is in the photo\. \(person\)/);
  assert.match(report, /Photo 4 \(med_4\): pass, left out/);
  assert.deepEqual(mlsCompliance(photos, undefined).report, 'No MLS profile\r\n');
});
