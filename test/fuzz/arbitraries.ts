// JSON Schema -> fast-check arbitraries, for what the API's schemas use: objects with required
// and additionalProperties, strings with min/maxLength, pattern and format (email, date-time,
// uri), enum and const, integers and numbers with bounds, booleans, null, type arrays and
// anyOf/oneOf for nullable fields, and arrays. `valid` aims inside the schema (edges included),
// `invalid` just outside it; the caller's oracle (Ajv on the same schema) has the last word.
import fc from 'fast-check';
import { READ_ONLY_FIELDS } from '../../src/http/validation.ts';

export type Schema = Record<string, unknown>;

const num = (schema: Schema, key: string): number | undefined =>
  typeof schema[key] === 'number' ? schema[key] : undefined;

/** Code points, as JSON Schema counts length (not UTF-16 units, not graphemes). */
export const codePoints = (s: string): number => Array.from(s).length;
const clip = (s: string, max: number): string => Array.from(s).slice(0, max).join('');

/** Odd but valid text: whitespace of every kind, RTL marks, combining marks, emoji, SQL and HTML bits. */
const ODD_TEXT = [
  ' ',
  '\t',
  '\u00a0',
  '\u2028',
  '\ufeff',
  '\u200b',
  '\u202e',
  'e\u0301\u0301\u0301',
  '👩‍👩‍👧‍👦',
  "'; drop table listings; --",
  '%_%',
  '\\',
  '<script>alert(1)</script>',
  '${x}',
  '../../etc/passwd',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  '\ud800',
  '\udfff',
];

/** Any text, in several alphabets, sometimes with odd pieces, at most `max` code points. */
export function text(min: number, max: number): fc.Arbitrary<string> {
  const cap = Math.min(max, 64);
  const pieces = fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: cap }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: cap }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: cap }) },
    { weight: 1, arbitrary: fc.constantFrom(...ODD_TEXT) },
  );
  const body = fc.array(pieces, { minLength: 1, maxLength: 3 }).map((parts) => parts.join(''));
  const atEdge = fc.constantFrom('a', 'Ω', '😀').map((c) => c.repeat(Math.max(min, max)));
  return fc.oneof({ weight: 9, arbitrary: body }, { weight: 1, arbitrary: atEdge }).map((s) => {
    const clipped = clip(s, max);
    return codePoints(clipped) >= min ? clipped : clipped + 'x'.repeat(min - codePoints(clipped));
  });
}

function stringArb(schema: Schema): fc.Arbitrary<string> {
  const min = num(schema, 'minLength') ?? 0;
  const max = num(schema, 'maxLength') ?? 1000;
  switch (schema.format) {
    case 'email':
      return fc.oneof(
        fc.emailAddress().filter((e) => e.length <= max),
        fc
          .tuple(fc.stringMatching(/^[a-z0-9._%+-]{1,20}$/), fc.stringMatching(/^[a-z0-9-]{1,20}\.[a-z]{2,6}$/))
          .map(([local, domain]) => `${local}@${domain}`)
          .filter((e) => /^[a-z0-9]/.test(e) && !e.includes('..')),
      );
    case 'date-time':
      // From tomorrow on: a time the API takes may have to be in the future (a link's expires_at);
      // a filter's time (created_since) takes any.
      return fc
        .date({ min: new Date(Date.now() + 86_400_000), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })
        .map((d) => d.toISOString());
    case 'uri':
      return fc.webUrl().filter((u) => u.length <= max);
    default:
      break;
  }
  const base = text(min, max);
  if (typeof schema.pattern === 'string') {
    const re = new RegExp(schema.pattern, 'u');
    // Most of the API's patterns exclude a few characters (line breaks): filtering keeps most
    // values. A pattern of a shape (an id, `none`) almost never matches free text, and a filter
    // would then spin for ever: such values are drawn from the pattern itself.
    const free = base.map((s) => s.replace(/[\r\n]/g, ' '));
    const kept = fc.sample(free, { numRuns: 50, seed: 1 }).filter((s) => re.test(s)).length;
    if (kept >= 5) return free.filter((s) => re.test(s));
    return fc.stringMatching(re).filter((s) => codePoints(s) >= min && codePoints(s) <= max);
  }
  return base;
}

function numberArb(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = num(schema, 'minimum') ?? -1e9;
  const max = num(schema, 'maximum') ?? 1e9;
  const lo = Math.max(min, -Number.MAX_SAFE_INTEGER);
  const hi = Math.min(max, Number.MAX_SAFE_INTEGER);
  const edges = fc.constantFrom(...[lo, hi, Math.ceil(lo), Math.floor(hi)].filter((n) => n >= min && n <= max));
  if (integer) return fc.oneof(fc.integer({ min: Math.ceil(lo), max: Math.floor(hi) }), edges.map(Math.round));
  return fc.oneof(
    fc.double({ min: lo, max: hi, noNaN: true, noDefaultInfinity: true }),
    fc.integer({ min: Math.ceil(lo), max: Math.floor(hi) }),
    edges,
  );
}

const typesOf = (schema: Schema): string[] | undefined =>
  Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : undefined;

/** Values the schema accepts (mostly: the oracle re-checks every one). */
export function valid(schema: Schema): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (union !== undefined) return fc.oneof(...union.map(valid));
  const types = typesOf(schema);
  if (types === undefined) return fc.jsonValue();
  if (types.length > 1) return fc.oneof(...types.map((type) => valid({ ...schema, type })));
  const [type = 'any'] = types;
  switch (type) {
    case 'string':
      return stringArb(schema);
    case 'integer':
      return numberArb(schema, true);
    case 'number':
      return numberArb(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = (schema.items ?? {}) as Schema;
      const maxItems = Math.min(num(schema, 'maxItems') ?? 5, 5);
      const bounds = { minLength: num(schema, 'minItems') ?? 0, maxLength: maxItems };
      if (schema.uniqueItems === true) {
        return fc.uniqueArray(valid(items), { ...bounds, selector: (v) => JSON.stringify(v) });
      }
      return fc.array(valid(items), bounds);
    }
    case 'object':
      return objectArb(schema);
    default:
      return fc.jsonValue();
  }
}

function objectArb(schema: Schema): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) model[name] = valid(property);
  const minProperties = num(schema, 'minProperties') ?? 0;
  return fc
    .record(model, { requiredKeys: [...required] })
    .filter((value) => Object.keys(value).length >= minProperties);
}

/** JSON values of every type: one of them is of the wrong type for any schema. */
const ANY_JSON = fc.constantFrom<unknown>(0, -1, 1.5, 1e308, '', '3', 'x', true, false, null, [], [1], {}, { a: 1 });

/** Values just outside the schema: wrong type, out of range, too long or short, off-pattern, off-format. */
export function invalid(schema: Schema): fc.Arbitrary<unknown> {
  const options: fc.Arbitrary<unknown>[] = [ANY_JSON];
  const types = typesOf(schema) ?? [];
  if (types.includes('string') || Array.isArray(schema.enum)) {
    const max = num(schema, 'maxLength');
    if (max !== undefined) {
      options.push(fc.integer({ min: 1, max: 20 }).map((extra) => 'y'.repeat(max + extra)));
      options.push(fc.constant('😀'.repeat(max + 1)));
    }
    const min = num(schema, 'minLength');
    if (min !== undefined && min > 0) options.push(fc.constantFrom('', '   ', '\t\n', '\u00a0'));
    if (typeof schema.pattern === 'string') options.push(fc.constantFrom('line\nbreak', 'carriage\rreturn'));
    if (schema.format === 'email') options.push(fc.constantFrom('not-an-email', 'a@', '@b.c', 'a b@c.d', 'a@b@c'));
    if (Array.isArray(schema.enum)) options.push(fc.constantFrom('DRAFT', 'unknown', ' draft', 'draft '));
    options.push(fc.constantFrom('nul\u0000inside', '\u0000'));
  }
  if (types.includes('integer') || types.includes('number')) {
    const min = num(schema, 'minimum');
    const max = num(schema, 'maximum');
    if (min !== undefined) options.push(fc.constantFrom(min - 1, min - 0.5, -1e308));
    if (max !== undefined && max < Number.MAX_VALUE) options.push(fc.constantFrom(max + 1, max * 2 + 1, 1e308));
    if (types.includes('integer')) options.push(fc.constantFrom(1.5, 0.1));
    options.push(fc.constantFrom('1', '0', 'NaN'));
  }
  return fc.oneof(...options);
}

/** A property name the schema does not know, sometimes a read-only one or a prototype trick. */
export const unknownField = fc.oneof(
  fc.constantFrom(...READ_ONLY_FIELDS, '__proto__', 'constructor', 'Address'),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
  fc.constant('k'.repeat(5000)),
);
