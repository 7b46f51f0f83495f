// The service's modules form no import circle (docs/architecture.md, "Rules that hold everywhere"):
// a circle, even of types alone, means two files that can only be read together, and it is how a
// layer starts to know a feature. This suite reads every non-test module under src/ with
// TypeScript's own parser, follows each static `import` and `export ... from` of a relative path
// (type-only ones included; a lazy `await import()` is a deliberate break and is not followed) and
// fails naming every circle it finds. It reads files only, so it costs well under a second.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return modules(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** The files under src/ that `file` imports statically (relative specifiers only). */
export function importsOf(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest);
  const found: string[] = [];
  for (const statement of source.statements) {
    const specifier =
      ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement) ? statement.moduleSpecifier : undefined;
    if (specifier === undefined || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
    found.push(path.resolve(path.dirname(file), specifier.text));
  }
  return found;
}

/** Every strongly connected group of two or more files (or a file importing itself): Tarjan's. */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(to) ?? 0));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(to) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(group.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

test('circles() finds a circle of types as well as a self-import, and nothing in a tree', () => {
  const a = '/x/a.ts';
  const b = '/x/b.ts';
  const c = '/x/c.ts';
  const typeOnly = importsOf(b, "import type { A } from './a.ts';\nexport { C } from './c.ts';");
  assert.deepEqual(typeOnly, [a, c]);
  assert.deepEqual(importsOf(a, "const lazy = await import('./b.ts');"), [], 'a lazy import is not followed');
  assert.deepEqual(
    circles(
      new Map([
        [a, [b]],
        [b, [a]],
        [c, [c]],
      ]),
    ),
    [[a, b], [c]],
  );
  assert.deepEqual(
    circles(
      new Map([
        [a, [b, c]],
        [b, [c]],
        [c, []],
      ]),
    ),
    [],
  );
});

test('no module under src/ is part of an import circle', () => {
  const files = modules(src);
  const graph = new Map(files.map((file) => [file, importsOf(file, readFileSync(file, 'utf8'))]));
  assert.ok(graph.size > 100, `read ${graph.size} modules`);
  const found = circles(graph).map((group) => group.map((file) => path.relative(root, file)).join(' <-> '));
  assert.deepEqual(found, [], `import circles:\n${found.join('\n')}`);
});
