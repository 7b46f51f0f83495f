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

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;

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

function nulFields(values: unknown, prefix: string): ErrorDetail[] {
  if (typeof values !== 'object' || values === null) return [];
  return Object.entries(values as Record<string, unknown>)
    .filter(
      ([, v]) =>
        (typeof v === 'string' && v.includes('\u0000')) ||
        (Array.isArray(v) && v.some((x) => typeof x === 'string' && x.includes('\u0000'))),
    )
    .map(([field]) => ({ field: `${prefix}${field}`, message: 'must not contain NUL characters' }));
}

/**
 * Runs before schema validation. Strings are stored trimmed, so trimming first makes "   " an
 * empty string for the schema to refuse. A NUL character is refused in every body and query
 * string: PostgreSQL cannot store one and SQLite can, and the two must answer alike.
 */
export function normalizeInput(body: unknown, query: unknown): ErrorDetail[] {
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const record = body as Record<string, unknown>;
    for (const [k, v] of Object.entries(record)) {
      if (typeof v === 'string') record[k] = v.trim();
    }
  }
  return [...nulFields(body, ''), ...nulFields(query, '')];
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
