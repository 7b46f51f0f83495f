// Form bodies (application/x-www-form-urlencoded): the only bodies the dashboard scope parses.
// A name repeated in a body takes its first value; values are kept exactly as typed (a password
// must reach the service as it was entered).
export type FormBody = Readonly<Record<string, string>>;

/** The parser given to @fastify/formbody: a plain record with no prototype (no `__proto__` games). */
export function parseForm(body: string): FormBody {
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of new URLSearchParams(body)) {
    if (!(name in fields)) fields[name] = value;
  }
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

  /** The field as sent, or undefined when absent (a CSRF token must be present, not empty). */
  optional(name: string): string | undefined {
    return this.#fields[name];
  }
}

/** The request's form, or null when the request carried no form. */
export const formOf = (body: unknown): FormFields | null =>
  typeof body === 'object' && body !== null && !Array.isArray(body) ? new FormFields(body as FormBody) : null;
