// npm run client:pack-check: what an integrator gets from `npm install` of the packed client. Packs
// packages/client (its prepack builds dist/), installs the tarball into an empty project in a
// temporary directory (its one dependency comes from the npm registry), type-checks a TypeScript
// integration against the installed declarations, and runs a JavaScript one against a real server
// (the app on a free port of 127.0.0.1, a throwaway SQLite database): a gallery, an upload from a
// path, pagination, a typed error and webhook verification. Exits 1 on any failure.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAccount, createTestContext } from '../test/support/test-app.ts';
import { installPackedClient, run } from '../test/support/packed-client.ts';
import { freePort } from '../test/support/process-helpers.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const INTEGRATION_JS = `
import { Lightbox, NotFoundError, WebhookVerificationError } from '@lightbox/client/node';
import { Lightbox as BrowserLightbox } from '@lightbox/client';
import assert from 'node:assert/strict';

const lb = new Lightbox({ apiKey: process.env.LIGHTBOX_API_KEY, baseUrl: process.env.LIGHTBOX_BASE_URL });
const gallery = await lb.listings.create({ address: '1 Packed Street', status: 'active' });
const { data } = await lb.media.upload(gallery.id, process.env.FILE);
assert.equal(data[0].filename, 'plan.pdf');
for (let i = 0; i < 3; i += 1) await lb.listings.create({ address: 'Extra ' + i, status: 'active' });
const ids = [];
for await (const g of lb.listings.iterate({ status: 'active', limit: 2 })) ids.push(g.id);
assert.equal(ids.length, 4);
await assert.rejects(lb.listings.get('lst_missing'), NotFoundError);
assert.throws(
  () => lb.webhooks.verify('{}', { 'webhook-id': 'evt_1', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' }, 'whsec_' + btoa('secret')),
  WebhookVerificationError,
);
const browser = new BrowserLightbox({ apiKey: process.env.LIGHTBOX_API_KEY, baseUrl: process.env.LIGHTBOX_BASE_URL });
assert.equal((await browser.media.list(gallery.id)).data.length, 1);
console.log('packed client ok: gallery', gallery.id, 'media', data[0].id);
`;

const INTEGRATION_TS = `
import { Lightbox, NotModified, type Listing } from '@lightbox/client';
import { Lightbox as NodeLightbox } from '@lightbox/client/node';
const lb = new Lightbox({ apiKey: 'k', baseUrl: 'https://lightbox.example' });
export async function f(): Promise<Listing | NotModified> {
  await new NodeLightbox({ apiKey: 'k', baseUrl: 'https://lightbox.example' }).media.upload('lst_1', '/tmp/a.jpg');
  // @ts-expect-error not a status
  await lb.listings.list({ status: 'gone' });
  return lb.listings.get('lst_1', { ifNoneMatch: 'W/"1"' });
}
`;

const dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-client-pack-'));
let ctx: Awaited<ReturnType<typeof createTestContext>> | undefined;
try {
  const { project, tarball } = await installPackedClient(dir);
  process.stdout.write(`installed ${tarball} into an empty project\n`);

  await writeFile(path.join(project, 'integration.ts'), INTEGRATION_TS);
  await writeFile(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        strict: true,
        noEmit: true,
        types: [],
        lib: ['es2022', 'dom'],
      },
      files: ['integration.ts'],
    }),
  );
  // The installed declarations, without @types/node in the project: the core needs none; the
  // Node entry point's declarations reference Node's types, which skipLibCheck leaves unread.
  run(path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json', '--skipLibCheck'], project);
  process.stdout.write('the installed types check\n');

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  ctx = await createTestContext({ PUBLIC_URL: base, LOG_LEVEL: 'silent' });
  await ctx.app.listen({ host: '127.0.0.1', port });
  const account = await createAccount(ctx);
  const file = path.join(project, 'plan.pdf');
  await writeFile(file, '%PDF-1.4\n% packed client\n');
  await writeFile(path.join(project, 'integration.mjs'), INTEGRATION_JS);
  // Asynchronously: the server answers from this process's event loop.
  const { stdout } = await promisify(execFile)(process.execPath, ['integration.mjs'], {
    cwd: project,
    env: { ...process.env, LIGHTBOX_BASE_URL: base, LIGHTBOX_API_KEY: account.key, FILE: file },
  });
  process.stdout.write(stdout);

  // The client promises Node 20+: where the machine's own node is an older major than this one
  // (Debian's 20 on these machines), the same integration runs on it too.
  const systemNode = '/usr/bin/node';
  const major = (bin: string): number =>
    Number(execFileSync(bin, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).trim());
  if (existsSync(systemNode) && major(systemNode) < major(process.execPath)) {
    // An account of its own: the integration counts what it made.
    const other = await createAccount(ctx);
    const older = await promisify(execFile)(systemNode, ['integration.mjs'], {
      cwd: project,
      env: { ...process.env, LIGHTBOX_BASE_URL: base, LIGHTBOX_API_KEY: other.key, FILE: file },
    });
    process.stdout.write(`on Node ${major(systemNode)} (${systemNode}) too:\n${older.stdout}`);
  } else {
    process.stdout.write(
      `no older Node at ${systemNode}: the integration ran on Node ${major(process.execPath)} only\n`,
    );
  }
} finally {
  await ctx?.close();
  await rm(dir, { recursive: true, force: true });
}
