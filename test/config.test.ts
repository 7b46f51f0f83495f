// Configuration from the environment (section 12): defaults, the database choice, and a clear
// ConfigError naming the variable for each bad value, never echoing a password.
// node:test's describe() and test() return promises that the runner itself awaits.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ConfigError, loadConfig } from '../src/config.ts';

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
  });

  test('empty or blank values count as unset', () => {
    assert.deepEqual(
      loadConfig({ PORT: '', HOST: '  ', LOG_LEVEL: '', PUBLIC_URL: ' ', DATABASE_URL: '' }),
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
    assert.equal(loadConfig({ PORT: '0' }).port, 0);
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
    for (const port of ['abc', '70000', '65536', '-1', '3.5', '1e3', '80 80'])
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
