// Schema building blocks shared by every route. Each route's own schemas live beside it
// in src/modules/<feature>/<feature>.schemas.ts.
import { Type, type TSchema, type Static } from '@sinclair/typebox';

/** A string field of a closed set, as a plain JSON Schema enum (clear errors, clean OpenAPI). */
export const StringEnum = <const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

export const NullableString = (options: {
  maxLength: number;
  minLength?: number;
  format?: string;
  description?: string;
}) => Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });

export const NullableNumber = (options: { minimum: number; maximum: number; description?: string }) =>
  Type.Unsafe<number | null>({ type: ['number', 'null'], ...options });

export const Timestamp = (description?: string) =>
  Type.String({ format: 'date-time', ...(description === undefined ? {} : { description }) });

export const NullableTimestamp = (description?: string) =>
  Type.Unsafe<string | null>({
    type: ['string', 'null'],
    format: 'date-time',
    ...(description === undefined ? {} : { description }),
  });

/** Path parameter: any string; an id of the wrong shape is simply not found (404). */
export const IdParam = (description: string) => Type.String({ description, maxLength: 1024 });

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Machine-readable code, e.g. `validation_error`.' }),
      message: Type.String({ description: 'Human-readable text.' }),
      details: Type.Optional(
        Type.Array(
          Type.Object({
            field: Type.String({ description: 'Dotted path of the field or query parameter.' }),
            message: Type.String(),
          }),
        ),
      ),
      request_id: Type.String({ description: 'Equals the X-Request-Id response header.' }),
    }),
  },
  { $id: 'Error', title: 'Error' },
);
export type ErrorBodyType = Static<typeof ErrorBody>;

const errorRef = (description: string) => Type.Unsafe<ErrorBodyType>(Type.Ref('Error', { description }));

const ERROR_DESCRIPTIONS = {
  400: 'Validation error or malformed JSON (`validation_error`, `invalid_json`).',
  401: 'Missing, malformed, unknown, revoked or expired API key (`unauthorized`).',
  403: 'The key is read-only and the operation writes (`forbidden`).',
  404: 'No such resource in this account (`not_found`).',
  409: 'Conflict with existing data (`conflict`).',
  413: 'Request body too large (`payload_too_large`).',
  415: 'Wrong request content type (`unsupported_media_type`).',
  503: 'Shutting down or database unreachable (`unavailable`).',
} as const;

export type ErrorStatus = keyof typeof ERROR_DESCRIPTIONS;

/** Documented error responses for a route, all with the one error body. */
export function errorResponses(...statuses: ErrorStatus[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const status of [...statuses, 503 as const]) {
    out[status] = errorRef(ERROR_DESCRIPTIONS[status]);
  }
  out[500] = errorRef('Unexpected fault (`internal_error`); details are never revealed.');
  return out;
}

/** Errors every authenticated read can answer with. */
export const READ_ERRORS: ErrorStatus[] = [400, 401, 404];
/** Errors every authenticated JSON write can answer with. */
export const WRITE_ERRORS: ErrorStatus[] = [400, 401, 403, 404, 413, 415];

export const Pagination = Type.Object(
  {
    page: Type.Integer({ minimum: 1 }),
    limit: Type.Integer({ minimum: 0 }),
    total: Type.Integer({ minimum: 0, description: 'Number of items matching the filters, over all pages.' }),
  },
  { title: 'Pagination' },
);

export const PageQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1, description: 'Page number, from 1.' })),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Items per page, 1 to 100.' }),
  ),
};

export const ListOf = <T extends TSchema>(item: T, title: string) =>
  Type.Object({ data: Type.Array(item), pagination: Pagination }, { title });

export const NoContent = Type.Null({ description: 'No content.' });
