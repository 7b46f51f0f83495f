// Form bodies (application/x-www-form-urlencoded) as an object with no enumerable fields of its
// own: the app-wide input hook (src/http/validation.ts) trims the strings of JSON bodies, and a
// password must reach the service exactly as typed. Names repeated in a body take the first value.
export class FormFields {
  readonly #params: URLSearchParams;

  constructor(body: string) {
    this.#params = new URLSearchParams(body);
  }

  /** The field as sent, or '' when absent. */
  get(name: string): string {
    return this.#params.get(name) ?? '';
  }

  /** The field as sent, or undefined when absent (a CSRF token must be present, not empty). */
  optional(name: string): string | undefined {
    return this.#params.get(name) ?? undefined;
  }
}

/** The parser @fastify/formbody is given (its type says a record; the hook needs no more). */
export const parseForm = (body: string): Record<string, unknown> => new FormFields(body) as never;

/** The request's form, or null when the body was something else (JSON, or nothing). */
export const formOf = (body: unknown): FormFields | null => (body instanceof FormFields ? body : null);
