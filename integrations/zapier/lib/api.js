'use strict';
// Shared request plumbing: the Lightbox address from the connection, the key on every request,
// and Lightbox's error bodies turned into messages a studio owner can act on.

/** The connection's Lightbox address without a trailing slash. */
const baseUrl = (bundle) => String(bundle.authData.baseUrl || '').replace(/\/+$/, '');

const apiUrl = (bundle, path) => `${baseUrl(bundle)}${path}`;

const addApiKey = (request, z, bundle) => {
  if (bundle.authData && bundle.authData.apiKey) {
    request.headers = request.headers || {};
    request.headers.Authorization = `Bearer ${bundle.authData.apiKey}`;
  }
  return request;
};

/** What a studio owner reads when Lightbox refuses a request. */
const explainErrors = (response, z) => {
  if (response.skipThrowForStatus || response.status < 400) return response;
  let error = null;
  try {
    error = JSON.parse(response.content).error;
  } catch {
    // Not a Lightbox error body (a proxy's page, say): fall back to the status.
  }
  const code = (error && error.code) || `http_${response.status}`;
  if (response.status === 401) {
    throw new z.errors.Error(
      'Lightbox did not accept the API key. Create a new key in your Lightbox dashboard (API keys) and reconnect.',
      'AuthenticationError',
      401,
    );
  }
  let message = (error && error.message) || `Lightbox answered ${response.status}.`;
  if (error && Array.isArray(error.details) && error.details.length > 0) {
    message += ` (${error.details.map((d) => `${d.field}: ${d.message}`).join('; ')})`;
  }
  if (response.status === 403) message += ' Use an API key with full access, not a read-only key.';
  throw new z.errors.Error(message, code, response.status);
};

/** Only the fields the user filled in: Lightbox refuses unknown and empty-string fields. */
const pickFilled = (inputData, keys) => {
  const out = {};
  for (const key of keys) {
    const value = inputData[key];
    if (value === undefined || value === null || value === '') continue;
    out[key] = value;
  }
  return out;
};

/** Lightbox wants JSON numbers: turn a mapped "3" into 3, and say which field is not a number. */
const numbersIn = (z, body, keys) => {
  for (const key of keys) {
    if (body[key] === undefined) continue;
    const n = typeof body[key] === 'number' ? body[key] : Number(String(body[key]).trim());
    if (!Number.isFinite(n)) {
      throw new z.errors.Error(`"${body[key]}" is not a number (${key}).`, 'validation_error', 400);
    }
    body[key] = n;
  }
  return body;
};

/**
 * Money is whole numbers of the currency's minor unit (docs/api.md §29): "2500" becomes 2500, and
 * "25.00" or "abc" is refused with the field's name (never rounded, never a float).
 */
const integersIn = (z, body, keys, what = 'a whole number') => {
  for (const key of keys) {
    if (body[key] === undefined) continue;
    const text = String(body[key]).trim();
    if (!/^\d{1,15}$/.test(text)) {
      throw new z.errors.Error(`"${body[key]}" is not ${what} (${key}).`, 'validation_error', 400);
    }
    body[key] = Number(text);
  }
  return body;
};

/** "8.25" (percent) becomes 825 basis points by its digits, without floating point. */
const percentToBps = (z, value, key) => {
  const match = /^(\d{1,3})(?:\.(\d{1,2}))?\s*%?$/.exec(String(value).trim());
  if (!match) {
    throw new z.errors.Error(
      `"${value}" is not a percentage with at most two decimals, like 8.25 (${key}).`,
      'validation_error',
      400,
    );
  }
  return Number(match[1]) * 100 + Number((match[2] || '').padEnd(2, '0'));
};

const YES = ['true', 'yes', '1', 'on'];
const NO = ['false', 'no', '0', 'off'];

/** Lightbox wants JSON booleans: a boolean field or a mapped "yes"/"false" becomes true or false. */
const booleansIn = (z, body, keys) => {
  for (const key of keys) {
    if (body[key] === undefined || typeof body[key] === 'boolean') continue;
    const word = String(body[key]).trim().toLowerCase();
    if (!YES.includes(word) && !NO.includes(word)) {
      throw new z.errors.Error(`"${body[key]}" is not yes or no (${key}).`, 'validation_error', 400);
    }
    body[key] = YES.includes(word);
  }
  return body;
};

module.exports = {
  baseUrl,
  apiUrl,
  addApiKey,
  explainErrors,
  pickFilled,
  numbersIn,
  integersIn,
  percentToBps,
  booleansIn,
};
