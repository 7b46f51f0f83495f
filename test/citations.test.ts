// Comments, docs and test names cite the contract and other files of this repository; a citation
// that points nowhere is worse than none. This suite reads every text file the repository keeps and
// fails on a "§N" that docs/api.md has no section N for, on a contract citation in any other form
// ("section N", "API.md"), on the shared files a clone does not have, and on a path that does not
// exist. It reads files only (no app, no database), so it costs well under a second.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Not read: installed and generated files, and the contract itself (a verbatim copy of the shared
 * specification, which names its own sibling files).
 */
const SKIPPED = new Set([
  '.git',
  'node_modules',
  '.tools',
  'data',
  'coverage',
  'bench-results',
  'test-results',
  'packages/client/dist',
  'packages/client/src/generated',
  'package-lock.json',
  'docs/api.md',
  'test/citations.test.ts',
  // Its fixtures are made-up repository files.
  'test/repository-scope.test.ts',
]);
/** Files a run writes (a bench's report, the query-plans script's output): named, never kept. */
const MADE_BY_RUNS = new Set(['results.md', 'plans.md']);
/** Folders and files skipped wherever they are: installed packages, builds, caches, lockfiles. */
const SKIPPED_NAMES = new Set([
  'node_modules',
  'dist',
  'vendor',
  '.mypy_cache',
  '.pytest_cache',
  'package-lock.json',
  'composer.lock',
]);
const TEXT = /\.(ts|js|json|md|yaml|yml|css|sh)$|^run$|^\.[a-z]+ignore$/;

function walk(dir: string, out: string[]): string[] {
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = dir === '' ? entry.name : `${dir}/${entry.name}`;
    if (SKIPPED.has(rel) || SKIPPED_NAMES.has(entry.name) || entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) walk(rel, out);
    else if (TEXT.test(entry.name)) out.push(rel);
  }
  return out;
}

const files = walk('', []);
const basenames = new Set(files.map((file) => path.basename(file)));

const decisions = readdirSync(path.join(root, 'docs/decisions'));

/** The section numbers docs/api.md has: its `## N. Title` headings. */
const sections = new Set(
  [...readFileSync(path.join(root, 'docs/api.md'), 'utf8').matchAll(/^## (\d+)\. /gm)].map(([, n = '']) => Number(n)),
);

/** Each offending line of `file` as `file:line: text`, for the lines `bad` returns a reason for. */
function offences(bad: (line: string, file: string) => string | undefined): string[] {
  const found: string[] = [];
  for (const file of files) {
    const lines = readFileSync(path.join(root, file), 'utf8').split('\n');
    lines.forEach((line, index) => {
      const reason = bad(line, file);
      if (reason !== undefined) found.push(`${file}:${index + 1}: ${reason}\n    ${line.trim()}`);
    });
  }
  return found;
}

/** Whether a cited path names a file or folder: from the root, from src/ (the layout's own
 *  shorthand, `modules/...`), from docs/ (`decisions/...`) or from the citing file's folder. */
function resolves(cited: string, file: string): boolean {
  // Build output (`dist/`) is made by `npm run client:build`; a package's own file is the package's.
  if (cited.split('/').includes('dist') || existsSync(path.join(root, 'node_modules', cited.split('/')[0] ?? ''))) {
    return true;
  }
  const bases = ['', 'src', 'docs', 'packages/client', path.dirname(file)];
  return bases.some((base) => existsSync(path.join(root, base, cited)));
}

describe('citations', () => {
  test('docs/api.md has the sections this suite checks against', () => {
    for (const n of [1, 15, 17, 27]) assert.ok(sections.has(n), `docs/api.md has no section ${n}`);
  });

  test('every §N cites a section docs/api.md has', () => {
    const found = offences((line) => {
      for (const [, from = '', to] of line.matchAll(/§(\d+)(?:-(\d+))?/g)) {
        for (let n = Number(from); n <= Number(to ?? from); n++) {
          if (!sections.has(n)) return `docs/api.md has no section ${n}`;
        }
      }
      return undefined;
    });
    assert.deepEqual(found, []);
  });

  test('the contract is cited one way, as docs/api.md §N', () => {
    const found = offences((line) => {
      // An RFC's own sections ("RFC 9110 section 13.1.2") are not the contract's.
      if (/(?<!RFC \d{3,5} )\b[Ss]ections? \d/.test(line)) return 'cite the contract as docs/api.md §N';
      if (/(?<!docs\/)\bapi\.md\b/i.test(line)) return 'the contract is docs/api.md';
      return undefined;
    });
    assert.deepEqual(found, []);
  });

  test('nothing cites the shared files a clone does not have', () => {
    const found = offences((line) =>
      /\b(SEED\.md|STYLE\.md|PERF-NOTES|shared\/spec)\b|\.\.\/shared\//.test(line)
        ? 'not in this repository: cite docs/ or say it in place'
        : undefined,
    );
    assert.deepEqual(found, []);
  });

  test('every cited path exists', () => {
    const found = offences((line, file) => {
      // Ignore files list what may or may not be there.
      if (/ignore$/.test(file)) return undefined;
      // A path: segments joined by `/`, ending in a file name with an extension or in a folder
      // `/`. Not part of a URL or a route (`/v1/...`, `https://...`), and not a pattern.
      for (const match of line.matchAll(
        /(?<![\w./:@<*{$!-])((?:\.\.?\/)?(?:[\w.-]+\/)+[\w.-]*\.(?:ts|js|md|json|yaml|css|svg)|(?:src|test|docs|migrations|bin|packages)\/(?:[\w.-]+\/)*)(?![\w<*{}/-])/g,
      )) {
        const cited = match[1] ?? '';
        if (!resolves(cited, file)) return `${cited} does not exist`;
      }
      // A decision by its number alone (`decisions/0005`).
      for (const [, number = ''] of line.matchAll(/\bdecisions\/(\d{4})\b/g)) {
        if (!decisions.some((name) => name.startsWith(`${number}-`))) return `no decision ${number}`;
      }
      // A bare file name of the repository's own kinds (`media.commit.ts`, `README.md`); a name in
      // a string literal is data (a file a run writes, a test project's own file), not a citation.
      for (const match of line.matchAll(/(?<![\w./:@<*{$'"-])([a-z][\w-]*(?:\.[\w-]+)*\.(?:ts|md))(?![\w<*{}/-])/gi)) {
        const cited = match[1] ?? '';
        if (!basenames.has(cited) && !MADE_BY_RUNS.has(cited) && !resolves(cited, file))
          return `no file is named ${cited}`;
      }
      return undefined;
    });
    assert.deepEqual(found, []);
  });
});
