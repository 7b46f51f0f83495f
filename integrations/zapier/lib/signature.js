'use strict';
// Standard Webhooks signature check (https://www.standardwebhooks.com): Lightbox signs
// `${webhook-id}.${webhook-timestamp}.${body}` with HMAC-SHA256 and the endpoint's `whsec_` secret.
const { createHmac, timingSafeEqual } = require('node:crypto');

const TOLERANCE_SECONDS = 5 * 60;

/** A header by name, whatever its case, also under Zapier's `Http-` prefix for raw requests. */
const header = (headers, name) => {
  if (!headers) return undefined;
  const wanted = [name.toLowerCase(), `http-${name.toLowerCase()}`];
  for (const [key, value] of Object.entries(headers)) {
    if (wanted.includes(key.toLowerCase())) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
};

/**
 * Whether `body` (the raw text) with `headers` was signed by `secret`, and (unless `tolerance` is
 * null) within `tolerance` seconds of `now`. Returns null when it verifies, else the reason.
 */
const verify = (secret, headers, body, { now = Date.now(), tolerance = TOLERANCE_SECONDS } = {}) => {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) return 'the Standard Webhooks headers are missing';
  const seconds = Number(timestamp);
  if (!Number.isInteger(seconds)) return 'the timestamp is not a number';
  if (tolerance !== null && Math.abs(now / 1000 - seconds) > tolerance) {
    return 'the timestamp is too far from now';
  }
  const key = Buffer.from(String(secret).replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  for (const candidate of String(signatures).split(' ')) {
    const [version, value] = candidate.split(',');
    if (version !== 'v1' || !value) continue;
    const given = Buffer.from(value, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return null;
  }
  return 'no signature matches the secret';
};

module.exports = { verify, header };
