// The README's examples, and those of the guides it sends a newcomer to, run as written (issues
// 25 and 37): a real `lightbox serve` on a free port of 127.0.0.1 with a fresh data folder, the
// account and key made by the README's own commands, every shell block that talks to the API run in
// order in one bash, and the TypeScript walkthrough run in a fresh `npm init -y` project with the
// packed client installed from its tarball. Each runs twice in a row against the same server, as a
// newcomer who tries again does: an example that makes an account or a client uses a new email on
// every run. The only change made to the text is the server's address (`http://127.0.0.1:3000`
// becomes the test's port). A block that is not meant to run here says so on the line before it:
// `<!-- readme-test: skip REASON -->`.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { GUIDES } from './support/guides.ts';
import { jpeg, mp4, pdf } from './support/media-fixtures.ts';
import { installPackedClient } from './support/packed-client.ts';
import { freePort, serveOn, startProcessSuite, type ProcessSuite } from './support/process-helpers.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
/** The README, then the guides its examples moved to, in the order a newcomer reads them. */
const EXAMPLE_FILES = ['README.md', ...GUIDES];
const README_BASE = 'http://127.0.0.1:3000';

interface Block {
  file: string;
  lang: string;
  code: string;
  line: number;
  skip: string | undefined;
}

/** Every fenced block of the README and the guides, with the skip marker on the line before it, if any. */
function blocks(): Block[] {
  const found: Block[] = [];
  const fence = /^( *)```(\w*)\n([\s\S]*?)^\1```$/gm;
  for (const file of EXAMPLE_FILES) {
    const readme = readFileSync(path.join(root, file), 'utf8');
    for (const m of readme.matchAll(fence)) {
      const before = readme.slice(0, m.index);
      const previous = before.trimEnd().split('\n').at(-1) ?? '';
      const skip = /^\s*<!-- readme-test: skip (.+?) -->$/.exec(previous)?.[1];
      const indent = m[1] ?? '';
      const code = (m[3] ?? '')
        .split('\n')
        .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l))
        .join('\n');
      found.push({ file, lang: m[2] ?? '', code, line: before.split('\n').length, skip });
    }
  }
  return found;
}

const shell = (b: Block): boolean => b.lang === 'sh' || b.lang === 'bash';
/** A shell block talks to the API when it calls curl. */
const talksToApi = (b: Block): boolean => shell(b) && /\bcurl\b/.test(b.code);
const firstAccount = (): Block => {
  const b = blocks().find((x) => x.file === 'README.md' && shell(x) && x.code.includes('./run lightbox keys create'));
  assert.ok(b, 'the README has no block that makes the first account and key');
  return b;
};

const bash = promisify(execFile);
let suite: ProcessSuite;
let base = '';
let key = '';
let work = '';

/** Runs `script` in one bash in `cwd`; resolves with its output, rejects (with it) on a non-zero exit. */
async function runBash(script: string, cwd: string, env: Record<string, string>): Promise<string> {
  try {
    const { stdout } = await bash('bash', ['-c', script], {
      cwd,
      env: { ...suite.env(), HOME: work, ...env },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 90_000,
    });
    return stdout;
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    assert.fail(`bash exited ${e.code}\n--- stdout\n${e.stdout}\n--- stderr\n${e.stderr}`);
  }
}

/** A 9 MiB MP4 (the tus example sends it in two pieces): the fixture and a `free` box of padding. */
function bigMp4(): Buffer {
  const padding = Buffer.alloc(9 * 1024 * 1024);
  padding.writeUInt32BE(padding.length, 0);
  padding.write('free', 4, 'latin1');
  return Buffer.concat([mp4(), padding]);
}

async function api(route: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}/v1${route}`, { headers: { authorization: `Bearer ${key}` } });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : JSON.parse(text) };
}

before(async () => {
  suite = await startProcessSuite('lightbox-readme-', 'warn');
  work = await mkdtemp(path.join(os.tmpdir(), 'lightbox-readme-work-'));
  const port = await freePort();
  ({ base } = await serveOn(port, suite.env({ PUBLIC_URL: `http://127.0.0.1:${port}` }), 20_000));
  // The README's own commands make the account and the key, in the project folder (./run lightbox),
  // twice: the second run makes a second studio, and its key is the one the examples use.
  const keys: string[] = [];
  for (let run = 0; run < 2; run += 1) {
    const out = await runBash(`set -e\n${firstAccount().code}\necho "KEY=$LIGHTBOX_API_KEY"`, root, {});
    const made = /^KEY=(lbx_\S+)$/m.exec(out)?.[1] ?? '';
    assert.ok(made !== '', `no key from the README's commands (run ${run + 1}): ${out}`);
    keys.push(made);
  }
  assert.notEqual(keys[0], keys[1]);
  key = keys[1]!;
});

after(async () => {
  await suite.stop();
  await rm(work, { recursive: true, force: true });
});

describe('README examples, run as written', { timeout: 180_000 }, () => {
  test('every shell block that talks to the API runs, or says why not; few are skipped', () => {
    const api = blocks().filter(talksToApi);
    assert.ok(api.length >= 5, `only ${api.length} API blocks found`);
    const skipped = api.filter((b) => b.skip !== undefined);
    for (const b of skipped) assert.ok(b.skip!.length >= 10, `${b.file} line ${b.line}: the skip needs a reason`);
    assert.ok(
      skipped.length <= 1,
      `${skipped.length} API blocks are skipped: ${skipped.map((b) => `${b.file}:${b.line}`).join(', ')}`,
    );
    // The README itself makes a first call, and the guides it names hold the rest.
    assert.ok(
      api.some((b) => b.file === 'README.md' && b.skip === undefined),
      'the README makes no API call',
    );
    assert.ok(api.length - skipped.length >= 3, 'fewer than three API blocks run');
  });

  test('the curl blocks run in order in one bash, and leave what they say', async () => {
    const dir = path.join(work, 'sh');
    await mkdir(dir);
    await writeFile(path.join(dir, 'front.jpg'), await jpeg(640, 480));
    await writeFile(path.join(dir, 'floorplan.pdf'), pdf('Floor plan'));
    await writeFile(path.join(dir, 'tour.mp4'), bigMp4());
    const run = blocks().filter((b) => talksToApi(b) && b.skip === undefined);
    // Every curl fails on an HTTP error (its body still shown), so a refused request fails the run.
    const prelude = [
      'set -e',
      `curl() { command curl --fail-with-body "$@"; }`,
      `export LIGHTBOX_API_KEY='${key}'`,
    ].join('\n');
    const script = [
      prelude,
      ...run.map((b) => `echo '### ${b.file} line ${b.line}' >&2\n${b.code.replaceAll(README_BASE, base)}`),
    ].join('\n');
    // The incremental sync example pipes through jq; a machine without it cannot run the README.
    await runBash('command -v jq', dir, {}).catch(() => assert.fail('jq is not installed (apt-get install jq)'));
    const before = await api('/listings?limit=100');
    assert.equal(before.status, 200);
    // Twice in a row, as written: nothing in them may depend on a fresh server.
    await runBash(script, dir, {});
    await runBash(script, dir, {});

    // The walkthrough made a gallery and a client, assigned, emailed and deleted them again.
    const events = await api('/events?limit=100');
    assert.equal(events.status, 200);
    const types = new Set(events.body.data.map((e: { type: string }) => e.type));
    for (const t of [
      'listing.created',
      'listing.updated',
      'media.created',
      'client.created',
      'listing.deleted',
      'client.deleted',
    ]) {
      assert.ok(types.has(t), `no ${t} event: ${[...types].join(', ')}`);
    }
    const notifications = await api('/notifications');
    assert.ok(notifications.body.data.length >= 1, 'the assignment queued no email');
    const clients = await api('/clients?search=byron');
    assert.equal(clients.body.data.length, 0, 'the walkthrough deletes its client');
    const galleries = await api('/listings?mls_number=PX-2291');
    assert.equal(galleries.body.data.length, 0, 'the walkthrough deletes its gallery');
    // The link section assigned a gallery and gave it a new link.
    const quay3 = (await api('/listings?search=3%20Quay%20St')).body.data[0];
    assert.ok(quay3?.client_id, 'the client_link example left no assigned gallery');
    const linked = (await api(`/listings/${quay3.id}`)).body;
    assert.match(linked.client_link.url, /\/g\//);
    // The order example captioned the photo and made it the cover; the variants example fetched its thumb.
    const quay5 = (await api('/listings?search=5%20Quay%20St')).body.data[0];
    const gallery5 = (await api(`/listings/${quay5.id}`)).body;
    const media5 = (await api(`/listings/${quay5.id}/media`)).body.data;
    assert.equal(media5[0].caption, 'Living room, south light');
    assert.equal(gallery5.cover_media_id, media5[0].id);
    const thumb = await readFile(path.join(dir, 'thumb.webp'));
    assert.equal(thumb.subarray(8, 12).toString('latin1'), 'WEBP');
    // The tus example made a video of the whole file.
    const quay7 = (await api('/listings?search=7%20Quay%20St')).body.data[0];
    const media7 = (await api(`/listings/${quay7.id}/media`)).body.data;
    assert.equal(media7.length, 1, 'the tus example made no media');
    assert.equal(media7[0].kind, 'video');
    assert.equal(media7[0].size, bigMp4().length);
    // The bytes it downloaded are the photo it uploaded.
    assert.deepEqual(
      await readFile(path.join(dir, 'downloads', 'front.jpg')),
      await readFile(path.join(dir, 'front.jpg')),
    );
  });

  test('the TypeScript walkthrough runs in a fresh npm init -y project with the packed client', async () => {
    const ts = blocks().filter((b) => b.lang === 'ts' && b.code.startsWith('// walkthrough.mts'));
    assert.equal(ts.length, 1, 'the guides have one walkthrough.mts');
    const dir = path.join(work, 'ts');
    await mkdir(dir);
    const { project } = await installPackedClient(dir, 'npm init -y');
    const mls = async (): Promise<number> =>
      (await api('/listings?mls_number=PX-2291')).body.pagination.total as number;
    const before = await mls();
    await writeFile(path.join(project, 'walkthrough.mts'), ts[0]!.code.replaceAll(README_BASE, base));
    await writeFile(path.join(project, 'front.jpg'), await jpeg(640, 480));
    await writeFile(path.join(project, 'floorplan.pdf'), pdf('Floor plan'));
    await writeFile(path.join(project, 'tour.mp4'), mp4());
    for (let run = 0; run < 2; run += 1) {
      const out = await runBash('node walkthrough.mts', project, { LIGHTBOX_API_KEY: key });
      assert.match(out, /12 Harbour Rd, Portsmouth/);
      assert.match(out, /404 not_found/);
    }
    assert.equal(await mls(), before, 'the walkthrough deletes its gallery');
    const grace = await api('/clients?search=hopper');
    assert.equal(grace.body.data.length, 2, 'each run makes its own client');
    assert.equal(grace.body.data[0]?.company, 'Hopper & Co');
  });
  test('the tus-js-client example runs as a file of its own, tus-js-client installed', async () => {
    const js = blocks().filter((b) => b.lang === 'js' && b.code.startsWith('// tus-upload.mjs'));
    assert.equal(js.length, 1, 'the guides have one tus-upload.mjs');
    const dir = path.join(work, 'tus');
    await mkdir(dir);
    // The project's own tus-js-client (a devDependency) stands for `npm install tus-js-client`.
    await symlink(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    await writeFile(path.join(dir, 'tus-upload.mjs'), js[0]!.code.replaceAll(README_BASE, base));
    await writeFile(path.join(dir, 'tour.mp4'), bigMp4());
    await runBash('node tus-upload.mjs', dir, { LIGHTBOX_API_KEY: key });
    const out = await runBash('node tus-upload.mjs', dir, { LIGHTBOX_API_KEY: key });
    const id = /^media (med_\S+)$/m.exec(out)?.[1];
    assert.ok(id, `the example printed no media id: ${out}`);
    const quay9 = (await api('/listings?search=9%20Quay%20St')).body.data[0];
    const media9 = (await api(`/listings/${quay9.id}/media`)).body.data;
    assert.deepEqual(
      media9.map((m: { id: string; kind: string; size: number }) => [m.id, m.kind, m.size]),
      [[id, 'video', bigMp4().length]],
    );
  });
});

describe('the webhook verification example', () => {
  test('verifies a delivery signed with the endpoint secret, and refuses a tampered body', async () => {
    const js = blocks().filter((b) => b.lang === 'js' && b.code.startsWith('// Node: npm install standardwebhooks'));
    assert.equal(js.length, 1, 'docs/webhooks.md has one Node verification example');
    const dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-readme-webhook-'));
    try {
      await symlink(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
      // The example's free names: the raw body and the request's headers, as a server hands them over.
      const harness = [
        'const rawBody = process.env.BODY;',
        'const req = { headers: JSON.parse(process.env.HEADERS) };',
        js[0]!.code,
        'console.log(JSON.stringify(event));',
      ].join('\n');
      await writeFile(path.join(dir, 'verify.mjs'), harness);
      const { Webhook } = await import('standardwebhooks');
      const secret = `whsec_${Buffer.from('a webhook secret of 32 bytes ...').toString('base64')}`;
      const body = JSON.stringify({ id: 'evt_1', type: 'webhook.test', created_at: new Date().toISOString() });
      const now = new Date();
      const headers = {
        'webhook-id': 'evt_1',
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': new Webhook(secret).sign('evt_1', now, body),
      };
      const env = { LIGHTBOX_WEBHOOK_SECRET: secret, HEADERS: JSON.stringify(headers) };
      const out = await runBash('node verify.mjs', dir, { ...env, BODY: body });
      assert.equal((JSON.parse(out) as { type: string }).type, 'webhook.test');
      await assert.rejects(runBash('node verify.mjs', dir, { ...env, BODY: body.replace('evt_1', 'evt_2') }));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
