// The protocol the front layers add to every operation, written into the OpenAPI document once
// rather than into each route: response headers (request id, rate limits, idempotency), the
// Idempotency-Key parameter of every POST (docs/api.md §9). The routes' own schemas stay about their
// resources.
import { keptForReplay, REFUSED_BEFORE_CLAIM } from './idempotency-policy.ts';

/** The parts of an OpenAPI 3.1 document this file reads and writes. */
interface Ref {
  $ref: string;
}
interface Header {
  description: string;
  required?: boolean;
  schema: Record<string, unknown>;
}
interface Parameter extends Header {
  name: string;
  in: 'header';
}
interface Operation {
  operationId?: string;
  deprecated?: boolean;
  requestBody?: { content?: Record<string, unknown> };
  security?: unknown[];
  parameters?: unknown[];
  responses?: Record<string, { headers?: Record<string, unknown> } | Ref>;
}
interface Document {
  components?: { headers?: Record<string, unknown>; parameters?: Record<string, unknown> };
  paths?: Record<string, Partial<Record<string, Operation>> | undefined>;
}
type HeaderRef = Ref;

const int32 = (minimum: number) => ({ type: 'integer', format: 'int32', minimum, maximum: 2_147_483_647 });

/** components.headers: every response header the service documents, once. */
const HEADERS: Record<string, Header> = {
  XRequestId: {
    description:
      'The request id: a caller-supplied `X-Request-Id` of at most 128 characters from `A-Za-z0-9._:-` is ' +
      'echoed, otherwise one is generated. It is in every log line and equals `error.request_id`.',
    required: true,
    schema: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:-]+$' },
  },
  RateLimitLimit: {
    description: 'Requests allowed in the current window (a minute): per API key, or per address without one.',
    required: true,
    schema: int32(1),
  },
  RateLimitRemaining: {
    description: 'Requests left in the current window.',
    required: true,
    schema: int32(0),
  },
  RateLimitReset: {
    description: 'Seconds until the current window resets.',
    required: true,
    schema: int32(0),
  },
  RateLimit: {
    description:
      'The same, as the IETF draft structured field (draft-ietf-httpapi-ratelimit-headers), e.g. ' +
      '`"default";r=598;t=42`: `r` requests remain, the window resets in `t` seconds.',
    required: true,
    schema: { type: 'string', maxLength: 256, pattern: '^[\\x20-\\x7E]+$' },
  },
  RateLimitPolicy: {
    description: 'The quota policy (IETF draft), e.g. `"default";q=600;w=60`: `q` requests per `w` seconds.',
    required: true,
    schema: { type: 'string', maxLength: 256, pattern: '^[\\x20-\\x7E]+$' },
  },
  RetryAfter: {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: int32(0),
  },
  RetryAfterInFlight: {
    description:
      'Sent (`1`) when the conflict is a request with the same Idempotency-Key still in progress: retry after it.',
    schema: int32(0),
  },
  IdempotentReplayed: {
    description:
      'Present (`true`) when this response is the replay of an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
  WwwAuthenticate: {
    description: 'How to authenticate: `Bearer`.',
    required: true,
    schema: { type: 'string', enum: ['Bearer'] },
  },
  ETag: {
    description:
      'The representation\'s entity tag (docs/api.md §17). JSON reads: weak, `W/"<account version>-<hash>"`, changed by ' +
      'every write that can change any field (counters and statuses included), on every node at once. Send it ' +
      'back in `If-None-Match` to get 304 while nothing changed. Stored bytes: strong.',
    required: true,
    schema: { type: 'string', minLength: 2, maxLength: 200, pattern: '^(W/)?"[\\x21\\x23-\\x7E]*"$' },
  },
  Location: {
    description: 'The path of the created resource, e.g. `/v1/listings/lst_...`.',
    required: true,
    schema: { type: 'string', format: 'uri-reference', maxLength: 100 },
  },
};

/** components.parameters: the Idempotency-Key header every POST takes; If-None-Match on reads. */
const PARAMETERS: Record<string, Parameter> = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      '1 to 255 printable ASCII characters (else 400 `validation_error`). The same key from the same account ' +
      'within 24 hours replays the first response, with `Idempotent-Replayed: true`; the same key with another ' +
      'method, path or JSON body, or while the first request is still running, is 409 `conflict`.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
  },
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description:
      'ETags from earlier responses (a comma-separated list, weak or strong, compared weakly), or `*`. When one ' +
      'matches the current `ETag`, the answer is 304 with no body (RFC 9110). Checked after every other check. ' +
      'A malformed value, or one over 8192 characters, is ignored (as if absent).',
    schema: { type: 'string', maxLength: 8192 },
  },
  IdempotencyKeyChecked: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Not needed: only POST runs idempotently. Checked all the same (docs/api.md §9): a key this account used ' +
      'within 24 hours is 409 `conflict` (the same key on a different method), an invalid one is 400 ' +
      '`validation_error`; an unused key is ignored and nothing is stored.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
  },
};

const ref = (name: keyof typeof HEADERS): HeaderRef => ({ $ref: `#/components/headers/${name}` });

const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': ref('RateLimitLimit'),
  'RateLimit-Remaining': ref('RateLimitRemaining'),
  'RateLimit-Reset': ref('RateLimitReset'),
  RateLimit: ref('RateLimit'),
  'RateLimit-Policy': ref('RateLimitPolicy'),
};

/** Creates that answer `Location` (an upload answers the list of what it created instead). */
const LOCATION_OPERATIONS = new Set(['createListing', 'createClient', 'createUpload', 'createWebhookEndpoint']);

// HEAD and OPTIONS appear only where a route declares them itself (the tus protocol's, docs/api.md §16).
const METHODS = ['get', 'head', 'options', 'put', 'post', 'delete', 'patch'] as const;

function headersFor(path: string, method: string, operation: Operation, status: string): Record<string, HeaderRef> {
  const v1 = path.startsWith('/v1/');
  const code = Number(status);
  const headers: Record<string, HeaderRef> = { 'X-Request-Id': ref('XRequestId') };
  // A 5xx may come before the limiter counted the request (shutting down, database down).
  if (v1 && code < 500) Object.assign(headers, RATE_LIMIT_HEADERS);
  if (code === 429) headers['Retry-After'] = ref('RetryAfter');
  if (code === 401) headers['WWW-Authenticate'] = ref('WwwAuthenticate');
  if (v1 && method === 'post') {
    // A replay repeats what a handler answered: never a refusal made before the key was claimed.
    const content = operation.requestBody?.content;
    const upload =
      content?.['multipart/form-data'] !== undefined || content?.['application/offset+octet-stream'] !== undefined;
    if (keptForReplay(code, upload) && !REFUSED_BEFORE_CLAIM.has(code)) {
      headers['Idempotent-Replayed'] = ref('IdempotentReplayed');
    }
    // The same key still in flight is 409 with Retry-After: 1; a mismatch has none.
    if (code === 409) headers['Retry-After'] = ref('RetryAfterInFlight');
  }
  if (code === 201 && LOCATION_OPERATIONS.has(operation.operationId ?? '')) headers.Location = ref('Location');
  // A read that answers 304 tags its representations (and the 304) with an ETag.
  if (
    method === 'get' &&
    operation.responses?.['304'] !== undefined &&
    (code === 200 || code === 206 || code === 304)
  ) {
    headers.ETag = ref('ETag');
  }
  return headers;
}

const declaresIfNoneMatch = (operation: Operation): boolean =>
  (operation.parameters ?? []).some(
    (p) =>
      typeof p === 'object' && p !== null && String((p as { name?: unknown }).name).toLowerCase() === 'if-none-match',
  );

/** The document with the front layers' headers and parameters on every operation. */
/** Inline, not in components: only deprecated operations have them, and today none is. */
const DEPRECATION_HEADERS: Record<string, Header> = {
  Deprecation: {
    description: 'RFC 9745: this operation is (or, with a future time, will be) deprecated since `@<Unix time>`.',
    required: true,
    schema: { type: 'string', pattern: '^@[0-9]+$' },
  },
  Sunset: {
    description: 'RFC 8594: the HTTP date from which the operation may stop answering (docs/api-stability.md).',
    required: false,
    schema: { type: 'string' },
  },
};

export function withProtocolHeaders<T extends object>(input: T): T {
  const doc = input as Document;
  doc.components = {
    ...doc.components,
    headers: { ...doc.components?.headers, ...HEADERS },
    parameters: { ...doc.components?.parameters, ...PARAMETERS },
  };
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item?.[method];
      if (operation === undefined) continue;
      if (path.startsWith('/v1/') && (method === 'post' || operation.security?.length !== 0)) {
        const name = method === 'post' ? 'IdempotencyKey' : 'IdempotencyKeyChecked';
        operation.parameters = [...(operation.parameters ?? []), { $ref: `#/components/parameters/${name}` }];
      }
      // Reads that answer 304 take If-None-Match (the stored-bytes routes declare their own).
      if (method === 'get' && operation.responses?.['304'] !== undefined && !declaresIfNoneMatch(operation)) {
        operation.parameters = [...(operation.parameters ?? []), { $ref: '#/components/parameters/IfNoneMatch' }];
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if ('$ref' in response) continue;
        response.headers = { ...response.headers, ...headersFor(path, method, operation, status) };
        // A deprecated route says so on every answer (src/http/deprecation.ts).
        if (operation.deprecated === true) response.headers = { ...response.headers, ...DEPRECATION_HEADERS };
      }
    }
  }
  return input;
}
