// TOTP against RFC 6238's own test vectors (Appendix B, SHA-1 seed, 8 digits), and the rules
// this app adds: 6 digits, one step of drift either way, a step never accepted twice.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { base32Decode, base32Encode, hotp, matchingStep, otpauthUri, stepAt, totpAt } from './totp.ts';

const SEED = Buffer.from('12345678901234567890');

test('RFC 6238 Appendix B: the SHA-1 test vectors', () => {
  const vectors: [number, string][] = [
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ];
  for (const [seconds, code] of vectors) assert.equal(hotp(SEED, stepAt(seconds * 1000), 8), code, `T=${seconds}`);
});

test('RFC 6238 Appendix B: the SHA-256 and SHA-512 vectors, with their longer seeds', () => {
  const seed256 = Buffer.from('12345678901234567890123456789012');
  const seed512 = Buffer.from('1234567890123456789012345678901234567890123456789012345678901234');
  assert.equal(hotp(seed256, stepAt(59_000), 8, 'sha256'), '46119246');
  assert.equal(hotp(seed512, stepAt(59_000), 8, 'sha512'), '90693936');
  assert.equal(hotp(seed256, stepAt(1111111109_000), 8, 'sha256'), '68084774');
  assert.equal(hotp(seed512, stepAt(20000000000_000), 8, 'sha512'), '47863826');
});

test('RFC 4226 Appendix D: HOTP of the first counters, 6 digits', () => {
  const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
  expected.forEach((code, counter) => assert.equal(hotp(SEED, counter), code));
});

test('base32 round-trips, ignores case, spaces and padding, and refuses other characters', () => {
  const secret = base32Encode(SEED);
  assert.equal(secret, 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
  assert.deepEqual(base32Decode(secret.toLowerCase().replace(/(.{4})/g, '$1 ')), SEED);
  assert.deepEqual(base32Decode('MZXW6==='), Buffer.from('foo'));
  assert.equal(base32Decode('GEZ1'), null);
});

test('a code matches its step, the one before and the one after; no other, and never a used one again', () => {
  const secret = base32Encode(SEED);
  const now = 1_700_000_000_000;
  const step = stepAt(now);
  assert.equal(matchingStep(secret, totpAt(secret, now), now, null), step);
  assert.equal(matchingStep(secret, totpAt(secret, now - 30_000), now, null), step - 1);
  assert.equal(matchingStep(secret, totpAt(secret, now + 30_000), now, null), step + 1);
  assert.equal(matchingStep(secret, totpAt(secret, now - 60_000), now, null), null);
  assert.equal(matchingStep(secret, totpAt(secret, now + 60_000), now, null), null);
  // Used: the same step (and any older one) is refused; a later one is still fine.
  assert.equal(matchingStep(secret, totpAt(secret, now), now, step), null);
  assert.equal(matchingStep(secret, totpAt(secret, now - 30_000), now, step), null);
  assert.equal(matchingStep(secret, totpAt(secret, now + 30_000), now, step), step + 1);
  for (const junk of ['', '12345', '1234567', 'abcdef', ' 123456'])
    assert.equal(matchingStep(secret, junk, now, null), null);
});

test('the otpauth URI names the issuer and the person, and carries the parameters apps read', () => {
  const uri = new URL(otpauthUri('GEZDGNBV', 'Lightbox Harbour & Co', 'ana@example.com'));
  assert.equal(uri.protocol, 'otpauth:');
  assert.equal(uri.host, 'totp');
  assert.equal(decodeURIComponent(uri.pathname), '/Lightbox Harbour & Co:ana@example.com');
  assert.equal(uri.searchParams.get('secret'), 'GEZDGNBV');
  assert.equal(uri.searchParams.get('issuer'), 'Lightbox Harbour & Co');
  assert.equal(uri.searchParams.get('digits'), '6');
  assert.equal(uri.searchParams.get('period'), '30');
  assert.equal(uri.searchParams.get('algorithm'), 'SHA1');
});
