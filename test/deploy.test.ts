// The deployment files in deploy/ (docs/deploying.md) are checked by the tools that will read
// them: systemd-analyze (the unit), nginx -t and caddy validate (the proxies), docker compose
// config (the compose file; without the compose plugin, its YAML and cross-references here).
// A check whose tool is missing is skipped with the Debian package that brings it, except under
// CI=true, where it fails: CI needs systemd, nginx-light and caddy. TRUST_PROXY, as the unit and
// the compose file end up setting it, is checked on the app: two visitors behind the proxy each get
// their own rate limit and sign-in lockout.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { copyFileSync, rmSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { WINDOW_MS } from '../src/http/rate-limit-store.ts';
import { ADDRESS_LIMIT } from '../src/modules/accounts/sign-in.service.ts';
import { Browser } from './support/dashboard-browser.ts';
import { fakeClock } from './support/notification-helpers.ts';
import { createAccount, createTestContext } from './support/test-app.ts';

const run = promisify(execFile);
const DEPLOY = fileURLToPath(new URL('../deploy/', import.meta.url));
const has = (command: string, ...args: string[]): boolean =>
  spawnSync(command, args.length > 0 ? args : ['--version'], { stdio: 'ignore' }).status === 0;

/** The skip reason for a missing tool (a failure under CI), or false. */
function needs(tool: string, debianPackage: string, present: boolean): string | false {
  if (present) return false;
  assert.notEqual(process.env.CI, 'true', `${tool} is missing: CI needs the Debian package ${debianPackage}`);
  return `${tool} is not installed (apt-get install ${debianPackage})`;
}

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'lightbox-deploy-'));
});
after(() => rm(dir, { recursive: true, force: true }));

describe('deploy/lightbox.service', () => {
  test(
    'systemd-analyze verify finds nothing wrong',
    { skip: needs('systemd-analyze', 'systemd', has('systemd-analyze', '--version')) },
    async () => {
      // The unit names /usr/bin/node; verify checks that the binary exists, so point it at this one.
      const unit = (await readFile(path.join(DEPLOY, 'lightbox.service'), 'utf8')).replace(
        'ExecStart=/usr/bin/node ',
        `ExecStart=${process.execPath} `,
      );
      const file = path.join(dir, 'lightbox.service');
      await writeFile(file, unit);
      const result = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stderr.trim(), '', result.stderr);
      assert.match(unit, /^KillSignal=SIGTERM$/m);
      assert.match(unit, /^ExecStart=\S+ \/opt\/lightbox\/bin\/lightbox\.js serve$/m);
    },
  );
});

describe('deploy/lightbox-backup.service and .timer', () => {
  test(
    'systemd-analyze verify finds nothing wrong; the backup runs as the service does, into dated folders',
    { skip: needs('systemd-analyze', 'systemd', has('systemd-analyze', '--version')) },
    async () => {
      for (const name of ['lightbox-backup.service', 'lightbox-backup.timer'])
        copyFileSync(path.join(DEPLOY, name), path.join(dir, name));
      const files = ['lightbox-backup.service', 'lightbox-backup.timer'].map((name) => path.join(dir, name));
      const result = spawnSync('systemd-analyze', ['verify', ...files], { encoding: 'utf8' });
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stderr.trim(), '', result.stderr);
      const unit = await readFile(path.join(DEPLOY, 'lightbox-backup.service'), 'utf8');
      const main = await readFile(path.join(DEPLOY, 'lightbox.service'), 'utf8');
      // The same user, settings and data folder as the service it backs up.
      for (const line of ['User=lightbox', 'EnvironmentFile=/etc/lightbox/lightbox.env'])
        assert.ok(unit.includes(`\n${line}\n`) && main.includes(`\n${line}\n`), line);
      assert.match(unit, /^Environment=.*DATA_DIR=\/var\/lib\/lightbox( |$)/m);
      assert.match(unit, /lightbox\.js backup "\/var\/lib\/lightbox-backups\/\$\(date -u \+%%Y-%%m-%%dT%%H%%M%%SZ\)"/);
      assert.match(await readFile(files[1]!, 'utf8'), /^Persistent=true$/m);
    },
  );
});

describe('deploy/nginx.conf', () => {
  test(
    'nginx -t accepts it inside an http block',
    { skip: needs('nginx', 'nginx-light', has('nginx', '-v')) },
    async () => {
      // A throwaway certificate where certbot's would be.
      await run('openssl', [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=galleries.example.com',
        '-keyout',
        path.join(dir, 'privkey.pem'),
        '-out',
        path.join(dir, 'fullchain.pem'),
      ]);
      const site = (await readFile(path.join(DEPLOY, 'nginx.conf'), 'utf8')).replaceAll(
        '/etc/letsencrypt/live/galleries.example.com/',
        `${dir}/`,
      );
      await writeFile(path.join(dir, 'site.conf'), site);
      await writeFile(
        path.join(dir, 'nginx.conf'),
        `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\nhttp {\n  access_log off;\n  include ${dir}/site.conf;\n}\n`,
      );
      const result = spawnSync(
        'nginx',
        ['-t', '-p', dir, '-e', `${dir}/error.log`, '-c', path.join(dir, 'nginx.conf')],
        {
          encoding: 'utf8',
        },
      );
      assert.equal(result.status, 0, result.stderr);
      assert.match(result.stderr, /syntax is ok/);
      assert.match(result.stderr, /test is successful/);
      assert.doesNotMatch(result.stderr, /\[warn\]/);
    },
  );
});

describe('deploy/Caddyfile', () => {
  for (const name of ['Caddyfile', 'Caddyfile.compose']) {
    test(`caddy validate accepts ${name}`, { skip: needs('caddy', 'caddy', has('caddy', 'version')) }, () => {
      const result = spawnSync('caddy', ['validate', '--adapter', 'caddyfile', '--config', path.join(DEPLOY, name)], {
        encoding: 'utf8',
        env: {
          ...process.env,
          LIGHTBOX_DOMAIN: 'galleries.example.com',
          HOME: dir,
          XDG_DATA_HOME: dir,
          XDG_CONFIG_HOME: dir,
        },
      });
      assert.equal(result.status, 0, result.stderr);
      assert.match(result.stdout + result.stderr, /Valid configuration/);
    });
  }
});

describe('deploy/compose.yaml', () => {
  const env = {
    POSTGRES_PASSWORD: 'pg-secret',
    MINIO_ROOT_PASSWORD: 'minio-secret',
    LIGHTBOX_DOMAIN: 'galleries.example.com',
  };

  test(
    'docker compose config accepts it',
    {
      skip: !has('docker', 'compose', 'version')
        ? 'docker compose is not available here (only the docker client, or none): the YAML test below checks the file'
        : false,
    },
    () => {
      copyFileSync(path.join(DEPLOY, 'lightbox.env.example'), path.join(DEPLOY, 'lightbox.env'));
      try {
        const result = spawnSync('docker', ['compose', '-f', path.join(DEPLOY, 'compose.yaml'), 'config', '--quiet'], {
          encoding: 'utf8',
          env: { ...process.env, ...env },
        });
        assert.equal(result.status, 0, result.stderr);
      } finally {
        rmSync(path.join(DEPLOY, 'lightbox.env'), { force: true });
      }
    },
  );

  test('its YAML parses, every service is built or pulled, and every reference resolves', async () => {
    const doc = parse(await readFile(path.join(DEPLOY, 'compose.yaml'), 'utf8'), { merge: true }) as {
      services: Record<string, Record<string, any>>;
      volumes: Record<string, unknown>;
    };
    const services = doc.services;
    assert.deepEqual(Object.keys(services).sort(), [
      'api',
      'backup',
      'caddy',
      'media-backup',
      'minio',
      'minio-bucket',
      'postgres',
      'redis',
      'worker',
    ]);
    // Every pulled image is pinned to a version (an upgrade is a deliberate change of this file).
    for (const [name, service] of Object.entries(services)) {
      if (service.build !== undefined) continue;
      assert.match(
        String(service.image),
        /:(\d+\.\d+(\.\d+)?|RELEASE\.[0-9TZ-]+)$/,
        `${name}: ${String(service.image)}`,
      );
    }
    assert.match(await readFile(path.join(DEPLOY, 'Dockerfile'), 'utf8'), /^FROM node:24\.\d+\.\d+-bookworm-slim/m);
    // The backups run only when asked (`--profile backup run`), never with `up`, into deploy/backups.
    for (const name of ['backup', 'media-backup']) {
      assert.deepEqual(services[name]!.profiles, ['backup']);
      assert.deepEqual(services[name]!.volumes, ['./backups:/backups']);
    }
    assert.match(services.backup!.entrypoint.join(' '), /pg_dump -h postgres -U lightbox -Fc .* lightbox/);
    assert.match(services['media-backup']!.entrypoint.join(' '), /mc mirror --overwrite local\/lightbox-media/);
    for (const [name, service] of Object.entries(services)) {
      assert.ok(service.image !== undefined || service.build !== undefined, `${name} has neither image nor build`);
      const depends = Array.isArray(service.depends_on) ? service.depends_on : Object.keys(service.depends_on ?? {});
      for (const other of depends) assert.ok(other in services, `${name} depends on unknown ${other}`);
      for (const volume of service.volumes ?? []) {
        const source = String(volume).split(':')[0]!;
        if (!source.startsWith('.') && !source.startsWith('/'))
          assert.ok(source in doc.volumes, `${name}: volume ${source}`);
        // The file exists (the backups' folder is made by the first backup).
        else if (source.startsWith('.') && source !== './backups') await readFile(path.join(DEPLOY, source));
      }
    }
    // The API nodes answer HTTP only; the worker runs the jobs; both on PostgreSQL, Redis and S3.
    assert.equal(services.api!.environment.JOBS, 'false');
    assert.deepEqual(services.api!.command, ['serve']);
    assert.deepEqual(services.worker!.command, ['worker']);
    for (const name of ['api', 'worker']) {
      const e = services[name]!.environment;
      assert.match(e.DATABASE_URL, /^postgres:\/\/lightbox:.*@postgres:5432\/lightbox$/);
      assert.equal(e.REDIS_URL, 'redis://redis:6379');
      assert.match(e.MEDIA_STORAGE, /^s3:\/\//);
      assert.equal(e.S3_ENDPOINT, 'http://minio:9000');
      assert.equal(services[name]!.build.dockerfile, 'deploy/Dockerfile');
    }
    await readFile(path.join(DEPLOY, 'Dockerfile'));
    await readFile(path.join(DEPLOY, 'lightbox.env.example'));
  });
});

/** KEY=VALUE lines, as systemd's EnvironmentFile= and compose's env_file read them. */
const envFile = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .split('\n')
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );

/** The environment each deployment gives Lightbox, with the address its proxy connects from. */
async function deployments(): Promise<{ name: string; env: Record<string, string>; proxy: string }[]> {
  const file = envFile(await readFile(path.join(DEPLOY, 'lightbox.env.example'), 'utf8'));
  const unit = await readFile(path.join(DEPLOY, 'lightbox.service'), 'utf8');
  const unitEnv = Object.fromEntries(
    [...unit.matchAll(/^Environment=(.*)$/gm)].flatMap((m) => m[1]!.split(' ').map((pair) => pair.split('='))),
  ) as Record<string, string>;
  assert.match(unit, /^EnvironmentFile=\/etc\/lightbox\/lightbox\.env$/m);
  const compose = parse(await readFile(path.join(DEPLOY, 'compose.yaml'), 'utf8'), { merge: true }) as {
    services: { api: { env_file: string; environment: Record<string, string> } };
  };
  assert.equal(compose.services.api.env_file, 'lightbox.env');
  return [
    // systemd: EnvironmentFile= overrides Environment=; Caddy or nginx connect from 127.0.0.1.
    { name: 'lightbox.service with lightbox.env', env: { ...unitEnv, ...file }, proxy: '127.0.0.1' },
    { name: 'lightbox.service alone', env: unitEnv, proxy: '127.0.0.1' },
    // compose: environment overrides env_file; Caddy connects from its address in the network.
    { name: 'compose.yaml', env: { ...file, ...compose.services.api.environment }, proxy: '172.18.0.5' },
  ];
}

describe('TRUST_PROXY as the deploy files set it', async () => {
  // Room for a sign-in page and one more try than the lockout allows, in one minute.
  const PER_MINUTE = ADDRESS_LIMIT + 2;
  for (const { name, env, proxy } of await deployments()) {
    test(`${name}: two visitors behind the proxy get separate rate limits and sign-in lockouts`, async () => {
      assert.ok(env.TRUST_PROXY !== undefined, `${name} sets no TRUST_PROXY`);
      // Ten seconds into a rate-limit window, so the minute cannot turn during the test.
      const clock = fakeClock(Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS + 10_000);
      const ctx = await createTestContext(
        { TRUST_PROXY: env.TRUST_PROXY, RATE_LIMIT_ADDRESS_PER_MINUTE: String(PER_MINUTE) },
        { clock: clock.clock },
      );
      try {
        const visit = (visitor: string) =>
          ctx.app.inject({
            method: 'GET',
            url: '/v1/listings',
            remoteAddress: proxy,
            headers: { 'x-forwarded-for': visitor },
          });
        // Anonymous requests a minute each: the second visitor is not refused for the first's.
        for (let i = 0; i < PER_MINUTE; i += 1) assert.equal((await visit('198.51.100.1')).statusCode, 401);
        assert.equal((await visit('198.51.100.1')).statusCode, 429);
        assert.equal((await visit('198.51.100.2')).statusCode, 401);

        // The sign-in lockout per address (15 minutes): one visitor's failures do not lock the
        // other out. A new rate-limit minute first, so these requests are within it.
        clock.advance(WINDOW_MS);
        await createAccount(ctx); // with no account yet, the dashboard sends everyone to its setup
        const forwarded = { headers: { 'x-forwarded-for': '198.51.100.7' } };
        const guesser = new Browser(ctx.app, proxy);
        await guesser.get('/dashboard/sign-in', forwarded.headers);
        const guess = (email: string) =>
          guesser.post('/dashboard/sign-in', { email, password: 'wrong password' }, forwarded);
        for (let i = 0; i < ADDRESS_LIMIT; i += 1)
          assert.equal((await guess(`nobody${String(i)}@studio.test`)).statusCode, 400);
        assert.equal((await guess('another@studio.test')).statusCode, 429);
        const neighbour = new Browser(ctx.app, proxy);
        const headers = { 'x-forwarded-for': '198.51.100.8' };
        await neighbour.get('/dashboard/sign-in', headers);
        const tried = await neighbour.post(
          '/dashboard/sign-in',
          { email: 'me@studio.test', password: 'wrong' },
          { headers },
        );
        assert.equal(tried.statusCode, 400);
      } finally {
        await ctx.close();
      }
    });
  }
});
