import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { hashPassword, verifyPassword } from './password.ts';

test('a hash is scrypt with its parameters and a random salt, and never contains the password', async () => {
  const a = await hashPassword('correct horse battery');
  const b = await hashPassword('correct horse battery');
  const [scheme, n, r, p, salt, key] = a.split('$');
  assert.equal(scheme, 'scrypt');
  // Memory-hard: 128 * N * r bytes of memory per hash, at least 32 MiB.
  assert.ok(128 * Number(n) * Number(r) >= 32 * 1024 * 1024, `N=${n} r=${r}`);
  assert.equal(Number(p), 1);
  assert.equal(Buffer.from(salt ?? '', 'base64').length, 16);
  assert.equal(Buffer.from(key ?? '', 'base64').length, 32);
  assert.notEqual(a, b, 'two hashes of one password differ by their salt');
  assert.ok(!a.includes('correct horse'));
});

test('verify accepts the password and refuses anything else', async () => {
  const stored = await hashPassword('correct horse battery');
  assert.equal(await verifyPassword('correct horse battery', stored), true);
  assert.equal(await verifyPassword('correct horse batterY', stored), false);
  assert.equal(await verifyPassword('correct horse battery ', stored), false);
  assert.equal(await verifyPassword('', stored), false);
});

test('passwords are compared in Unicode NFKC form, so the same text typed differently matches', async () => {
  const stored = await hashPassword('caf\u00e9 latte, please');
  assert.equal(await verifyPassword('cafe\u0301 latte, please', stored), true);
});

test('a malformed or foreign stored value never verifies', async () => {
  for (const stored of ['', 'plain', 'bcrypt$2b$10$abc', 'scrypt$16384$8$1$']) {
    assert.equal(await verifyPassword('anything at all', stored), false, stored);
  }
});

test('password checks leave libuv threads free: a file read does not wait behind 8 of them', async () => {
  const stored = await hashPassword('correct horse battery');
  const order: string[] = [];
  const checks = Array.from({ length: 8 }, (_, i) =>
    verifyPassword(`guess ${i}`, stored).then(() => order.push(`check ${i}`)),
  );
  // Each check is a 32 MiB scrypt on libuv's thread pool (4 threads), which file reads share.
  const read = readFile(fileURLToPath(import.meta.url)).then(() => order.push('read'));
  await Promise.all([...checks, read]);
  assert.equal(order[0], 'read', order.join(', '));
});
