// `./run lint` (scripts/lint-all): the OpenAPI document the app serves against the last released
// one, docs/openapi/released.json. Fails on a breaking change (scripts/lib/api-compat.ts) that
// docs/openapi/declared-changes.json does not declare with a reason (docs/api-stability.md).
//   node scripts/api-compat.ts               the check
//   node scripts/api-compat.ts --release     at a release: the served document becomes the baseline
// --released FILE, --declared FILE and --current FILE (instead of the served document) are for tests.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { breakingChanges, parseDeclared, undeclared } from './lib/api-compat.ts';
import { servedOpenApiDocument } from './lib/openapi-document.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    release: { type: 'boolean', default: false },
    released: { type: 'string', default: path.join(root, 'docs/openapi/released.json') },
    declared: { type: 'string', default: path.join(root, 'docs/openapi/declared-changes.json') },
    current: { type: 'string' },
  },
});

const current = (
  values.current === undefined ? await servedOpenApiDocument() : JSON.parse(await readFile(values.current, 'utf8'))
) as Record<string, unknown>;

if (values.release) {
  await writeFile(values.released, `${JSON.stringify(current, null, 2)}\n`);
  console.log(`${path.relative(root, values.released)} is now the served document: empty declared-changes.json's list`);
  process.exit(0);
}

const released = JSON.parse(await readFile(values.released, 'utf8')) as Record<string, unknown>;
const declared = parseDeclared(await readFile(values.declared, 'utf8'));
const changes = breakingChanges(released, current);
const { breaking, stale } = undeclared(changes, declared);

for (const change of changes.filter((c) => !breaking.includes(c)))
  console.log(`declared: ${change} (${declared.find((d) => d.change === change)?.reason ?? ''})`);
for (const change of stale) console.log(`note: declared but not found (remove it): ${change}`);
if (breaking.length > 0) {
  console.error(`${String(breaking.length)} breaking change(s) to the API since the released OpenAPI document:`);
  for (const change of breaking) console.error(`  ${change}`);
  console.error(
    'Integrators\u2019 code breaks on these. Keep the old shape (deprecate it first: docs/api-stability.md), or,\n' +
      'if the break is deliberate, add each line above with a reason to docs/openapi/declared-changes.json.',
  );
  process.exit(1);
}
console.log(`no undeclared breaking change (${String(changes.length)} declared)`);
