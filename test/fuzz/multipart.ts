// Upload bodies for the fuzz suite: random mixes of accepted files (a real JPEG, a PDF), refused
// ones (text, HTML, an executable, an empty file) and plain form fields, under random field names,
// file names and declared types. docs/api.md §6 says exactly what each mix must get: no file part is
// 400, any refused file is 415 (and nothing is kept), otherwise 201 with every file in order.
import fc from 'fast-check';
import { multipart, type Part } from '../support/media-fixtures.ts';
import { text } from './arbitraries.ts';
import type { Files } from './world.ts';

export type FileKind = 'jpeg' | 'pdf' | 'text' | 'html' | 'elf' | 'empty';

export interface PartPlan {
  kind: FileKind | 'field';
  field: string;
  filename: string;
  declared: string;
  value: string;
}

export interface MultipartPlan {
  parts: PartPlan[];
}

const ACCEPTED: ReadonlySet<FileKind | 'field'> = new Set(['jpeg', 'pdf']);

/** Header-safe text: no quotes, backslashes or line breaks, which would change the part's headers. */
const headerSafe = (s: string): string => s.replace(/["\\\r\n]/g, '_');

const FILENAMES = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('photo.jpg', 'IMG_0001.JPG', 'brochure.pdf', 'a') },
  { weight: 3, arbitrary: text(1, 80) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '../../etc/passwd',
      'C:/Users/me/photo.jpg',
      'dir/sub/photo.jpg',
      '..',
      '.',
      '\u202egpj.exe',
      'tab\there.jpg',
      '%00.jpg',
      'x'.repeat(300),
      `${'e\u0301'.repeat(200)}.jpg`,
      '😀'.repeat(260),
    ),
  },
);

const partArb: fc.Arbitrary<PartPlan> = fc.record({
  kind: fc.constantFrom<PartPlan['kind']>('jpeg', 'jpeg', 'pdf', 'pdf', 'text', 'html', 'elf', 'empty', 'field'),
  // Not a name of Object.prototype's (`__proto__`, `constructor`, ...: fast-check favours them):
  // @fastify/multipart refuses those with 400 when it reaches the part, which may be before or
  // after another part's refusal, so no single status can be expected of such an upload.
  field: fc
    .oneof(
      fc.constant('files'),
      fc.constant('file'),
      fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 20 }),
    )
    .filter((name) => !(headerSafe(name) in Object.prototype)),
  filename: FILENAMES.map(headerSafe).filter((f) => f.trim() !== ''),
  declared: fc.constantFrom('image/jpeg', 'application/pdf', 'text/html', 'application/octet-stream', 'image/svg+xml'),
  value: fc.string({ maxLength: 30 }),
});

export const multipartArb: fc.Arbitrary<MultipartPlan> = fc.record({
  parts: fc.array(partArb, { minLength: 0, maxLength: 4 }),
});

function data(kind: FileKind, files: Files): Buffer {
  switch (kind) {
    case 'jpeg':
      return files.jpeg;
    case 'pdf':
      return files.pdf;
    case 'text':
      return Buffer.from('Just some notes about the shoot.\n'.repeat(5));
    case 'html':
      return Buffer.from('<!DOCTYPE html><html><script>alert(1)</script></html>');
    case 'elf':
      return Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(120)]);
    case 'empty':
      return Buffer.alloc(0);
  }
}

export function buildMultipart(plan: MultipartPlan, files: Files): { body: Buffer; contentType: string } {
  const parts: Part[] = plan.parts.map((p) =>
    p.kind === 'field'
      ? { field: headerSafe(p.field), data: p.value }
      : { field: headerSafe(p.field), filename: p.filename, contentType: p.declared, data: data(p.kind, files) },
  );
  return multipart(parts);
}

/** The status docs/api.md §6 prescribes for this upload into an existing gallery. */
export function expectedUploadStatus(plan: MultipartPlan): number {
  // A part named like a property of Object.prototype (`toString`) is skipped by the multipart
  // parser, which refuses the request (400) once the body has ended; before that, the service
  // refuses the first file that is not a photo, video or document (415).
  const named = (p: PartPlan): boolean => headerSafe(p.field) in Object.prototype;
  const files = plan.parts.filter((p) => p.kind !== 'field' && !named(p));
  if (files.some((p) => !ACCEPTED.has(p.kind))) return 415;
  if (plan.parts.some(named)) return 400;
  return files.length > 0 ? 201 : 400;
}

export const uploadedFileCount = (plan: MultipartPlan): number => plan.parts.filter((p) => p.kind !== 'field').length;
