// Request validation: one Ajv for JSON bodies (strict types, no coercion: "3" is not a number)
// and one for query strings and path parameters (which arrive as text and are coerced).
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import secureJson from 'secure-json-parse';
import { AppError, type ErrorDetail } from '../errors.ts';

// ajv-formats ships CommonJS; its default export arrives wrapped under ESM.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** Fields the API sets itself; a body that sends them is told so by name (the fuzzer sends them too). */
export const READ_ONLY_FIELDS = new Set([
  'id',
  'created_at',
  'updated_at',
  'client_id',
  'media_count',
  'account_id',
  'listings',
]);

const common: Options = {
  allErrors: true,
  allowUnionTypes: true,
  removeAdditional: false,
  useDefaults: true,
  strict: false,
};

const bodyAjv = addFormats(new Ajv({ ...common, coerceTypes: false }));
const textAjv = addFormats(new Ajv({ ...common, coerceTypes: 'array' }));

/**
 * A value checked against a body schema by the Ajv every /v1 body goes through (a schema is
 * compiled once: Ajv keeps it by identity). The dashboard's forms use it, so a limit is written
 * once, in the route's schema, and a form refuses what the API refuses.
 */
export function bodySchemaErrors(schema: object, value: unknown): readonly ErrorObject[] {
  const validate = bodyAjv.compile(schema);
  return validate(value) ? [] : (validate.errors ?? []);
}

const acceptAll = (() => true) as unknown as ReturnType<FastifySchemaCompiler<unknown>>;

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;

/**
 * The route options of a route whose body its handler streams (a multipart upload, tus bytes):
 * the body schema documents it in OpenAPI but validates nothing, and `config.streamedBody` tells
 * the connection and idempotency hooks (src/http/connections.ts, idempotency.hooks.ts).
 */
export const STREAMED_BODY = {
  config: { streamedBody: true },
  validatorCompiler: ((route) =>
    route.httpPart === 'body' ? acceptAll : validatorCompiler(route)) as FastifySchemaCompiler<unknown>,
} as const;

function dotted(instancePath: string): string {
  return instancePath
    .split('/')
    .filter((s) => s !== '')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

const join = (base: string, name: string): string => (base === '' ? name : `${base}.${name}`);

function describeType(type: unknown): string {
  const types = Array.isArray(type) ? type : [type];
  const named = types.map((t) =>
    t === 'null' ? 'null' : t === 'integer' || t === 'object' || t === 'array' ? `an ${String(t)}` : `a ${String(t)}`,
  );
  return `must be ${named.join(' or ')}`;
}

/** Ajv errors as the API's `details`: one entry per field, in a caller's vocabulary. */
export function toDetails(errors: readonly ErrorObject[], context: string | undefined): ErrorDetail[] {
  const root = context === 'body' || context === undefined ? 'body' : context === 'querystring' ? 'query' : context;
  const seen = new Set<string>();
  const out: ErrorDetail[] = [];
  for (const e of errors) {
    const base = dotted(e.instancePath);
    let field = base === '' ? root : base;
    let message: string;
    switch (e.keyword) {
      case 'additionalProperties': {
        const name = (e.params as { additionalProperty: string }).additionalProperty;
        field = join(base, name);
        message = READ_ONLY_FIELDS.has(name) && base === '' ? 'is read-only' : 'is not a known field';
        break;
      }
      case 'required':
        field = join(base, (e.params as { missingProperty: string }).missingProperty);
        message = 'is required';
        break;
      case 'type':
        message = describeType((e.params as { type: unknown }).type);
        break;
      case 'enum':
        message = `must be one of ${((e.params as { allowedValues: unknown[] }).allowedValues ?? []).map(String).join(', ')}`;
        break;
      case 'minProperties':
        message = 'must have at least one field';
        break;
      case 'minLength':
        message = (e.params as { limit: number }).limit === 1 ? 'must not be empty' : (e.message ?? 'is too short');
        break;
      case 'format':
        message = `must be a valid ${(e.params as { format: string }).format.replace('date-time', 'ISO 8601 timestamp')}`;
        break;
      default:
        message = e.message ?? 'is invalid';
    }
    const key = `${field}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field, message });
  }
  return out;
}

/**
 * Whether any string in a value (a string, or an array of strings or objects at any depth) is not storable text:
 * a NUL, or an unpaired surrogate. Iterative, so a deeply nested array cannot overflow the stack
 * (bodies are bounded to MAX_JSON_DEPTH before they are parsed, query values are flat anyway).
 */
function textFaults(value: unknown): { nul: boolean; surrogate: boolean } {
  // The common case, a plain string, without the work list.
  if (typeof value === 'string') return { nul: value.includes('\u0000'), surrogate: !value.isWellFormed() };
  const faults = { nul: false, surrogate: false };
  if (!Array.isArray(value)) return faults;
  const pending: unknown[] = [value];
  while (pending.length > 0 && !(faults.nul && faults.surrogate)) {
    const v = pending.pop();
    if (typeof v === 'string') {
      if (v.includes('\u0000')) faults.nul = true;
      // A lone UTF-16 surrogate (JSON's "\udfff") is not text: it would be stored as U+FFFD.
      if (!v.isWellFormed()) faults.surrogate = true;
    } else if (Array.isArray(v)) {
      for (const item of v) pending.push(item);
    } else if (typeof v === 'object' && v !== null) {
      // The objects of a list (a gallery's tours, an invoice's items) hold text too.
      for (const item of Object.values(v)) pending.push(item);
    }
  }
  return faults;
}

function nulFields(values: unknown): ErrorDetail[] {
  if (typeof values !== 'object' || values === null) return [];
  return Object.entries(values as Record<string, unknown>).flatMap(([field, v]) => {
    const { nul, surrogate } = textFaults(v);
    return [
      ...(nul ? [{ field, message: 'must not contain NUL characters' }] : []),
      ...(surrogate ? [{ field, message: 'must be valid Unicode text (no unpaired surrogates)' }] : []),
    ];
  });
}

interface RouteSchemas {
  /** The body's schema: its `properties` (with their maxLength) are read. */
  body?: unknown;
  querystring?: { properties?: Record<string, { type?: unknown }> };
}

/**
 * A string far over its field's maxLength, cut to just over it (at a code point boundary): Ajv
 * counts a string's code points one by one, 8 ms for a 1 MiB value that is refused anyway. What
 * it then reports is unchanged: the field is over its maxLength.
 */
function cutFarOver(value: string, maxLength: number | undefined): string {
  if (maxLength === undefined || value.length <= 2 * maxLength + 2) return value;
  const cut = value.slice(0, 2 * maxLength + 2);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

const INTEGER_TEXT = /^-?[0-9]+$/;

/** `{}` and `null`: what many HTTP clients send when there is nothing to send. */
export function isEmptyBody(body: unknown): boolean {
  if (body === undefined || body === null) return true;
  if (typeof body !== 'object' || Array.isArray(body)) return false;
  for (const _key in body) return false;
  return true;
}

type ItemsSchema = { items?: { properties?: Record<string, { maxLength?: number } | undefined> } };

/** Trims the strings of each object of a list, as top-level strings are (one level: nothing nests deeper). */
function trimItems(list: unknown[], schema: ItemsSchema | undefined): void {
  for (const item of list) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) continue;
    const record = item as Record<string, unknown>;
    for (const [k, v] of Object.entries(record)) {
      if (typeof v === 'string') record[k] = cutFarOver(v.trim(), schema?.items?.properties?.[k]?.maxLength);
    }
  }
}

/**
 * Runs before schema validation, on what the route declares:
 * - a route without a body schema takes no body: `{}` and `null` count as none (the caller
 *   normalises them away), anything else is refused, not ignored;
 * - strings are stored trimmed, so trimming first makes "   " an empty string for the schema (and
 *   one far over its maxLength is cut to just over it, so checking its length costs nothing);
 * - a NUL character is refused (PostgreSQL cannot store one, SQLite can: both must answer alike),
 *   and so is an unpaired surrogate (both would store U+FFFD instead: the caller would not get back
 *   what it sent);
 * - a query parameter the route does not declare is refused, as an unknown body field is: a
 *   misspelt filter must not silently answer everything;
 * - an integer query parameter must be written as one: coercion alone would take 0x14, 1e1, +5.
 */
export function checkInput(body: unknown, query: unknown, schema: RouteSchemas | undefined): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  if (schema?.body === undefined) {
    if (!isEmptyBody(body))
      details.push({ field: 'body', message: 'must be empty: this operation takes no request body' });
  } else {
    details.push(...nulFields(body));
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
      const record = body as Record<string, unknown>;
      const properties = (schema.body as { properties?: Record<string, { maxLength?: number } | undefined> })
        .properties;
      for (const [k, v] of Object.entries(record)) {
        if (typeof v === 'string') record[k] = cutFarOver(v.trim(), properties?.[k]?.maxLength);
        // A list of small objects (a gallery's tours): their strings are stored trimmed too.
        if (Array.isArray(v)) trimItems(v, properties?.[k] as ItemsSchema | undefined);
      }
    }
  }
  if (typeof query !== 'object' || query === null) return details;
  const declared = schema?.querystring?.properties ?? {};
  const raw = query as Record<string, unknown>;
  for (const name of Object.keys(raw)) {
    if (!Object.hasOwn(declared, name)) details.push({ field: name, message: 'is not a known query parameter' });
  }
  details.push(...nulFields(Object.fromEntries(Object.entries(raw).filter(([k]) => Object.hasOwn(declared, k)))));
  for (const [name, property] of Object.entries(declared)) {
    const value = raw[name];
    if (property.type === 'integer' && typeof value === 'string' && !INTEGER_TEXT.test(value)) {
      details.push({ field: name, message: 'must be an integer' });
    }
  }
  return details;
}

/**
 * Most object keys (in all) and the deepest nesting a JSON body may have. Every body the API takes
 * is a flat object of a dozen fields; these leave room for what comes, and refuse the rest before
 * it costs anything: JSON.parse of 1 MiB holding 80,000 keys takes about 100 ms of the event loop,
 * and Ajv reporting each of them as unknown several times that, which one key's flood would take
 * from every other account (docs/architecture.md, "A request's path").
 */
const MAX_JSON_KEYS = 256;
const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * One pass over the text, outside strings: each colon is an object key, each `{` or `[` one level
 * deeper. About a millisecond per MiB, a fraction of the parse it saves; it stops at the first
 * limit passed. What it counts in text that is not JSON does not matter: the parser refuses that.
 */
function checkJsonShape(text: string): void {
  // Most bodies hold too few colons and brackets, even counting those inside strings, to pass a
  // limit: indexOf finds that out far faster than the walk below.
  if (
    occurrences(text, ':', MAX_JSON_KEYS) <= MAX_JSON_KEYS &&
    occurrences(text, '{', MAX_JSON_DEPTH) + occurrences(text, '[', MAX_JSON_DEPTH) <= MAX_JSON_DEPTH
  ) {
    return;
  }
  let keys = 0;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i += 1;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === COLON) {
      keys += 1;
      if (keys > MAX_JSON_KEYS) throw shapeError(`must have at most ${MAX_JSON_KEYS} fields (keys) in all`);
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth += 1;
      if (depth > MAX_JSON_DEPTH) throw shapeError(`must be nested at most ${MAX_JSON_DEPTH} deep`);
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth -= 1;
    }
  }
}

/** How many times `char` is in `text`, counting no further than just past `limit`. */
function occurrences(text: string, char: string, limit: number): number {
  let n = 0;
  for (let i = text.indexOf(char); i !== -1 && n <= limit; i = text.indexOf(char, i + 1)) n += 1;
  return n;
}

const shapeError = (message: string): AppError =>
  new AppError('validation_error', `body ${message}`, [{ field: 'body', message }]);

/**
 * The JSON body parser. An empty body is "no body" (many clients send Content-Type:
 * application/json on every request, DELETE included); a route that needs one then answers
 * validation_error. __proto__ and constructor.prototype keys are refused, never merged. The body's
 * shape (keys, depth) is bounded before it is parsed.
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  checkJsonShape(text);
  try {
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (err) {
    if (err instanceof SyntaxError && /prototype|constructor/i.test(err.message)) {
      throw new AppError('validation_error', 'body must not contain __proto__ or constructor.prototype keys', [
        { field: 'body', message: 'must not contain __proto__ or constructor.prototype keys' },
      ]);
    }
    throw new AppError('invalid_json', 'Request body is not valid JSON');
  }
}
