// Form bodies (application/x-www-form-urlencoded): the only bodies the dashboard scope parses.
// A name repeated in a body takes its first value (a list of ticked boxes is read with `all`);
// values are kept exactly as typed (a password must reach the service as it was entered).
import type { TObject } from '@sinclair/typebox';
import type { ErrorObject } from 'ajv';
import { AppError } from '../errors.ts';
import { bodySchemaErrors } from '../http/validation.ts';
import type { FieldErrors } from './views/layout.ts';

export type FormBody = Readonly<Record<string, string>>;

/** Every value of each name a parsed body repeats, by the body (read by FormFields.all). */
const repeated = new WeakMap<FormBody, ReadonlyMap<string, readonly string[]>>();

/** The parser given to @fastify/formbody: a plain record with no prototype (no `__proto__` games). */
export function parseForm(body: string): FormBody {
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  const all = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(body)) {
    if (!(name in fields)) fields[name] = value;
    const values = all.get(name);
    if (values === undefined) all.set(name, [value]);
    else values.push(value);
  }
  repeated.set(fields, all);
  return fields;
}

export class FormFields {
  readonly #fields: FormBody;

  constructor(fields: FormBody) {
    this.#fields = fields;
  }

  /** The field as sent, or '' when absent. */
  get(name: string): string {
    return this.#fields[name] ?? '';
  }

  /** Every value sent under the name, in order (ticked checkboxes that share it); [] when absent. */
  all(name: string): readonly string[] {
    const values = repeated.get(this.#fields)?.get(name);
    if (values !== undefined) return values;
    const one = this.#fields[name];
    return one === undefined ? [] : [one];
  }

  /** The field as sent, or undefined when absent (a CSRF token must be present, not empty). */
  optional(name: string): string | undefined {
    return this.#fields[name];
  }
}

/** The request's form, or null when the request carried no form. */
export const formOf = (body: unknown): FormFields | null =>
  typeof body === 'object' && body !== null && !Array.isArray(body) ? new FormFields(body as FormBody) : null;

/** A field's own words where the schema's keyword alone says too little ("Enter the address"). */
export interface FieldWords {
  /** Missing or empty where the schema asks for something. */
  empty?: string;
  /** Off the schema's pattern or format (given the value, for words that depend on it). */
  invalid?: string | ((value: unknown) => string);
  /** Not one of the schema's enum values. */
  choice?: string;
}

/** Which of a field's errors a person is told first: what is missing, then what is too long, ... */
const KEYWORD_ORDER = ['required', 'minLength', 'maxLength', 'type', 'minimum', 'maximum', 'enum', 'format', 'pattern'];
const rank = (keyword: string): number => {
  const i = KEYWORD_ORDER.indexOf(keyword);
  return i === -1 ? KEYWORD_ORDER.length : i;
};

const count = (n: number): string => n.toLocaleString('en-GB');

interface PropertySchema {
  minimum?: number;
  maximum?: number;
  format?: string;
}

function sentence(error: ErrorObject, property: PropertySchema | undefined, words: FieldWords, value: unknown): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return words.empty ?? 'Fill this in';
    case 'minLength':
      return params.limit === 1
        ? (words.empty ?? 'Fill this in')
        : `Use at least ${count(Number(params.limit))} characters`;
    case 'maxLength':
      return `Use at most ${count(Number(params.limit))} characters`;
    case 'enum':
      return words.choice ?? 'Choose one of the options';
    case 'type':
    case 'minimum':
    case 'maximum':
      if (property?.minimum !== undefined && property.maximum !== undefined) {
        return `Enter a number from ${count(property.minimum)} to ${count(property.maximum)}`;
      }
      if (property?.minimum !== undefined) return `Enter a whole number from ${count(property.minimum)}`;
      return 'Enter a number';
    case 'format':
    case 'pattern': {
      const invalid = typeof words.invalid === 'function' ? words.invalid(value) : words.invalid;
      if (invalid !== undefined) return invalid;
      if (error.keyword === 'format' && params.format === 'email')
        return 'Enter an email address like name@example.com';
      return error.keyword === 'pattern' ? 'Remove the control characters' : 'Check this value';
    }
    default:
      return 'Check this value';
  }
}

/**
 * A form's values checked against the /v1 route's body schema (the same compiled Ajv), as the
 * field messages a page shows: one per field, in a person's words. `value` holds the fields as
 * the API would take them (text trimmed, '' as null where the API takes null, numbers parsed; a
 * number that did not parse is passed as its text, so the schema refuses it as it would in JSON).
 */
export function schemaFieldErrors(
  schema: TObject,
  value: Readonly<Record<string, unknown>>,
  words: Readonly<Record<string, FieldWords>> = {},
): FieldErrors {
  const errors = [...bodySchemaErrors(schema, value)].sort((a, b) => rank(a.keyword) - rank(b.keyword));
  const properties = schema.properties as Record<string, PropertySchema | undefined>;
  const out: FieldErrors = {};
  for (const error of errors) {
    const field =
      error.keyword === 'required'
        ? (error.params as { missingProperty: string }).missingProperty
        : error.instancePath.split('/')[1];
    // Errors about the whole object (minProperties) or unknown fields are the caller's to avoid.
    if (field === undefined || field === '' || out[field] !== undefined || !Object.hasOwn(properties, field)) continue;
    out[field] = sentence(error, properties[field], words[field] ?? {}, value[field]);
  }
  return out;
}

export const hasErrors = (errors: FieldErrors): boolean => Object.keys(errors).length > 0;

interface LengthSchema {
  maxLength?: number;
  minLength?: number;
  anyOf?: LengthSchema[];
}

/** The string among a field's schemas (a nullable field is a union with null). */
function textSchemaOf(schema: TObject, field: string): LengthSchema {
  const property = (schema.properties as Record<string, LengthSchema | undefined>)[field];
  const text = property?.maxLength === undefined ? property?.anyOf?.find((s) => s.maxLength !== undefined) : property;
  if (text?.maxLength === undefined) throw new Error(`${field}: no maxLength in ${String(schema.title)}`);
  return text;
}

/**
 * A text field's most characters, read from its schema: for a form's `maxlength` and the words
 * that state a limit, so the number is written once, in the schema.
 */
export const maxLengthOf = (schema: TObject, field: string): number => textSchemaOf(schema, field).maxLength ?? 0;

/** A text field's fewest characters (0 when the schema sets none). */
export const minLengthOf = (schema: TObject, field: string): number => textSchemaOf(schema, field).minLength ?? 0;

/** The preHandler has already refused anything but a form on POST routes. */
export function formFields(body: unknown): FormFields {
  const form = formOf(body);
  if (form === null) throw new AppError('unsupported_media_type', 'Send a form');
  return form;
}

/** Service validation errors, by field, for a form that re-renders itself. */
export function fieldErrors(err: unknown, rename: Record<string, string> = {}): FieldErrors | null {
  if (!(err instanceof AppError) || err.code !== 'validation_error') return null;
  const errors: FieldErrors = {};
  for (const d of err.details ?? []) errors[rename[d.field] ?? d.field] = d.message;
  return errors;
}
