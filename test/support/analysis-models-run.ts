// The model stage over its labelled set (docs/analysis.md), run in a process of its own by
// analysis.models.test.ts under test/support/no-network.ts: it loads the models once (measuring
// the load and the memory) and prints one JSON line per photo: the truth, what was read, and the
// CPU each model took; then the first photo again as ANALYSIS_OCR=off reads it.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ModelAnalysis } from '../../src/modules/analysis/analysis.models.ts';
import { modelReader } from '../../src/modules/analysis/analysis.models.thread.ts';
import { altText, inferRoom } from '../../src/modules/analysis/analysis.rooms.ts';
import { floorPlan, peoplePhotos, qrPhoto, roomPhoto, signPhoto } from './analysis-photos.ts';

export interface Truth {
  name: string;
  faces?: number;
  people?: number;
  words?: string[];
  qr?: string[];
  room?: string;
}

async function labelledSet(): Promise<{ truth: Truth; jpeg: Buffer }[]> {
  const set: { truth: Truth; jpeg: Buffer }[] = [];
  const words = (lines: string[]) => lines.join(' ').split(' ');
  const sign1 = ['FOR SALE', 'OPEN HOUSE SUNDAY'];
  const sign2 = ['3 BEDROOMS 2 BATHS', 'CALL 555 0142'];
  set.push({ truth: { name: 'sign, 44 pt', words: words(sign1), faces: 0, people: 0, qr: [] }, jpeg: await signPhoto(51, sign1) }); // prettier-ignore
  set.push({ truth: { name: 'sign, 28 pt', words: words(sign2), faces: 0, people: 0 }, jpeg: await signPhoto(52, sign2, 28, { left: 520, top: 120 }) }); // prettier-ignore
  set.push({ truth: { name: 'QR code, 240 px', qr: ['https://example.com/listings/42'], faces: 0, people: 0 }, jpeg: await qrPhoto(53, 'https://example.com/listings/42', 240) }); // prettier-ignore
  set.push({ truth: { name: 'QR code, 120 px', qr: ['WIFI:S:Guest;T:WPA;P:lightbox;;'], faces: 0, people: 0 }, jpeg: await qrPhoto(54, 'WIFI:S:Guest;T:WPA;P:lightbox;;', 120, { left: 200, top: 500 }) }); // prettier-ignore
  set.push({ truth: { name: 'floor plan', room: 'Floor Plan', faces: 0, people: 0, qr: [] }, jpeg: await floorPlan(55) }); // prettier-ignore
  set.push({ truth: { name: 'drawn room, nothing in it', room: 'Other', faces: 0, people: 0, qr: [], words: [] }, jpeg: await roomPhoto(56) }); // prettier-ignore
  for (const p of await peoplePhotos()) set.push({ truth: { name: p.name, faces: p.faces, people: p.people, qr: [] }, jpeg: p.jpeg }); // prettier-ignore
  return set;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-models-'));
  try {
    const set = await labelledSet();
    const rssBefore = process.memoryUsage().rss;
    const reader = modelReader({ ocr: true, maxPixels: 100_000_000 });
    let first = true;
    for (const [i, { truth, jpeg }] of set.entries()) {
      const file = path.join(dir, `${i}.jpg`);
      await writeFile(file, jpeg);
      const cpu = process.cpuUsage();
      const started = performance.now();
      const read: ModelAnalysis = await reader.read(file);
      const used = process.cpuUsage(cpu);
      const room = inferRoom(read.objects, read.scene);
      process.stdout.write(
        `${JSON.stringify({
          truth,
          read: { ...read, room, alt_text: altText(room, read.objects) },
          // The first photo's figures include loading the models.
          loading: first,
          cpu_ms: Math.round((used.user + used.system) / 1000),
          wall_ms: Math.round(performance.now() - started),
        })}\n`,
      );
      first = false;
    }
    process.stdout.write(`${JSON.stringify({ rss_mb: Math.round(process.memoryUsage().rss / 1e6), rss_before_mb: Math.round(rssBefore / 1e6) })}\n`); // prettier-ignore
    await reader.close();
    const noOcr = modelReader({ ocr: false, maxPixels: 100_000_000 });
    const again = await noOcr.read(path.join(dir, '0.jpg'));
    process.stdout.write(`${JSON.stringify({ without_ocr: { text: again.text, faces: again.faces } })}\n`);
    await noOcr.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
