// npm run lint:openapi: lints the OpenAPI document the app serves with Spectral (.spectral.yaml:
// spectral:oas and the OWASP API Security ruleset). Builds the app on a throwaway SQLite data
// directory (the document needs no tables), writes /v1/openapi.json to a temporary file and runs
// the installed Spectral CLI on it; exits with Spectral's status (non-zero on any error).
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { servedOpenApiDocument } from './lib/openapi-document.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const document = await servedOpenApiDocument();
const dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-openapi-'));
let status: number;
try {
  const file = path.join(dir, 'openapi.json');
  // Pretty-printed, so Spectral's line numbers point somewhere readable.
  await writeFile(file, `${JSON.stringify(document, null, 2)}\n`);
  const args = ['lint', file, '--ruleset', path.join(root, '.spectral.yaml'), '--fail-severity=error'];
  const run = spawnSync(path.join(root, 'node_modules', '.bin', 'spectral'), [...args, ...process.argv.slice(2)], {
    stdio: 'inherit',
    cwd: root,
  });
  if (run.error !== undefined) throw run.error;
  status = run.status ?? 1;
} finally {
  await rm(dir, { recursive: true, force: true });
}
process.exit(status);
