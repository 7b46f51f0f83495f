// The newer paths' part of one size of `npm run bench` (packages/bench/src/lib/paths.ts measures them):
// before the core rounds, the gallery they share (variant generation timed on the way); after,
// the gallery page against the media list (from the core rounds), the ZIP, webhooks, uploads.
import {
  uploadRows,
  variantsAndGallery,
  webhookRows,
  zipRow,
  type GalleryFixture,
  type PathRow,
  type PathsContext,
} from './paths.ts';
import { fixed, median, table, type RoundResult } from './report.ts';

export interface PathsRun {
  fixture: GalleryFixture;
  rows: PathRow[];
}

export async function startPaths(ctx: PathsContext, size: string): Promise<PathsRun> {
  const started = performance.now();
  const { fixture, row } = await variantsAndGallery(ctx, size);
  ctx.log(`  newer paths: gallery of ${fixture.photos} photos at ${fixture.linkPath.slice(0, 12)}… ready in ${fixed((performance.now() - started) / 1000)} s`); // prettier-ignore
  return { fixture, rows: [row] };
}

export async function finishPaths(
  ctx: PathsContext,
  size: string,
  run: PathsRun,
  gallery: RoundResult[] | undefined,
  media: RoundResult[] | undefined,
): Promise<PathRow[]> {
  const rows = [...run.rows];
  if (gallery !== undefined && media !== undefined && gallery.length === media.length) {
    const rounds = gallery.map((g, i) => ({ value: g.rps, baselineValue: media[i]?.rps ?? NaN }));
    rows.push({
      size,
      name: 'gallery',
      label: `gallery page /g/<token> (${run.fixture.photos} photos)`,
      unit: 'req/s',
      value: median(rounds.map((r) => r.value)),
      baseline: 'GET /v1/listings/:id/media, same gallery',
      baselineValue: median(rounds.map((r) => r.baselineValue)),
      ratio: median(rounds.map((r) => r.value / r.baselineValue)),
      note: 'in the core rounds (each also against the bare server there)',
      rounds,
    });
  }
  rows.push(await zipRow(ctx, size, run.fixture));
  rows.push(...(await webhookRows(ctx, size)));
  rows.push(...(await uploadRows(ctx, size)));
  return rows;
}

export function pathsTable(rows: PathRow[]): string {
  return table([
    ['size', 'path', 'value', 'baseline (same run)', 'baseline value', 'ratio', 'note'],
    ...rows.map((r) => [
      r.size,
      r.label,
      Number.isFinite(r.value) ? `${fixed(r.value, r.value < 10 ? 2 : 0)} ${r.unit}` : 'not available',
      r.baseline,
      Number.isFinite(r.baselineValue) ? `${fixed(r.baselineValue, r.baselineValue < 10 ? 2 : 0)} ${r.unit}` : 'n/a',
      Number.isFinite(r.ratio) && r.baseline !== '-' ? `${fixed(r.ratio, 2)}x` : '-',
      r.note,
    ]),
  ]);
}
