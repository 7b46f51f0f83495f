// `./run` on a machine whose Node is older than 22.18 (issue 25, "two commands on any machine"):
// it fetches Node 24 from the npm registry into .tools/, then installs the dependencies for it.
// The fetch must go through the machine's own npm configuration (registry, proxy, CA file in its
// global npmrc): `npm install --prefix .tools` alone reads the global npmrc under .tools/ instead,
// and behind a TLS-inspecting proxy the fetch then fails (SELF_SIGNED_CERT_IN_CHAIN). Here a copy
// of `run` runs in an empty folder with a fake old `node` and a fake `npm` that record how they
// were called; nothing is downloaded.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'lightbox-run-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function script(file: string, text: string): void {
  writeFileSync(file, text);
  chmodSync(file, 0o755);
}

test('./run on an old Node fetches Node 24 with the machine npm configuration, then installs for it', () => {
  const project = path.join(dir, 'project');
  const bin = path.join(dir, 'bin');
  const log = path.join(dir, 'npm.log');
  mkdirSync(project);
  mkdirSync(bin);
  copyFileSync(path.join(ROOT, 'run'), path.join(project, 'run'));
  writeFileSync(path.join(project, 'package-lock.json'), '{}\n');
  // One npm script for `./run SCRIPT` to run once everything is installed.
  writeFileSync(path.join(project, 'package.json'), '{\n  "scripts": {\n    "noop": "true"\n  }\n}\n');
  // The machine's Node: too old for every check `./run` makes.
  script(path.join(bin, 'node'), '#!/bin/sh\n[ "$1" = --version ] && echo v20.20.2\nexit 1\n');
  // The machine's npm: its global config is /machine/etc/npmrc. `install --prefix .tools` puts a
  // `node` there that is this test's own (new) Node; `ci` makes node_modules.
  script(
    path.join(bin, 'npm'),
    [
      '#!/bin/sh',
      `echo "$* | globalconfig=\${npm_config_globalconfig:-} | nodedir=\${npm_config_nodedir:-}" >> '${log}'`,
      'case "$1" in',
      '  config) [ "$2 $3" = "get globalconfig" ] && echo /machine/etc/npmrc ;;',
      '  install)',
      '    pkg=$(for a in "$@"; do :; done; echo "${a%@24}")',
      '    mkdir -p ".tools/node_modules/$pkg/bin"',
      `    printf '#!/bin/sh\\nexec %s "$@"\\n' '${process.execPath}' > ".tools/node_modules/$pkg/bin/node"`,
      '    chmod +x ".tools/node_modules/$pkg/bin/node" ;;',
      '  ci) mkdir -p node_modules ;;',
      'esac',
      '',
    ].join('\n'),
  );
  const run = spawnSync('bash', ['run', 'noop'], {
    cwd: project,
    encoding: 'utf8',
    timeout: 60_000,
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: dir },
  });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /older than 22\.18: fetching Node 24 from the npm registry into \.tools\//);
  const calls = readFileSync(log, 'utf8').trim().split('\n');
  const install = calls.find((c) => c.startsWith('install --prefix .tools '));
  assert.ok(install, `Node 24 was never fetched: ${calls.join('\n')}`);
  assert.match(install, /^install --prefix \.tools .*\bnode-[a-z]+-[a-z0-9]+@24 \|/);
  // The fetch itself reads the machine's npm configuration, not .tools/etc/npmrc.
  assert.match(install, /\| globalconfig=\/machine\/etc\/npmrc \|/, install);
  // Then the dependencies are installed by npm running on Node 24, native addons built against it.
  const ci = calls.find((c) => c.startsWith('ci '));
  assert.ok(ci, `npm ci never ran: ${calls.join('\n')}`);
  assert.match(
    ci,
    /\| globalconfig=\/machine\/etc\/npmrc \| nodedir=.*\/\.tools\/node_modules\/node-[a-z]+-[a-z0-9]+$/,
  );
  assert.ok(calls.indexOf(install) < calls.indexOf(ci));
  // A second run finds Node 24 in .tools/ and fetches nothing.
  writeFileSync(log, '');
  const again = spawnSync('bash', ['run', 'noop'], {
    cwd: project,
    encoding: 'utf8',
    timeout: 60_000,
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: dir },
  });
  assert.equal(again.status, 0, again.stderr);
  assert.doesNotMatch(readFileSync(log, 'utf8'), /^install /m);
  assert.doesNotMatch(again.stderr, /fetching Node 24/);
});

test('./run test --help, ./run --help and an unknown command answer before installing anything', () => {
  const project = path.join(dir, 'help');
  const bin = path.join(dir, 'help-bin');
  const log = path.join(dir, 'help-npm.log');
  mkdirSync(project);
  mkdirSync(bin);
  copyFileSync(path.join(ROOT, 'run'), path.join(project, 'run'));
  mkdirSync(path.join(project, 'scripts'));
  copyFileSync(path.join(ROOT, 'scripts', 'test-all'), path.join(project, 'scripts', 'test-all'));
  writeFileSync(path.join(project, 'package.json'), '{\n  "scripts": {\n    "noop": "true"\n  }\n}\n');
  // An old Node and an npm that records any call: none may happen.
  script(path.join(bin, 'node'), '#!/bin/sh\n[ "$1" = --version ] && echo v20.20.2\nexit 1\n');
  script(path.join(bin, 'npm'), `#!/bin/sh\necho "$*" >> '${log}'\nexit 1\n`);
  const run = (...args: string[]) =>
    spawnSync('bash', ['run', ...args], {
      cwd: project,
      encoding: 'utf8',
      timeout: 30_000,
      env: { PATH: `${bin}:/usr/bin:/bin`, HOME: dir },
    });
  const help = run('test', '--help');
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /^usage: \.\/run test \[--quick\]/m);
  assert.match(help.stdout, /--quick +every module's own tests/);
  const usage = run('--help');
  assert.equal(usage.status, 0, usage.stderr);
  assert.match(usage.stderr, /^usage: \.\/run start \| test \[--quick\] \| lint/m);
  const unknown = run('tset');
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /^\.\/run: unknown command tset$/m);
  assert.throws(() => readFileSync(log), /ENOENT/, 'npm was called');
  assert.throws(() => readFileSync(path.join(project, '.tools')), /ENOENT/, '.tools/ was made');
});
