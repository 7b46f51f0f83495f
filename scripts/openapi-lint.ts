// npm run lint:openapi: lints the OpenAPI document the app serves with Spectral (.spectral.yaml:
// spectral:oas and the OWASP API Security ruleset). Builds the app on a throwaway SQLite data
// directory (the document needs no tables), writes /v1/openapi.json to a temporary file and runs
// the installed Spectral CLI on it; exits with Spectral's status (non-zero on any error).
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { closeDeps, createDeps } from '../src/deps.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-openapi-'));
let status: number;
try {
  const deps = createDeps(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }));
  const { app } = await buildApp(deps, { logStream: new Writable({ write: (_c, _e, done) => done() }) });
  try {
    await app.ready();
    const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
    if (res.statusCode !== 200) throw new Error(`GET /v1/openapi.json answered ${res.statusCode}`);
    const file = path.join(dir, 'openapi.json');
    // Pretty-printed, so Spectral's line numbers point somewhere readable.
    await writeFile(file, `${JSON.stringify(res.json(), null, 2)}\n`);
    const args = ['lint', file, '--ruleset', path.join(root, '.spectral.yaml'), '--fail-severity=error'];
    const run = spawnSync(path.join(root, 'node_modules', '.bin', 'spectral'), [...args, ...process.argv.slice(2)], {
      stdio: 'inherit',
      cwd: root,
    });
    if (run.error !== undefined) throw run.error;
    status = run.status ?? 1;
  } finally {
    await app.close();
    await closeDeps(deps);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
process.exit(status);
