// One table from error code to HTTP status: every error the API answers with goes through it.

export const ERROR_STATUS = {
  validation_error: 400,
  invalid_json: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  /** A tus request without a supported Tus-Resumable (docs/api.md §16). */
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  /** Media from a URL (docs/api.md §21): the fetch failed (no answer, a non-2xx status, a cut, a stall). */
  fetch_failed: 422,
  range_not_satisfiable: 416,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  field: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  /** Extra response headers (Allow, WWW-Authenticate, Retry-After). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message: string,
    details?: ErrorDetail[],
    headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const notFound = (what = 'Resource'): AppError => new AppError('not_found', `${what} not found`);

export const validationError = (field: string, message: string): AppError =>
  new AppError('validation_error', `${field} ${message}`, [{ field, message }]);
