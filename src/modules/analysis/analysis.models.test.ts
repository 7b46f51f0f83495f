// The model stage on its labelled set (docs/analysis.md, docs/api.md §30), in one process of its
// own (test/support/analysis-models-run.ts: one load of each model) with every outbound connection
// refused (test/support/no-network.ts, in its worker threads too): the models load from the
// installation, and faces, people, words, QR codes and floor plans are read as the set says. The
// figures are printed as `# measured` lines; docs/analysis.md records them.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import type { Truth } from '../../../test/support/analysis-models-run.ts';
import type { ModelAnalysis } from './analysis.models.ts';
import type { Room } from './analysis.rooms.ts';

const RUN = fileURLToPath(new URL('../../../test/support/analysis-models-run.ts', import.meta.url));
const GUARD = fileURLToPath(new URL('../../../test/support/no-network.ts', import.meta.url));

interface Line {
  truth: Truth;
  read: ModelAnalysis & { room: Room; alt_text: string | null };
  loading: boolean;
  cpu_ms: number;
  wall_ms: number;
}

function run(): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', GUARD, RUN], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ stdout, stderr, code }));
  });
}

const share = (hits: number, of: number) => `${hits}/${of}`;

test('the models load from the installation with the network refused, and read the labelled set', async () => {
  const { stdout, stderr, code } = await run();
  assert.equal(code, 0, stderr);
  // Guarded in the main thread, the models' thread and its OCR thread; nothing tried to leave.
  assert.match(stderr, /# guarded main/);
  const workers = new Set([...stderr.matchAll(/# guarded worker (\d+)/g)].map((m) => m[1]));
  assert.ok(workers.size >= 2, `the models' thread and the OCR thread were guarded too: ${[...workers].join(', ')}`);
  assert.doesNotMatch(stderr, /# refused:/);

  const parsed = stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const lines = parsed.filter((l): l is Line & Record<string, unknown> => 'truth' in l);
  const memory = parsed.find((l) => 'rss_mb' in l) as { rss_mb: number; rss_before_mb: number };
  const withoutOcr = parsed.find((l) => 'without_ocr' in l) as { without_ocr: { text: unknown; faces: number } };

  // Faces and people: exact counts.
  const counted = lines.filter((l) => l.truth.faces !== undefined);
  const facesRight = counted.filter((l) => l.read.faces === l.truth.faces).length;
  const peopleRight = counted.filter((l) => l.read.people === l.truth.people).length;
  // Words: how many of the signs' words were read (recall), and how many read were on them.
  const signed = lines.filter((l) => l.truth.words !== undefined);
  let wordsTrue = 0;
  let wordsFound = 0;
  let wordsRead = 0;
  let wordsRight = 0;
  for (const l of signed) {
    const read = (l.read.text ?? []).map((w) => w.text.toUpperCase());
    const truth = l.truth.words ?? [];
    wordsTrue += truth.length;
    wordsFound += truth.filter((w) => read.includes(w)).length;
    wordsRead += read.length;
    wordsRight += read.filter((w) => truth.includes(w)).length;
  }
  // QR codes: exactly the codes printed, none made up.
  const coded = lines.filter((l) => l.truth.qr !== undefined);
  const qrRight = coded.filter(
    (l) => JSON.stringify(l.read.qrCodes.map((q) => q.data)) === JSON.stringify(l.truth.qr),
  ).length;
  const roomed = lines.filter((l) => l.truth.room !== undefined);
  const roomsRight = roomed.filter((l) => l.read.room.label === l.truth.room).length;
  // Things seen in photos that hold none (signs, codes, plans, an empty room): false detections.
  const empty = lines.filter((l) => l.truth.people === 0);
  const madeUp = empty.flatMap((l) => l.read.objects.map((o) => `${o.label} ${o.confidence}`));

  const after = lines.filter((l) => !l.loading);
  const mean = (f: (l: Line) => number) => Math.round(after.reduce((s, l) => s + f(l), 0) / after.length);
  const loading = lines.find((l) => l.loading);
  process.stdout.write(
    [
      `# measured faces: ${share(facesRight, counted.length)} photos counted exactly`,
      `# measured people: ${share(peopleRight, counted.length)} photos counted exactly`,
      `# measured text: ${share(wordsFound, wordsTrue)} of the signs' words read, ${share(wordsRight, wordsRead)} of the words read right`,
      `# measured qr_codes: ${share(qrRight, coded.length)} photos read exactly`,
      `# measured room: ${share(roomsRight, roomed.length)} (floor plan, empty drawn room)`,
      `# measured objects in photos holding none: ${madeUp.length === 0 ? 'none' : madeUp.join(', ')}`,
      `# measured CPU per photo after loading (ms): detectors ${mean((l) => l.read.cpuMs.detect)}, OCR ${mean((l) => l.read.cpuMs.ocr)}, QR ${mean((l) => l.read.cpuMs.qr)}, all ${mean((l) => l.cpu_ms)}`,
      `# measured first photo, loading the models (CPU ms): ${loading?.cpu_ms} (detectors ${loading?.read.cpuMs.detect}, OCR ${loading?.read.cpuMs.ocr})`,
      `# measured RSS: ${memory.rss_mb} MB with every model loaded (${memory.rss_before_mb} MB before)`,
      '',
    ].join('\n'),
  );

  assert.equal(facesRight, counted.length, 'faces');
  assert.equal(peopleRight, counted.length, 'people');
  assert.ok(wordsFound / wordsTrue >= 0.9, `words read ${wordsFound}/${wordsTrue}`);
  assert.ok(wordsRight / Math.max(1, wordsRead) >= 0.9, `words right ${wordsRight}/${wordsRead}`);
  assert.equal(qrRight, coded.length, 'QR codes');
  assert.equal(roomsRight, roomed.length, 'rooms');
  assert.deepEqual(madeUp, []);
  // ANALYSIS_OCR=off: text not read (null), the rest read as before.
  assert.deepEqual(withoutOcr.without_ocr, { text: null, faces: 0 });
});
