// The OpenAPI document the app serves, for scripts that work on it (client-types, openapi-lint).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { closeDeps, createDeps } from '../../src/deps.ts';

/**
 * GET /v1/openapi.json of the app built in-process on a throwaway SQLite data directory (the
 * document needs no tables), logs discarded; throws unless it answers 200.
 */
export async function servedOpenApiDocument(): Promise<unknown> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-openapi-document-'));
  try {
    const deps = createDeps(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }));
    const { app } = await buildApp(deps, { logStream: new Writable({ write: (_c, _e, done) => done() }) });
    try {
      await app.ready();
      const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
      if (res.statusCode !== 200) throw new Error(`GET /v1/openapi.json answered ${res.statusCode}`);
      return res.json();
    } finally {
      await app.close();
      await closeDeps(deps);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
