// docs/api.md §32, the MLS pack (`mls_zip`): the `mls` variants of the gallery's visible photos in
// order, named `NN-room-label.jpg`, with `photos.csv` and `compliance.txt`, written by the gallery
// ZIP's own writer (src/gallery/zip.ts plans it, zip-stream.ts streams it into storage: no
// temporary file, no archive in memory). The variants already carry no EXIF, XMP, IPTC or
// comments (docs/api.md §13), and are stored as they are: the pack adds no metadata either.
import { crc32 } from 'node:zlib';
import { Readable } from 'node:stream';
import { planZip, type ZipEntryInput } from '../../gallery/zip.ts';
import { zipStream } from '../../gallery/zip-stream.ts';

export interface MlsPhoto {
  id: string;
  /** Its place among the pack's photos, 1..n. */
  order: number;
  /** docs/api.md §30 `analysis.room` (ImageOf), or null when not read. */
  room: string | null;
  caption: string | null;
  altText: string | null;
  mls: { storageKey: string; width: number; height: number; size: number };
  modifiedAt: Date;
}

/** `Exterior front` → `exterior-front`; `photo` when unknown or nothing is left. */
export function roomSlug(room: string | null): string {
  const slug = (room ?? '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/g, '');
  return slug === '' ? 'photo' : slug;
}

/** `01-exterior-front.jpg`: two digits at least, so names sort in order. */
export const mlsFileName = (order: number, room: string | null): string =>
  `${String(order).padStart(2, '0')}-${roomSlug(room)}.jpg`;

/** One CSV field (RFC 4180): quoted when it holds a quote, comma or line break; quotes doubled. */
export function csvField(value: string | number | null): string {
  const s = value === null ? '' : String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** `photos.csv`: a header and one line per photo, CRLF line ends. */
export function photosCsv(photos: readonly MlsPhoto[], names: readonly string[]): string {
  const lines = [['file', 'order', 'room', 'caption', 'alt_text', 'width', 'height'].join(',')];
  photos.forEach((p, i) => {
    lines.push(
      [names[i] ?? '', p.order, roomSlug(p.room), p.caption, p.altText, p.mls.width, p.mls.height]
        .map(csvField)
        .join(','),
    );
  });
  return `${lines.join('\r\n')}\r\n`;
}

/** What docs/api.md §31 says of the gallery under its profile (mls.entry.ts), or undefined without one. */
export interface MlsVerdict {
  profileName: string;
  maxPhotos: number;
  status: string;
  photos: readonly {
    media_id: string;
    status: string;
    issues: readonly { code: string; message: string; severity: string }[];
  }[];
  issues: readonly { code: string; message: string; severity: string }[];
}

/**
 * The pack's photos and `compliance.txt` (docs/api.md §31, §32): with a profile, only the photos
 * that pass it (`pass` or `warn`: nothing failed, and the analysis done), at most its `max_photos`,
 * and the report; without one, every photo and "No MLS profile".
 */
export function mlsCompliance(
  photos: readonly MlsPhoto[],
  verdict: MlsVerdict | undefined,
): { photos: MlsPhoto[]; report: string } {
  if (verdict === undefined) return { photos: [...photos], report: 'No MLS profile\r\n' };
  const byId = new Map(verdict.photos.map((p) => [p.media_id, p]));
  const passing = photos.filter((p) => {
    const status = byId.get(p.id)?.status;
    return status === 'pass' || status === 'warn';
  });
  const kept = passing.slice(0, verdict.maxPhotos);
  const lines = [`MLS profile: ${verdict.profileName}`, `Status: ${verdict.status}`];
  lines.push(`Photos in this pack: ${kept.length} of ${photos.length} (at most ${verdict.maxPhotos})`);
  for (const issue of verdict.issues) lines.push(`Gallery ${issue.severity}: ${issue.message} (${issue.code})`);
  photos.forEach((p, i) => {
    const judged = byId.get(p.id);
    const inPack = kept.includes(p);
    lines.push(`Photo ${i + 1} (${p.id}): ${judged?.status ?? 'not judged'}${inPack ? '' : ', left out'}`);
    for (const issue of judged?.issues ?? []) lines.push(`  ${issue.severity}: ${issue.message} (${issue.code})`);
  });
  return { photos: kept, report: `${lines.join('\r\n')}\r\n` };
}

export interface MlsPack {
  size: number;
  /** The archive's bytes, streamed: each photo read from storage as its turn comes. */
  stream(): Readable;
}

/**
 * Plans the pack. Each photo's CRC-32 is read first (one pass over its `mls` variant): the ZIP's
 * headers need it before its data, and variants do not record one.
 */
export async function planMlsPack(
  photos: readonly MlsPhoto[],
  report: string,
  open: (storageKey: string, range?: { start: number; end: number }) => Promise<Readable>,
  now: Date,
): Promise<MlsPack> {
  const names = photos.map((p) => mlsFileName(p.order, p.room));
  const csv = Buffer.from(photosCsv(photos, names));
  const compliance = Buffer.from(report);
  const inputs: ZipEntryInput[] = [];
  for (const [i, p] of photos.entries()) {
    let crc = 0;
    for await (const chunk of await open(p.mls.storageKey)) crc = crc32(chunk as Buffer, crc);
    inputs.push({
      name: names[i] ?? 'photo.jpg',
      size: p.mls.size,
      crc32: crc,
      modifiedAt: p.modifiedAt,
      identity: p.mls.storageKey,
    });
  }
  const extras = [
    { name: 'photos.csv', bytes: csv },
    { name: 'compliance.txt', bytes: compliance },
  ];
  for (const e of extras) {
    inputs.push({ name: e.name, size: e.bytes.length, crc32: crc32(e.bytes), modifiedAt: now, identity: e.name });
  }
  const plan = planZip(inputs);
  return {
    size: plan.size,
    stream: () =>
      zipStream(plan, async (index, start, end) => {
        const photo = photos[index];
        if (photo !== undefined) return open(photo.mls.storageKey, { start, end });
        const extra = extras[index - photos.length];
        if (extra === undefined) throw new Error(`kit: no ZIP entry ${index}`);
        return Readable.from([extra.bytes.subarray(start, end + 1)]);
      }),
  };
}
