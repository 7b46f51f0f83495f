// Configuration from the environment (docs/api.md §12): defaults, the database choice, and a clear
// ConfigError naming the variable for each bad value, never echoing a password.
// node:test's describe() and test() return promises that the runner itself awaits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from './config.ts';

function assertConfigError(env: Record<string, string>, variable: string, secret?: string): ConfigError {
  let caught: unknown;
  try {
    loadConfig(env);
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof ConfigError, `${JSON.stringify(env)} was accepted`);
  assert.equal(caught.variable, variable);
  assert.ok(caught.message.includes(variable), `message does not name ${variable}: ${caught.message}`);
  assert.ok(!caught.message.includes('\n'), 'one line');
  if (secret !== undefined) assert.ok(!caught.message.includes(secret), `message echoes a secret: ${caught.message}`);
  return caught;
}

describe('loadConfig', () => {
  test('defaults', () => {
    const config = loadConfig({});
    assert.equal(config.port, 3000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.dataDir, path.resolve('./data'));
    assert.ok(path.isAbsolute(config.dataDir));
    assert.equal(config.database.kind, 'sqlite');
    assert.ok(config.database.kind === 'sqlite');
    assert.equal(path.dirname(config.database.file), config.dataDir);
    assert.equal(config.publicUrl, 'http://127.0.0.1:3000');
    assert.equal(config.logLevel, 'info');
  });

  test('reads process.env when given nothing', () => {
    assert.deepEqual(loadConfig(), loadConfig(process.env));
  });

  test('is frozen', () => {
    const config = loadConfig({});
    assert.ok(Object.isFrozen(config));
    assert.ok(Object.isFrozen(config.database));
    assert.ok(Object.isFrozen(config.media));
    assert.ok(Object.isFrozen(config.media.storage));
  });

  test('empty or blank values count as unset', () => {
    assert.deepEqual(
      loadConfig({ PORT: '', HOST: '  ', LOG_LEVEL: '', PUBLIC_URL: ' ', DATABASE_URL: '' }),
      loadConfig({}),
    );
    assert.deepEqual(
      loadConfig({
        MEDIA_STORAGE: ' ',
        MEDIA_MAX_FILE_BYTES: '',
        MEDIA_MAX_FILES: ' ',
        MEDIA_MAX_IMAGE_PIXELS: '',
        DATA_DIR: '',
      }),
      loadConfig({}),
    );
  });

  test('PORT, HOST, DATA_DIR and LOG_LEVEL are read, and PUBLIC_URL follows HOST and PORT', () => {
    const config = loadConfig({ PORT: '8080', HOST: '0.0.0.0', DATA_DIR: 'some/dir', LOG_LEVEL: 'DEBUG' });
    assert.equal(config.port, 8080);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.dataDir, path.resolve('some/dir'));
    assert.ok(config.database.kind === 'sqlite');
    assert.equal(path.dirname(config.database.file), path.resolve('some/dir'));
    assert.equal(config.publicUrl, 'http://0.0.0.0:8080');
    assert.equal(config.logLevel, 'debug');
    assert.equal(loadConfig({ HOST: '::1' }).publicUrl, 'http://[::1]:3000');
    assert.equal(loadConfig({ PORT: '1' }).port, 1);
    assert.equal(loadConfig({ PORT: '65535' }).port, 65535);
  });

  test('PUBLIC_URL is taken as given, without a trailing slash', () => {
    assert.equal(loadConfig({ PUBLIC_URL: 'https://photos.example.com/' }).publicUrl, 'https://photos.example.com');
    assert.equal(loadConfig({ PUBLIC_URL: 'https://example.com/lightbox' }).publicUrl, 'https://example.com/lightbox');
    assert.equal(loadConfig({ PUBLIC_URL: 'http://localhost:8080' }).publicUrl, 'http://localhost:8080');
  });

  test('a postgres:// or postgresql:// DATABASE_URL selects PostgreSQL', () => {
    for (const url of ['postgres://user:pw@db.internal:5432/lightbox', 'postgresql://localhost/lightbox']) {
      const config = loadConfig({ DATABASE_URL: url });
      assert.deepEqual(config.database, { kind: 'postgres', url });
    }
  });

  test('bad values throw a ConfigError naming the variable', () => {
    // PORT must be 1..65535: 0 (any free port) is refused, a server needs a known port.
    for (const port of ['0', '00', 'abc', '70000', '65536', '-1', '3.5', '1e3', '80 80', '0x50'])
      assertConfigError({ PORT: port }, 'PORT');
    for (const level of ['loud', 'verbose', 'warning']) assertConfigError({ LOG_LEVEL: level }, 'LOG_LEVEL');
    for (const url of ['ftp://x', 'not a url', 'example.com', 'file:///etc/passwd', 'javascript:alert(1)']) {
      assertConfigError({ PUBLIC_URL: url }, 'PUBLIC_URL');
    }
    for (const host of ['bad host', 'evil.com/path', 'a;b']) assertConfigError({ HOST: host }, 'HOST');
  });

  test('a bad DATABASE_URL is refused without echoing its password', () => {
    const password = 'S3cr3t-Pa55word';
    for (const url of [
      `mysql://root:${password}@db.internal:3306/lightbox`,
      `mongodb://admin:${password}@db.internal/lightbox`,
      `http://user:${password}@db.internal/`,
      `${password}@@not a url`,
      `postgres//user:${password}@db.internal/lightbox`,
    ]) {
      assertConfigError({ DATABASE_URL: url }, 'DATABASE_URL', password);
    }
  });

  test('the error message is one clear line', () => {
    const err = assertConfigError({ PORT: 'abc' }, 'PORT');
    assert.equal(err.name, 'ConfigError');
    assert.match(err.message, /^PORT .+/);
  });
});

describe('DATA_DIR', () => {
  let dir: string;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-config-'));
  });

  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('an existing folder, or one not made yet, is taken', () => {
    assert.equal(loadConfig({ DATA_DIR: dir }).dataDir, dir);
    assert.equal(loadConfig({ DATA_DIR: path.join(dir, 'not-yet') }).dataDir, path.join(dir, 'not-yet'));
  });

  test('a path to a file is refused, naming DATA_DIR', async () => {
    const file = path.join(dir, 'a-file');
    await writeFile(file, 'not a folder');
    const err = assertConfigError({ DATA_DIR: file }, 'DATA_DIR');
    assert.match(err.message, /^DATA_DIR /);
  });
});

describe('media settings', () => {
  test('defaults: a folder under DATA_DIR, 2 GiB and 100 files per request, a 268 MP pixel limit', () => {
    const config = loadConfig({ DATA_DIR: 'some/dir' });
    assert.deepEqual(config.media, {
      storage: { kind: 'local', dir: path.resolve('some/dir', 'media') },
      maxFileBytes: 2 * 1024 ** 3,
      maxFiles: 100,
      maxImagePixels: 268_402_689,
      analysis: true,
      analysisOcr: true,
      variants: {
        mlsBox: { width: 2048, height: 1536 },
        concurrency: 1,
        threads: 1,
        leaseMs: 60_000,
        videoTimeoutMs: 1_800_000,
        videoMemoryBytes: 2048 * 1024 ** 2,
      },
      uploadExpiryMs: 24 * 3_600_000,
    });
  });

  test('UPLOAD_EXPIRY_HOURS: hours (fractions too) as milliseconds; anything else stops the start', () => {
    assert.equal(loadConfig({ UPLOAD_EXPIRY_HOURS: '48' }).media.uploadExpiryMs, 48 * 3_600_000);
    assert.equal(loadConfig({ UPLOAD_EXPIRY_HOURS: '0.5' }).media.uploadExpiryMs, 1_800_000);
    for (const bad of ['0', '-1', 'abc', '1e3', '0.0001', '9000']) {
      assert.throws(() => loadConfig({ UPLOAD_EXPIRY_HOURS: bad }), /UPLOAD_EXPIRY_HOURS/, bad);
    }
  });

  test('MEDIA_STORAGE as a folder path: that folder, resolved', () => {
    for (const folder of ['media-store', './x/y', '/srv/lightbox/media']) {
      assert.deepEqual(loadConfig({ MEDIA_STORAGE: folder }).media.storage, {
        kind: 'local',
        dir: path.resolve(folder),
      });
    }
  });

  test('MEDIA_STORAGE as s3://bucket/prefix: the bucket and a prefix without outer slashes', () => {
    const cases: [string, string, string][] = [
      ['s3://photos', 'photos', ''],
      ['s3://photos/', 'photos', ''],
      ['s3://my.studio-photos/media', 'my.studio-photos', 'media'],
      ['s3://photos/media/', 'photos', 'media'],
      ['s3://photos/a/b_c/d-e', 'photos', 'a/b_c/d-e'],
      ['s3://123/x', '123', 'x'],
    ];
    for (const [url, bucket, prefix] of cases) {
      assert.deepEqual(
        loadConfig({ MEDIA_STORAGE: url }).media.storage,
        {
          kind: 's3',
          bucket,
          prefix,
          endpoint: undefined,
          region: 'us-east-1',
          forcePathStyle: false,
          credentials: undefined,
        },
        url,
      );
    }
  });

  test('S3 settings: endpoint (path-style by default), region, credentials with an optional session token', () => {
    const storage = loadConfig({
      MEDIA_STORAGE: 's3://photos/media',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_REGION: 'eu-west-1',
      AWS_REGION: 'us-west-2',
      AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'secret/value',
      AWS_SESSION_TOKEN: 'token',
    }).media.storage;
    assert.deepEqual(storage, {
      kind: 's3',
      bucket: 'photos',
      prefix: 'media',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret/value', sessionToken: 'token' },
    });
    const aws = loadConfig({ MEDIA_STORAGE: 's3://photos', AWS_REGION: 'us-west-2' }).media.storage;
    assert.ok(aws.kind === 's3');
    assert.equal(aws.region, 'us-west-2');
    const virtualHosts = loadConfig({
      MEDIA_STORAGE: 's3://photos',
      S3_ENDPOINT: 'https://s3.example.com',
      S3_FORCE_PATH_STYLE: 'false',
    }).media.storage;
    assert.ok(virtualHosts.kind === 's3');
    assert.equal(virtualHosts.forcePathStyle, false);
    assertConfigError({ MEDIA_STORAGE: 's3://photos', S3_FORCE_PATH_STYLE: 'maybe' }, 'S3_FORCE_PATH_STYLE');
  });

  test('a bad bucket or prefix is refused, naming MEDIA_STORAGE', () => {
    for (const url of [
      's3://',
      's3:///media',
      's3://ab',
      's3://Photos',
      's3://photo_bucket',
      's3://-photos',
      's3://photos-',
      `s3://${'a'.repeat(64)}`,
      's3://photos/../etc',
      's3://photos/a//b',
      's3://photos/a b',
      's3://photos/a\\b',
      's3://photos?x=1',
    ]) {
      assertConfigError({ MEDIA_STORAGE: url }, 'MEDIA_STORAGE');
    }
  });

  test('S3_ENDPOINT must be an http(s) URL without credentials, and is never echoed', () => {
    const secret = 'Sup3rSecret';
    for (const endpoint of [`https://admin:${secret}@s3.example.com`, `http://${secret}@127.0.0.1:9000`]) {
      assertConfigError({ MEDIA_STORAGE: 's3://photos', S3_ENDPOINT: endpoint }, 'S3_ENDPOINT', secret);
    }
    for (const endpoint of ['ftp://s3.example.com', 'not a url', 's3.example.com']) {
      assertConfigError({ MEDIA_STORAGE: 's3://photos', S3_ENDPOINT: endpoint }, 'S3_ENDPOINT');
    }
  });

  test('S3_ENDPOINT with a password but no user name is refused too', () => {
    assertConfigError(
      { MEDIA_STORAGE: 's3://photos', S3_ENDPOINT: 'https://:Sup3rSecret@s3.example.com' },
      'S3_ENDPOINT',
    );
  });

  test('AWS_ACCESS_KEY_ID without its secret (or the reverse) is refused, without echoing the secret', () => {
    const err = assertConfigError(
      { MEDIA_STORAGE: 's3://photos', AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE' },
      'AWS_SECRET_ACCESS_KEY',
    );
    assert.match(err.message, /AWS_SECRET_ACCESS_KEY .*pair/);
    assertConfigError(
      { MEDIA_STORAGE: 's3://photos', AWS_SECRET_ACCESS_KEY: 'only-the-secret' },
      'AWS_ACCESS_KEY_ID',
      'only-the-secret',
    );
  });

  test('MEDIA_MAX_FILE_BYTES, MEDIA_MAX_FILES and MEDIA_MAX_IMAGE_PIXELS are whole numbers within bounds', () => {
    const config = loadConfig({
      MEDIA_MAX_FILE_BYTES: '1048576',
      MEDIA_MAX_FILES: '10000',
      MEDIA_MAX_IMAGE_PIXELS: '1',
    });
    assert.equal(config.media.maxFileBytes, 1048576);
    assert.equal(config.media.maxFiles, 10000);
    assert.equal(config.media.maxImagePixels, 1);
    const bad = ['0', '-1', '1.5', 'abc', '1e9', '10GB', '0x10', '9007199254740993', '1 000'];
    for (const value of bad) {
      assertConfigError({ MEDIA_MAX_FILE_BYTES: value }, 'MEDIA_MAX_FILE_BYTES');
      assertConfigError({ MEDIA_MAX_FILES: value }, 'MEDIA_MAX_FILES');
      assertConfigError({ MEDIA_MAX_IMAGE_PIXELS: value }, 'MEDIA_MAX_IMAGE_PIXELS');
    }
    assertConfigError({ MEDIA_MAX_FILES: '10001' }, 'MEDIA_MAX_FILES');
  });

  test('photo variants: VARIANT_MLS_SIZE is WIDTHxHEIGHT; one photo at a time on one thread by default', () => {
    const defaults = loadConfig({}).media.variants;
    assert.deepEqual(defaults, {
      mlsBox: { width: 2048, height: 1536 },
      concurrency: 1,
      threads: 1,
      leaseMs: 60_000,
      videoTimeoutMs: 1_800_000,
      videoMemoryBytes: 2048 * 1024 ** 2,
    });
    const set = loadConfig({
      VARIANT_MLS_SIZE: '1600x1200',
      VARIANT_CONCURRENCY: '2',
      VARIANT_THREADS: '4',
      VARIANT_LEASE_MS: '5000',
      VIDEO_VARIANT_TIMEOUT_SECONDS: '60',
      VIDEO_VARIANT_MEMORY_MB: '512',
    });
    assert.deepEqual(set.media.variants, {
      mlsBox: { width: 1600, height: 1200 },
      concurrency: 2,
      threads: 4,
      leaseMs: 5000,
      videoTimeoutMs: 60_000,
      videoMemoryBytes: 512 * 1024 ** 2,
    });
    assertConfigError({ VIDEO_VARIANT_TIMEOUT_SECONDS: '0' }, 'VIDEO_VARIANT_TIMEOUT_SECONDS');
    for (const value of ['2048', '0x10', '2048x', 'x1536', '20000x100', '2048X1536', '-1x5', '2048 x 1536']) {
      assertConfigError({ VARIANT_MLS_SIZE: value }, 'VARIANT_MLS_SIZE');
    }
    assertConfigError({ VARIANT_CONCURRENCY: '0' }, 'VARIANT_CONCURRENCY');
    assertConfigError({ VARIANT_THREADS: '65' }, 'VARIANT_THREADS');
    assertConfigError({ VARIANT_LEASE_MS: '0' }, 'VARIANT_LEASE_MS');
  });
});

describe('HTTP timeouts and requests in progress', () => {
  const VARIABLES = [
    'HTTP_HEADERS_TIMEOUT_SECONDS',
    'HTTP_REQUEST_TIMEOUT_SECONDS',
    'HTTP_IDLE_TIMEOUT_SECONDS',
    'HTTP_KEEP_ALIVE_TIMEOUT_SECONDS',
    'HTTP_MAX_IN_FLIGHT_PER_KEY',
    'HTTP_MAX_IN_FLIGHT_PER_ADDRESS',
  ];

  test('defaults: headers in 10 s, a JSON body in 30 s, 30 s idle, 5 s keep-alive; 32 per key, 128 per address; a 64 MB response cache', () => {
    const { http } = loadConfig({});
    assert.deepEqual(http, {
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      idleTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxInFlightPerKey: 32,
      maxInFlightPerAddress: 128,
      responseCacheBytes: 64 * 1024 * 1024,
    });
    assert.ok(Object.isFrozen(http));
  });

  test('each is read as whole seconds or a whole count; anything else stops the start', () => {
    const values = Object.fromEntries(VARIABLES.map((name, i) => [name, String(i + 2)]));
    assert.deepEqual(loadConfig(values).http, {
      headersTimeoutMs: 2_000,
      requestTimeoutMs: 3_000,
      idleTimeoutMs: 4_000,
      keepAliveTimeoutMs: 5_000,
      maxInFlightPerKey: 6,
      maxInFlightPerAddress: 7,
      responseCacheBytes: 64 * 1024 * 1024,
    });
    for (const name of VARIABLES) {
      for (const value of ['0', '-1', '1.5', 'soon', '1e3', '10000000']) {
        assert.match(assertConfigError({ [name]: value }, name).message, /whole number from 1/);
      }
    }
  });

  test('HTTP_RESPONSE_CACHE_MB: megabytes of bodies kept per node, 0 for none; anything else stops the start', () => {
    assert.equal(loadConfig({ HTTP_RESPONSE_CACHE_MB: '0' }).http.responseCacheBytes, 0);
    assert.equal(loadConfig({ HTTP_RESPONSE_CACHE_MB: '8' }).http.responseCacheBytes, 8 * 1024 * 1024);
    for (const value of ['-1', '1.5', 'lots', '1e3', '65537']) {
      assert.match(
        assertConfigError({ HTTP_RESPONSE_CACHE_MB: value }, 'HTTP_RESPONSE_CACHE_MB').message,
        /whole number from 0 to 65536/,
      );
    }
  });
});

describe('limits and Redis', () => {
  test('defaults: 600 a minute per key, 60 per address without a key, 300 per gallery visitor, counters in the process', () => {
    const { limits } = loadConfig({});
    assert.deepEqual(limits, {
      perKeyPerMinute: 600,
      perAddressPerMinute: 60,
      galleryPerAddressPerMinute: 300,
      redisUrl: undefined,
      redisKeyPrefix: 'lightbox:',
    });
    assert.ok(Object.isFrozen(limits));
  });

  test('GALLERY_RATE_LIMIT_PER_MINUTE is a whole number from 1', () => {
    assert.equal(loadConfig({ GALLERY_RATE_LIMIT_PER_MINUTE: '12' }).limits.galleryPerAddressPerMinute, 12);
    for (const value of ['0', '-1', '1.5', 'many']) {
      assertConfigError({ GALLERY_RATE_LIMIT_PER_MINUTE: value }, 'GALLERY_RATE_LIMIT_PER_MINUTE');
    }
  });

  test('RATE_LIMIT_PER_MINUTE and RATE_LIMIT_ADDRESS_PER_MINUTE are whole numbers from 1', () => {
    const { limits } = loadConfig({ RATE_LIMIT_PER_MINUTE: '20', RATE_LIMIT_ADDRESS_PER_MINUTE: '5' });
    assert.equal(limits.perKeyPerMinute, 20);
    assert.equal(limits.perAddressPerMinute, 5);
    for (const value of ['0', '-1', '1.5', 'many', '1e3', '1000000001']) {
      assert.match(
        assertConfigError({ RATE_LIMIT_PER_MINUTE: value }, 'RATE_LIMIT_PER_MINUTE').message,
        /whole number from 1/,
      );
      assertConfigError({ RATE_LIMIT_ADDRESS_PER_MINUTE: value }, 'RATE_LIMIT_ADDRESS_PER_MINUTE');
    }
  });

  test('REDIS_URL: redis:// or rediss://, taken as given', () => {
    for (const url of ['redis://127.0.0.1:6379', 'rediss://:pw@cache.example:6380/2', 'redis://user:pw@r/0']) {
      assert.equal(loadConfig({ REDIS_URL: url }).limits.redisUrl, url);
    }
    assert.equal(loadConfig({ REDIS_KEY_PREFIX: 'prod-eu:' }).limits.redisKeyPrefix, 'prod-eu:');
  });

  test('a bad REDIS_URL is refused in one line, never echoing it or its password', () => {
    for (const url of [
      'http://:hunter2@cache:6379',
      'redis//:hunter2@cache',
      'redis://:hunter2@cache:6379/not-a-db',
      'redis://:hunter2@:6379',
    ]) {
      const err = assertConfigError({ REDIS_URL: url }, 'REDIS_URL', 'hunter2');
      assert.ok(!err.message.includes(url));
    }
  });

  test('REDIS_KEY_PREFIX holds only safe characters', () => {
    for (const prefix of ['has space', 'x'.repeat(65), 'brace{}', 'new\nline']) {
      assertConfigError({ REDIS_KEY_PREFIX: prefix }, 'REDIS_KEY_PREFIX');
    }
  });
});

describe('TRUST_PROXY', () => {
  test('unset or false: no proxy is trusted (the connection is the client)', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: '0' }).trustProxy, false);
  });

  test('a hop count, or addresses and CIDRs by name or number', () => {
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
    assert.deepEqual(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8,2001:db8::/32,192.0.2.7' }).trustProxy, [
      'loopback',
      '10.0.0.0/8',
      '2001:db8::/32',
      '192.0.2.7',
    ]);
  });

  test('anything else is refused in one line naming the variable', () => {
    for (const value of ['true', '11', 'proxy.example', '10.0.0.0/33', '::/129', '10.0.0.1/8/8', 'loopback,']) {
      assertConfigError({ TRUST_PROXY: value }, 'TRUST_PROXY');
    }
  });
});

describe('METRICS_PORT and METRICS_HOST', () => {
  test('unset: no /metrics listener; set: on 127.0.0.1 unless METRICS_HOST says otherwise', () => {
    assert.equal(loadConfig({}).metrics, undefined);
    assert.deepEqual(loadConfig({ METRICS_PORT: '9464' }).metrics, { port: 9464, host: '127.0.0.1' });
    assert.equal(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }).metrics?.host, '0.0.0.0');
  });

  test('a bad port, the public port, or a bad host is refused naming the variable', () => {
    for (const value of ['0', '65536', 'nine', '94.64', '3000'])
      assertConfigError({ METRICS_PORT: value }, 'METRICS_PORT');
    assertConfigError({ PORT: '8080', METRICS_PORT: '8080' }, 'METRICS_PORT');
    assertConfigError({ METRICS_PORT: '9464', METRICS_HOST: 'bad host' }, 'METRICS_HOST');
  });
});

describe('PUBLIC_URL and the mail settings', () => {
  test('PUBLIC_URL with credentials, a query or a fragment is refused without echoing a password', () => {
    for (const url of ['https://admin:Hunter22@photos.example.com', 'https://:Hunter22@photos.example.com']) {
      assertConfigError({ PUBLIC_URL: url }, 'PUBLIC_URL', 'Hunter22');
    }
    for (const url of ['https://photos.example.com/?a=1', 'https://photos.example.com/#top']) {
      assertConfigError({ PUBLIC_URL: url }, 'PUBLIC_URL');
    }
  });

  test('defaults: the outbox (no SMTP_URL), Lightbox <no-reply@localhost>, retries for 24 h from 30 s', () => {
    assert.deepEqual(loadConfig({}).mail, {
      smtpUrl: undefined,
      from: { name: 'Lightbox', address: 'no-reply@localhost' },
      retryHours: 24,
      retryBaseSeconds: 30,
      allowLocal: false,
    });
  });

  test('with SMTP_URL, a start needs a PUBLIC_URL clients can open and a MAIL_FROM not at localhost', () => {
    const start = (env: Record<string, string>) => loadConfig(env, { start: true });
    const refused = (env: Record<string, string>, variable: string, pattern: RegExp): void => {
      assert.throws(
        () => start(env),
        (err: unknown) =>
          err instanceof ConfigError &&
          err.variable === variable &&
          pattern.test(err.message) &&
          !err.message.includes('\n') &&
          !err.message.includes('Hunter22'),
        JSON.stringify(env),
      );
      // Only a start is refused: every other command loads the same settings.
      assert.equal(loadConfig(env).mail.smtpUrl, env.SMTP_URL);
    };
    const smtp = 'smtps://user:Hunter22@smtp.example.com:465';
    const from = 'Harbour Light <galleries@harbour.example>';
    refused(
      { SMTP_URL: smtp, MAIL_FROM: from },
      'PUBLIC_URL',
      /must be set when SMTP_URL is.*http:\/\/127\.0\.0\.1:3000/,
    );
    refused({ SMTP_URL: smtp, MAIL_FROM: from, HOST: '0.0.0.0' }, 'PUBLIC_URL', /must be set/);
    for (const url of [
      'http://127.0.0.1:3000',
      'http://127.1.2.3',
      'http://localhost:8080/lightbox',
      'https://studio.localhost',
      'http://[::1]:3000',
      'http://0.0.0.0:3000',
      'http://[::ffff:127.0.0.1]',
    ]) {
      refused({ SMTP_URL: smtp, MAIL_FROM: from, PUBLIC_URL: url }, 'PUBLIC_URL', /an address only this machine opens/);
    }
    for (const address of ['no-reply@localhost', 'Studio <a@LOCALHOST>', 'x@mail.localhost', 'x@127.0.0.1']) {
      const env = { SMTP_URL: smtp, PUBLIC_URL: 'https://photos.example.com', MAIL_FROM: address };
      refused(env, 'MAIL_FROM', /set it to an address at your own domain/);
    }
    refused({ SMTP_URL: smtp, PUBLIC_URL: 'https://photos.example.com' }, 'MAIL_FROM', /no-reply@localhost/);
    // Accepted: real settings; no SMTP_URL (the outbox); or MAIL_ALLOW_LOCAL=true for a local mail catcher.
    assert.equal(
      start({ SMTP_URL: smtp, PUBLIC_URL: 'https://photos.example.com', MAIL_FROM: from }).mail.allowLocal,
      false,
    );
    assert.equal(start({ PUBLIC_URL: 'http://127.0.0.1:3000' }).mail.smtpUrl, undefined);
    assert.equal(start({}).publicUrl, 'http://127.0.0.1:3000');
    assert.equal(start({ SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_ALLOW_LOCAL: 'true' }).mail.allowLocal, true);
  });

  test('SMTP_URL: smtp:// or smtps:// with a host, taken as given', () => {
    for (const url of ['smtp://127.0.0.1:2525', 'smtps://user:pw@smtp.example.com:465']) {
      assert.equal(loadConfig({ SMTP_URL: url }).mail.smtpUrl, url);
    }
  });

  test('a bad SMTP_URL is refused in one line, never echoing it or its password', () => {
    for (const url of [
      'http://user:Hunter22@smtp.example.com',
      'smtp//user:Hunter22@smtp.example.com',
      'smtp:user:Hunter22',
      'Hunter22',
    ]) {
      const err = assertConfigError({ SMTP_URL: url }, 'SMTP_URL', 'Hunter22');
      assert.ok(!err.message.includes(url));
    }
  });

  test('MAIL_FROM: an address or "Name <address>"', () => {
    assert.deepEqual(loadConfig({ MAIL_FROM: 'galleries@studio.example' }).mail.from, {
      name: '',
      address: 'galleries@studio.example',
    });
    assert.deepEqual(loadConfig({ MAIL_FROM: '"Harbour Light" <hello@harbour.example>' }).mail.from, {
      name: 'Harbour Light',
      address: 'hello@harbour.example',
    });
    for (const from of ['nobody', 'Name <not an address>', '<>', 'a@b c@d'])
      assertConfigError({ MAIL_FROM: from }, 'MAIL_FROM');
  });

  test('MAIL_RETRY_HOURS (1 to 720) and MAIL_RETRY_BASE_SECONDS (1 to 3600) are whole numbers', () => {
    const { mail } = loadConfig({ MAIL_RETRY_HOURS: '720', MAIL_RETRY_BASE_SECONDS: '1' });
    assert.equal(mail.retryHours, 720);
    assert.equal(mail.retryBaseSeconds, 1);
    for (const value of ['0', '721', '1.5', 'a day'])
      assertConfigError({ MAIL_RETRY_HOURS: value }, 'MAIL_RETRY_HOURS');
    for (const value of ['0', '3601', '-5', '1e2']) {
      assertConfigError({ MAIL_RETRY_BASE_SECONDS: value }, 'MAIL_RETRY_BASE_SECONDS');
    }
  });
});
