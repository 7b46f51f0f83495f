// Every error the client throws is a LightboxError. An error answer of the API becomes the subclass
// of its `error.code` (NotFoundError for `not_found`, ...), keeping the server's message, details
// and request id; a code this version does not know stays a plain LightboxError with that code.
// Failures before any answer are ConnectionError and TimeoutError. A caller's own AbortSignal is
// not wrapped: the signal's reason is thrown, as fetch does.
import type { ErrorCode, ErrorDetail } from './types.ts';

export interface LightboxErrorInit {
  status: number | null;
  code: string;
  message: string;
  details?: ErrorDetail[];
  requestId?: string | null;
  headers?: Headers | null;
  cause?: unknown;
}

export class LightboxError extends Error {
  override name = 'LightboxError';
  /** The HTTP status, or null when no answer came (connection errors, timeouts). */
  readonly status: number | null;
  /** The API's `error.code` (see ErrorCode), or `connection_error`, `timeout`, `webhook_verification_failed`. */
  readonly code: ErrorCode | (string & {});
  /** One entry per refused field on validation errors; empty otherwise. */
  readonly details: ErrorDetail[];
  /** The answer's `X-Request-Id` (`error.request_id`). */
  readonly requestId: string | null;
  readonly headers: Headers | null;

  constructor(init: LightboxErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.requestId = init.requestId ?? null;
    this.headers = init.headers ?? null;
  }
}

/** 400 `validation_error` or `invalid_json`: `details` names each refused field. */
export class ValidationError extends LightboxError {
  override name = 'ValidationError';
}
/** 401 `unauthorized`: the API key is missing, unknown, revoked or expired. */
export class AuthenticationError extends LightboxError {
  override name = 'AuthenticationError';
}
/** 403 `forbidden`: the key's scope does not allow this (a read-only key on a write). */
export class PermissionError extends LightboxError {
  override name = 'PermissionError';
}
/** 404 `not_found`: no such resource in this account. */
export class NotFoundError extends LightboxError {
  override name = 'NotFoundError';
}
/** 405 `method_not_allowed`. */
export class MethodNotAllowedError extends LightboxError {
  override name = 'MethodNotAllowedError';
}
/** 408 `request_timeout`: the server gave up waiting for the request's body. */
export class RequestTimeoutError extends LightboxError {
  override name = 'RequestTimeoutError';
}
/** 409 `conflict`: a duplicate email, an Idempotency-Key reused or still running, a tus offset. */
export class ConflictError extends LightboxError {
  override name = 'ConflictError';
}
/** 412 `precondition_failed`. */
export class PreconditionFailedError extends LightboxError {
  override name = 'PreconditionFailedError';
}
/** 413 `payload_too_large`. */
export class PayloadTooLargeError extends LightboxError {
  override name = 'PayloadTooLargeError';
}
/** 415 `unsupported_media_type`: a file that is not a photo, video or document, or a wrong content type. */
export class UnsupportedMediaTypeError extends LightboxError {
  override name = 'UnsupportedMediaTypeError';
}
/** 422 `fetch_failed`: media from a URL whose fetch failed (no answer, a non-2xx, a cut, a stall). */
export class FetchFailedError extends LightboxError {
  override name = 'FetchFailedError';
}
/** 416 `range_not_satisfiable`. */
export class RangeNotSatisfiableError extends LightboxError {
  override name = 'RangeNotSatisfiableError';
}
/** 429 `rate_limited`, after the retries: `retryAfter` is the server's wait in seconds. */
export class RateLimitError extends LightboxError {
  override name = 'RateLimitError';
  get retryAfter(): number | null {
    return retryAfterSeconds(this.headers);
  }
}
/** 500 `internal_error` (the message never reveals internals). */
export class InternalServerError extends LightboxError {
  override name = 'InternalServerError';
}
/** 503 `unavailable`: shutting down, or the database is unreachable. */
export class ServiceUnavailableError extends LightboxError {
  override name = 'ServiceUnavailableError';
}
/** No answer: the connection was refused, reset or cut. */
export class ConnectionError extends LightboxError {
  override name = 'ConnectionError';
}
/** No answer within the request's `timeout`. */
export class TimeoutError extends LightboxError {
  override name = 'TimeoutError';
}
/** `webhooks.verify` refused a payload: a wrong signature, secret or timestamp. */
export class WebhookVerificationError extends LightboxError {
  override name = 'WebhookVerificationError';
}

type ErrorClass = new (init: LightboxErrorInit) => LightboxError;

// Keyed by string, not ErrorCode: a code the API adds must not break this table's compilation.
const BY_CODE: Record<string, ErrorClass | undefined> = {
  validation_error: ValidationError,
  invalid_json: ValidationError,
  unauthorized: AuthenticationError,
  forbidden: PermissionError,
  not_found: NotFoundError,
  method_not_allowed: MethodNotAllowedError,
  request_timeout: RequestTimeoutError,
  conflict: ConflictError,
  payload_too_large: PayloadTooLargeError,
  unsupported_media_type: UnsupportedMediaTypeError,
  range_not_satisfiable: RangeNotSatisfiableError,
  fetch_failed: FetchFailedError,
  precondition_failed: PreconditionFailedError,
  rate_limited: RateLimitError,
  headers_too_large: ValidationError,
  internal_error: InternalServerError,
  unavailable: ServiceUnavailableError,
};

// Codes the API may add later, and bodies that are not the API's (a proxy's 502), by status.
const BY_STATUS: Record<number, ErrorClass> = {
  400: ValidationError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  405: MethodNotAllowedError,
  422: FetchFailedError,
  408: RequestTimeoutError,
  409: ConflictError,
  412: PreconditionFailedError,
  413: PayloadTooLargeError,
  415: UnsupportedMediaTypeError,
  416: RangeNotSatisfiableError,
  429: RateLimitError,
  500: InternalServerError,
  503: ServiceUnavailableError,
};

function errorClass(code: string, status: number): ErrorClass {
  return (Object.hasOwn(BY_CODE, code) ? BY_CODE[code] : undefined) ?? BY_STATUS[status] ?? LightboxError;
}

interface ErrorBody {
  error?: { code?: unknown; message?: unknown; details?: unknown; request_id?: unknown };
}

/** The error for an answer of status >= 400, from its body (`text`, which may not be JSON). */
export function errorFromResponse(status: number, headers: Headers, text: string): LightboxError {
  let body: ErrorBody | null;
  try {
    body = JSON.parse(text) as ErrorBody;
  } catch {
    body = null;
  }
  const e = body !== null && typeof body === 'object' ? body.error : undefined;
  const code = typeof e?.code === 'string' ? e.code : `http_${status}`;
  const message =
    typeof e?.message === 'string' && e.message.length > 0
      ? e.message
      : `HTTP ${status}${text.length > 0 ? `: ${text.slice(0, 200)}` : ''}`;
  const requestId = typeof e?.request_id === 'string' ? e.request_id : headers.get('x-request-id');
  const details = Array.isArray(e?.details) ? (e.details as ErrorDetail[]) : [];
  const Class = errorClass(code, status);
  return new Class({ status, code, message, details, requestId, headers });
}

/** `Retry-After` in seconds (delta-seconds or an HTTP date), or null. */
export function retryAfterSeconds(headers: Headers | null): number | null {
  const value = headers?.get('retry-after');
  if (value === null || value === undefined || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, (at - Date.now()) / 1000);
}
