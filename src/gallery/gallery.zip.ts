// "Download all": one ZIP of every visible original of the gallery, in position order, streamed
// from storage with its length known before the first byte and any byte range served (so a
// browser or `curl -C -` resumes a broken download). The layout is src/gallery/zip.ts's.
import { create as contentDisposition } from 'content-disposition';
import type { Readable } from 'node:stream';
import type { Services } from '../services.ts';
import type { GalleryView } from './gallery.load.ts';
import { planZip, type ZipRange } from './zip.ts';
import { zipStream } from './zip-stream.ts';

export interface GalleryZip {
  size: number;
  etag: string;
  disposition: string;
  stream(range?: ZipRange): Readable;
}

/** The name of the download: the gallery's address, made safe for a file name. */
function zipName(address: string, suffix = ''): string {
  const cleaned = Array.from(address, (c) => ((c.codePointAt(0) ?? 0) < 0x20 || c === '\u007f' ? ' ' : c))
    .join('')
    .replace(/[\\/:*?"<>|]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 120);
  return `${cleaned === '' ? 'gallery' : cleaned}${suffix}.zip`;
}

/**
 * The gallery's ZIP, or undefined while an original's CRC-32 is still being computed (pre-0008
 * uploads). `only`: the favorites ZIP (docs/api.md §25), the same ZIP of just those media, in the
 * same order, named "<address> - favorites.zip".
 */
export function zipOfGallery(
  view: GalleryView,
  services: Pick<Services, 'media'>,
  only?: ReadonlySet<string>,
): GalleryZip | undefined {
  const originals = view.media.map((m) => m.row).filter((row) => only === undefined || only.has(row.id));
  if (originals.some((row) => row.crc32 === null)) return undefined;
  const original = (index: number) => {
    const row = originals[index];
    if (row === undefined) throw new Error(`no entry ${index}`);
    return row;
  };
  const plan = planZip(
    originals.map((row) => ({
      name: row.filename,
      size: row.size,
      crc32: row.crc32 ?? 0,
      modifiedAt: new Date(row.created_at),
      identity: `${row.id}:${row.sha256}`,
    })),
  );
  return {
    size: plan.size,
    etag: plan.etag,
    disposition: contentDisposition(zipName(view.listing.address, only === undefined ? '' : ' - favorites'), {
      type: 'attachment',
    }),
    stream: (range) =>
      zipStream(
        plan,
        {
          open: (index, start, end) => services.media.open(original(index), { start, end }),
          // Local files are read into a few reused buffers when the ZIP is written into the response.
          openReader: (index) => services.media.openReader(original(index)),
        },
        range,
      ),
  };
}
