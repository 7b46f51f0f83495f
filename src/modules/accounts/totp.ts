// Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP): HMAC-SHA1, 30-second steps,
// 6 digits, the step before and after accepted for clocks that drift. node:crypto does the HMAC;
// the rest is a few lines, so no dependency stands between a sign-in and its second factor.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const STEP_SECONDS = 30;
const DIGITS = 6;
/** Steps either side of now that are still accepted (RFC 6238 §5.2 recommends at most one). */
const DRIFT_STEPS = 1;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding: how authenticator apps take a secret. */
export function base32Encode(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32.charAt((value >>> (bits - 5)) & 31);
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32.charAt((value << (5 - bits)) & 31);
  return out;
}

/** Decodes base32 (case, spaces and padding ignored); null when a character is not base32. */
export function base32Decode(text: string): Buffer | null {
  const clean = text.toUpperCase().replace(/[\s=]/g, '');
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index < 0) return null;
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** A new secret: 20 random bytes (160 bits, RFC 4226's recommended length), base32. */
export const newTotpSecret = (): string => base32Encode(randomBytes(20));

/** The time step of a moment (Unix milliseconds). */
export const stepAt = (ms: number): number => Math.floor(ms / 1000 / STEP_SECONDS);

/** HOTP (RFC 4226 §5.3) of a counter, with `digits` digits (RFC 6238's vectors use 8). */
export function hotp(key: Buffer, counter: number, digits = DIGITS, algorithm: 'sha1' | 'sha256' | 'sha512' = 'sha1') {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, key).update(message).digest();
  const offset = (mac[mac.length - 1] as number) & 0xf;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** The code a secret (base32) shows at a moment. */
export function totpAt(secret: string, ms: number): string {
  const key = base32Decode(secret);
  if (key === null) throw new Error('the secret is not base32');
  return hotp(key, stepAt(ms));
}

/**
 * The step whose code `code` is, within DRIFT_STEPS of now and later than `lastStep` (a code
 * used once is not accepted again, nor is any older one); null when it matches none.
 */
export function matchingStep(secret: string, code: string, nowMs: number, lastStep: number | null): number | null {
  const key = base32Decode(secret);
  if (key === null || !new RegExp(`^\\d{${DIGITS}}$`).test(code)) return null;
  const now = stepAt(nowMs);
  let found: number | null = null;
  // Every candidate is computed and compared in constant time: the answer's timing says nothing.
  for (let step = now - DRIFT_STEPS; step <= now + DRIFT_STEPS; step += 1) {
    const same = timingSafeEqual(Buffer.from(hotp(key, step)), Buffer.from(code));
    if (same && found === null && (lastStep === null || step > lastStep)) found = step;
  }
  return found;
}

/** The otpauth:// URI an authenticator app reads from the QR code (Key Uri Format). */
export function otpauthUri(secret: string, issuer: string, account: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const params = new URLSearchParams({
    secret,
    issuer,
    algorithm: 'SHA1',
    digits: String(DIGITS),
    period: String(STEP_SECONDS),
  });
  return `otpauth://totp/${label}?${params.toString()}`;
}

/** The secret in groups of four, as a person copies it into an app by hand. */
export const groupedSecret = (secret: string): string => secret.replace(/(.{4})/g, '$1 ').trim();
