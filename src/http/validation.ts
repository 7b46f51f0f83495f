// Request validation: one Ajv for JSON bodies (strict types, no coercion: "3" is not a number)
// and one for query strings and path parameters (which arrive as text and are coerced).
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import secureJson from 'secure-json-parse';
import { AppError, type ErrorDetail } from '../errors.ts';

// ajv-formats ships CommonJS; its default export arrives wrapped under ESM.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** Fields the API sets itself; a body that sends them is told so by name. */
const READ_ONLY_FIELDS = new Set([
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

const acceptAll = (() => true) as unknown as ReturnType<FastifySchemaCompiler<unknown>>;

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  // A multipart body is documented by its schema but streamed and checked by its handler.
  if (httpPart === 'body' && (schema as Record<string, unknown>)['x-multipart'] === true) return acceptAll;
  return (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object) as ReturnType<
    FastifySchemaCompiler<unknown>
  >;
};

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

const hasNul = (v: unknown): boolean =>
  (typeof v === 'string' && v.includes('\u0000')) || (Array.isArray(v) && v.some((x) => hasNul(x)));

/** A lone UTF-16 surrogate (JSON's "\udfff") is not text: storing it would silently turn it into U+FFFD. */
const hasLoneSurrogate = (v: unknown): boolean =>
  (typeof v === 'string' && !v.isWellFormed()) || (Array.isArray(v) && v.some((x) => hasLoneSurrogate(x)));

function nulFields(values: unknown): ErrorDetail[] {
  if (typeof values !== 'object' || values === null) return [];
  return Object.entries(values as Record<string, unknown>).flatMap(([field, v]) => [
    ...(hasNul(v) ? [{ field, message: 'must not contain NUL characters' }] : []),
    ...(hasLoneSurrogate(v) ? [{ field, message: 'must be valid Unicode text (no unpaired surrogates)' }] : []),
  ]);
}

interface RouteSchemas {
  body?: unknown;
  querystring?: { properties?: Record<string, { type?: unknown }> };
}

const INTEGER_TEXT = /^-?[0-9]+$/;

/**
 * Runs before schema validation, on what the route declares:
 * - a route without a body schema takes no body: anything sent is refused, not ignored;
 * - strings are stored trimmed, so trimming first makes "   " an empty string for the schema;
 * - a NUL character is refused (PostgreSQL cannot store one, SQLite can: both must answer alike),
 *   and so is an unpaired surrogate (both would store U+FFFD instead: the caller would not get back
 *   what it sent);
 * - an integer query parameter must be written as one: coercion alone would take 0x14, 1e1, +5.
 */
export function checkInput(body: unknown, query: unknown, schema: RouteSchemas | undefined): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  if (schema?.body === undefined) {
    if (body !== undefined)
      details.push({ field: 'body', message: 'must be empty: this operation takes no request body' });
  } else {
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
      const record = body as Record<string, unknown>;
      for (const [k, v] of Object.entries(record)) {
        if (typeof v === 'string') record[k] = v.trim();
      }
    }
    details.push(...nulFields(body));
  }
  const declared = schema?.querystring?.properties;
  if (declared !== undefined && typeof query === 'object' && query !== null) {
    const raw = query as Record<string, unknown>;
    details.push(...nulFields(Object.fromEntries(Object.entries(raw).filter(([k]) => k in declared))));
    for (const [name, property] of Object.entries(declared)) {
      const value = raw[name];
      if (property.type === 'integer' && typeof value === 'string' && !INTEGER_TEXT.test(value)) {
        details.push({ field: name, message: 'must be an integer' });
      }
    }
  }
  return details;
}

/**
 * The JSON body parser. An empty body is "no body" (many clients send Content-Type:
 * application/json on every request, DELETE included); a route that needs one then answers
 * validation_error. __proto__ and constructor.prototype keys are refused, never merged.
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
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
