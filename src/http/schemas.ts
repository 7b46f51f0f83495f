// Schema building blocks shared by every route. Each route's own schemas live beside it
// in src/modules/<feature>/<feature>.schemas.ts.
import { Type, type TSchema, type Static } from '@sinclair/typebox';
import { ERROR_STATUS, type ErrorCode } from '../errors.ts';
import { MAX_CURSOR_LENGTH } from '../lib/cursor.ts';
import { COUNT_CAP, DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from '../lib/pagination.ts';

/** A string field of a closed set, as a plain JSON Schema enum (clear errors, clean OpenAPI). */
export const StringEnum = <const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/**
 * Text as the API takes it: no NUL (PostgreSQL cannot store one) and no unpaired surrogate (it
 * would be stored as U+FFFD). src/http/validation.ts refuses both first, with a clearer message;
 * the pattern says so in the document.
 */
const TEXT_PATTERN = '^[^\\x00\\uD800-\\uDFFF]*$';

/** Input text: at most `maxLength` characters, see TEXT_PATTERN. */
export const TextInput = (options: { maxLength: number; minLength?: number; description?: string }) =>
  Type.String({ pattern: TEXT_PATTERN, ...options });

export const NullableString = (options: { maxLength: number; minLength?: number; description?: string }) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], pattern: TEXT_PATTERN, ...options });

export const NullableNumber = (options: { minimum: number; maximum: number; description?: string }) =>
  Type.Unsafe<number | null>({ type: ['number', 'null'], ...options });

/** ISO 8601 UTC with milliseconds, `2026-11-22T10:15:30.123Z`: 24 characters. */
const TIMESTAMP = { format: 'date-time', maxLength: 24 } as const;

export const Timestamp = (description?: string) =>
  Type.String({ ...TIMESTAMP, ...(description === undefined ? {} : { description }) });

export const NullableTimestamp = (description?: string) =>
  Type.Unsafe<string | null>({
    type: ['string', 'null'],
    ...TIMESTAMP,
    ...(description === undefined ? {} : { description }),
  });

/**
 * Largest values the int32 and int64 formats are given. int64's is 2^53 - 1 (Number.MAX_SAFE_INTEGER),
 * not 2^63 - 1: a JSON number is read as an IEEE-754 double by JavaScript and by most JSON parsers,
 * which keeps every integer exactly only up to 2^53 - 1. Past it, neighbours merge (9007199254740993
 * reads as ...992), so the service could not even tell which value was sent, let alone echo it back.
 */
export const INT32_MAX = 2_147_483_647;
const INT64_MAX = Number.MAX_SAFE_INTEGER;

/** A count or size that fits in 32 bits (positions, pixels, attempts). */
export const Int32 = (options: { minimum: number; maximum?: number; description?: string }) =>
  Type.Integer({ format: 'int32', maximum: INT32_MAX, ...options });

/** A count or size that may need 64 bits (bytes, totals). */
export const Int64 = (options: { minimum: number; maximum?: number; description?: string }) =>
  Type.Integer({ format: 'int64', maximum: INT64_MAX, ...options });

/** A response string that may be null. */
export const NullableText = (maxLength: number, description?: string) =>
  Type.Union([Type.String({ maxLength }), Type.Null()], description === undefined ? {} : { description });

/**
 * A resource id in a response: its prefix and an opaque URL-safe string, at most 40 characters
 * in all (docs/api.md §1). The pattern documents the shape; clients must still not parse it.
 */
export const Id = (prefix: string, description?: string) =>
  Type.String({
    maxLength: 40,
    pattern: `^${prefix}_[0-9A-Za-z_-]+$`,
    ...(description === undefined ? {} : { description }),
  });

export const NullableId = (prefix: string, description?: string) =>
  Type.Union(
    [Type.String({ maxLength: 40, pattern: `^${prefix}_[0-9A-Za-z_-]+$` }), Type.Null()],
    description === undefined ? {} : { description },
  );

/** Path parameter: any string; an id of the wrong shape is simply not found (404). */
export const IdParam = (description: string) => Type.String({ description, maxLength: 1024 });

/**
 * Bounds of an error body. Messages and details can quote what the caller sent (an unknown
 * field's name, a file name), so they are clipped to these when sent (src/http/error-handler.ts).
 */
export const ERROR_LIMITS = { message: 1000, details: 100, field: 300, detailMessage: 1000 } as const;

export const ErrorBody = Type.Object(
  {
    error: Type.Object(
      {
        code: StringEnum(Object.keys(ERROR_STATUS) as ErrorCode[], {
          description: 'Machine-readable code, e.g. `validation_error`.',
        }),
        message: Type.String({ maxLength: ERROR_LIMITS.message, description: 'Human-readable text.' }),
        details: Type.Optional(
          Type.Array(
            Type.Object(
              {
                field: Type.String({
                  maxLength: ERROR_LIMITS.field,
                  description: 'Dotted path of the field or query parameter.',
                }),
                message: Type.String({ maxLength: ERROR_LIMITS.detailMessage }),
              },
              { additionalProperties: false },
            ),
            { maxItems: ERROR_LIMITS.details, description: 'One entry per refused field (validation errors).' },
          ),
        ),
        request_id: Type.String({
          maxLength: 128,
          pattern: '^[A-Za-z0-9._:-]+$',
          description: 'Equals the X-Request-Id response header.',
        }),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'Error', title: 'Error', additionalProperties: false },
);
export type ErrorBodyType = Static<typeof ErrorBody>;

/** An error response of the one error body, saying what it means for the operation. */
export const ErrorAnswer = (description: string) => Type.Unsafe<ErrorBodyType>(Type.Ref('Error', { description }));

/**
 * What each error status means on any operation. The OpenAPI transform (openapi.ts) names the
 * resource in a 404 from the path; a route with a meaning of its own (a duplicate email's 409)
 * declares its own ErrorAnswer.
 */
export const ERROR_DESCRIPTIONS = {
  400:
    'The request is invalid (`validation_error`, each refused field or parameter in `details`: unknown body ' +
    'fields and query parameters the operation does not declare are refused too), or its body is not JSON ' +
    '(`invalid_json`).',
  401: 'Missing, malformed, unknown, revoked or expired API key (`unauthorized`).',
  403: 'The key is read-only and the operation writes (`forbidden`).',
  404: 'No such resource in this account (`not_found`).',
  408: 'The request body stalled, or did not arrive whole in time (`request_timeout`); the connection is closed.',
  409:
    'Conflict (`conflict`): the Idempotency-Key was used for a different request, or that request is ' +
    'still running.',
  413: 'Request body too large (`payload_too_large`).',
  415: 'Wrong request content type (`unsupported_media_type`).',
  422: 'The file at the URL could not be fetched (`fetch_failed`); the message says why. Nothing is kept.',
  429:
    'Over the rate limit, or too many requests in progress at once for the key or the client address ' +
    '(`rate_limited`); `Retry-After` says when to try again.',
  503: 'Shutting down or database unreachable (`unavailable`).',
} as const;

export type ErrorStatus = keyof typeof ERROR_DESCRIPTIONS;

/** Documented error responses for a route, all with the one error body. */
export function errorResponses(...statuses: ErrorStatus[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const status of [...statuses, 503 as const]) {
    out[status] = ErrorAnswer(ERROR_DESCRIPTIONS[status]);
  }
  out[500] = ErrorAnswer('Unexpected fault (`internal_error`); details are never revealed.');
  return out;
}

/** Errors every authenticated read can answer with. */
export const READ_ERRORS: ErrorStatus[] = [400, 401, 404];
/** Errors every authenticated JSON write can answer with. */
export const WRITE_ERRORS: ErrorStatus[] = [400, 401, 403, 404, 413, 415];

/**
 * Any page past the end is valid (200, no data) up to the largest exact integer (INT64_MAX): a
 * larger page number could not be told apart from its neighbours, nor echoed back as sent (400).
 */
const PAGE_NUMBER_MAX = INT64_MAX;

const TOTAL = Int64({
  minimum: 0,
  description:
    'Number of items matching the filters, over all pages; on galleries filtered by `client_id`, `mls_number`, ' +
    `\`search\`, \`created_since\` or \`updated_since\`, at most ${COUNT_CAP} (see \`total_exact\`).`,
});

const TOTAL_EXACT = Type.Boolean({
  description:
    `False when more items match than were counted: \`total\` is then ${COUNT_CAP}, a lower bound. Only galleries ` +
    'filtered by `client_id`, `mls_number`, `search`, `created_since` or `updated_since` stop counting there.',
});

const NEXT_CURSOR = Type.Union([Type.String({ maxLength: MAX_CURSOR_LENGTH }), Type.Null()], {
  description:
    'Pass as `cursor` (with the same filters and `sort`) for the page after this one; null when no item ' +
    'follows. A walk by cursor returns every item that exists for the whole walk, and whose sort field does ' +
    'not change meanwhile, exactly once.',
});

/** Where a page of a paged list stands. */
const Pagination = Type.Object(
  {
    page: Type.Unsafe<number | null>({
      type: ['integer', 'null'],
      format: 'int64',
      minimum: 1,
      maximum: PAGE_NUMBER_MAX,
      description: 'This page, from 1; null when the page was reached by `cursor`.',
    }),
    limit: Int32({ minimum: 1, maximum: MAX_PAGE_LIMIT, description: 'Items per page, as asked (default 20).' }),
    total: TOTAL,
    total_exact: TOTAL_EXACT,
    next_cursor: NEXT_CURSOR,
  },
  { title: 'Pagination', additionalProperties: false },
);

/** An unpaged list is one page holding every item: `{page: 1, limit: n, total: n}`. */
const WholeListPagination = Type.Object(
  {
    page: Int32({ minimum: 1, maximum: 1, description: 'Always 1: the whole list is one page.' }),
    limit: Int32({ minimum: 0, description: 'The number of items: all of them.' }),
    total: TOTAL,
    total_exact: Type.Literal(true, { description: 'Always true: the whole list is counted.' }),
    next_cursor: Type.Null({ description: 'Always null: nothing follows the whole list.' }),
  },
  { title: 'WholeListPagination', additionalProperties: false },
);

export const PageQuery = {
  page: Type.Optional(
    Type.Integer({
      format: 'int64',
      minimum: 1,
      maximum: PAGE_NUMBER_MAX,
      description:
        `Page number, from 1 to ${PAGE_NUMBER_MAX} (2^53 - 1), default 1. A page past the end answers an empty ` +
        '`data`. Not with `cursor`.',
    }),
  ),
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_CURSOR_LENGTH,
      description:
        'The `next_cursor` of the previous page of this list, with the same filters and `sort`: the page after ' +
        'it, at the same cost at any depth. Not with `page`; a cursor of another list, filter set, sort or ' +
        'account, or a changed one, is 400.',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      format: 'int32',
      minimum: 1,
      maximum: MAX_PAGE_LIMIT,
      default: DEFAULT_PAGE_LIMIT,
      description: `Items per page, 1 to ${MAX_PAGE_LIMIT}.`,
    }),
  ),
};

/** A page of a paged list (page, limit). */
export const ListOf = <T extends TSchema>(item: T, title: string) =>
  Type.Object(
    { data: Type.Array(item, { maxItems: MAX_PAGE_LIMIT }), pagination: Pagination },
    { title, additionalProperties: false },
  );

/** A whole list, unpaged: `pagination` is `{page: 1, limit: n, total: n}`. */
export const WholeListOf = <T extends TSchema>(item: T, title: string) =>
  Type.Object(
    { data: Type.Array(item, { maxItems: INT32_MAX }), pagination: WholeListPagination },
    { title, additionalProperties: false },
  );

/**
 * A success response: its body's schema and what it means for this operation, e.g. "The gallery".
 * The text becomes the response's description in the OpenAPI document (@fastify/swagger reads
 * `x-response-description` and leaves the body's schema as it is, so a named schema stays one).
 */
export const Answer = <T extends TSchema>(schema: T, description: string): T => ({
  ...schema,
  'x-response-description': description,
});

/** A 204 (or other bodiless) response, saying what was done: "No content: the gallery is deleted". */
export const NoContent = (description: string) => Type.Null({ description });

/** `created_since`, `updated_since` (docs/api.md §19): an ISO 8601 timestamp with a time zone. */
export const SinceQuery = (field: string) =>
  Type.Optional(
    Type.String({
      format: 'date-time',
      maxLength: 40,
      description: `Only items whose \`${field}\` is at or after this ISO 8601 timestamp (with a time zone: \`Z\` or an offset).`,
    }),
  );

/** `sort` on galleries and clients (docs/api.md §19): ties broken by `id` in the same direction. */
const LIST_SORTS = ['-created_at', 'created_at', '-updated_at', 'updated_at'] as const;
export const SortQuery = Type.Optional(
  StringEnum(LIST_SORTS, {
    description:
      'Order: `-created_at` (default, newest first), `created_at`, `-updated_at`, `updated_at`; ties by `id` in ' +
      'the same direction.',
  }),
);

/** A list answered whole without paging parameters, else by page or cursor (a client's galleries). */
export const PagedOrWholeListOf = <T extends TSchema>(item: T, title: string) =>
  Type.Object(
    {
      data: Type.Array(item, { maxItems: INT32_MAX }),
      pagination: Type.Union([Pagination, WholeListPagination], {
        description: 'Without `page`, `limit` and `cursor`: the whole list as one page (`next_cursor` null).',
      }),
    },
    { title, additionalProperties: false },
  );
