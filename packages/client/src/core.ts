// The HTTP engine under every resource: one `fetch` per attempt, a timeout per attempt, the
// caller's AbortSignal, typed errors, and bounded retries. Retried: network failures, timeouts,
// 429 and 503 (after `Retry-After` when sent) and other 5xx (exponential backoff with jitter). A POST
// is retried only with an Idempotency-Key, so one is generated when the caller gives none; every
// other method of this API is idempotent. A body that can only be read once (a stream) is never
// retried. Runs wherever fetch does: no Node-only import here.
import { ConnectionError, TimeoutError, errorFromResponse, retryAfterSeconds } from './errors.ts';
import type { ResponseInfo, WithResponse } from './types.ts';

export interface ClientOptions {
  /** An API key (`lbx_...`), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Where the API is served, e.g. `https://lightbox.example.com` (no `/v1`). */
  baseUrl: string;
  /** Retries after the first attempt (default 2; 0 turns them off). */
  maxRetries?: number;
  /** Milliseconds each attempt may take before a TimeoutError (default 60,000). */
  timeout?: number;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

/** Options every call takes as its last argument. */
export interface RequestOptions {
  signal?: AbortSignal;
  /** Overrides the client's `timeout` for this call (milliseconds per attempt). */
  timeout?: number;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
  /** For POSTs: the Idempotency-Key (one is generated when absent). */
  idempotencyKey?: string;
  headers?: Record<string, string>;
}

/** GET options: `ifNoneMatch` makes the call conditional (docs/api.md §17). */
export interface GetOptions extends RequestOptions {
  /** An ETag from an earlier `lastResponse.etag`: an unchanged resource answers NotModified. */
  ifNoneMatch?: string;
}

/** What a conditional GET gives when the resource has not changed since `ifNoneMatch` (304). */
export class NotModified {
  readonly notModified = true as const;
  readonly etag: string | null;
  readonly lastResponse: ResponseInfo;
  constructor(etag: string | null, lastResponse: ResponseInfo) {
    this.etag = etag;
    this.lastResponse = lastResponse;
  }
}

/**
 * The result of a GET: NotModified is possible only when `ifNoneMatch` may have been given. Only
 * options whose `ifNoneMatch` is surely absent (none, or typed `undefined`) rule it out, so options
 * typed as `GetOptions` (where it is optional) keep NotModified in the result.
 */
export type Conditional<O, T> = O extends unknown
  ? 'ifNoneMatch' extends keyof O
    ? O extends { ifNoneMatch?: infer V }
      ? [V] extends [undefined]
        ? WithResponse<T>
        : WithResponse<T> | NotModified
      : WithResponse<T>
    : WithResponse<T>
  : never;

export function isNotModified(value: unknown): value is NotModified {
  return value instanceof NotModified;
}

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface RawRequest {
  method: 'GET' | 'HEAD' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  query?: Query | undefined;
  /** JSON to send. */
  json?: unknown;
  /** Any other body; a ReadableStream is sent with `duplex: 'half'` and never retried. */
  body?: RequestInit['body'] | undefined;
  headers?: Record<string, string>;
  options?: RequestOptions | undefined;
  /** Statuses that are answers, not errors (e.g. 304 for conditional GETs). */
  accept?: number[];
}

const DEFAULT_TIMEOUT = 60_000;
const DEFAULT_RETRIES = 2;
/** A `Retry-After` longer than this is not waited for: the error is thrown (with `retryAfter`). */
const MAX_RETRY_AFTER_SECONDS = 60;

export class HttpClient {
  readonly baseUrl: string;
  /** Private (#): never shown by util.inspect, JSON.stringify or a debugger's property list. */
  readonly #apiKey: string;
  readonly maxRetries: number;
  readonly timeout: number;
  readonly fetch: typeof fetch;
  readonly headers: Record<string, string>;
  /** Backoff's random source (tests make it fixed). */
  random: () => number = Math.random;

  constructor(options: ClientOptions) {
    if (typeof options.apiKey !== 'string' || options.apiKey === '') throw new TypeError('apiKey is required');
    if (typeof options.baseUrl !== 'string' || options.baseUrl === '') throw new TypeError('baseUrl is required');
    this.#apiKey = options.apiKey;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.maxRetries = options.maxRetries ?? DEFAULT_RETRIES;
    this.timeout = options.timeout ?? DEFAULT_TIMEOUT;
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.headers = options.headers ?? {};
  }

  /** `path` is under baseUrl, or an absolute URL already checked by sameOrigin. */
  url(path: string, query?: Query): string {
    const url = new URL(/^https?:\/\//i.test(path) ? path : this.baseUrl + path);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    }
    return url.toString();
  }

  /** A URL the server handed out (a Location), resolved; refused unless on the API's origin (it gets the key). */
  sameOrigin(location: string): string {
    const url = new URL(location, `${this.baseUrl}/`);
    if (url.origin !== new URL(this.baseUrl).origin) {
      throw new TypeError(`refusing to send the API key to ${url.origin}, not the API's origin`);
    }
    return url.toString();
  }

  /** Sends a request (with its retries) and answers the final Response; errors are thrown. */
  async send(req: RawRequest): Promise<Response> {
    const options = req.options ?? {};
    const headers = new Headers({ ...this.headers, ...req.headers, ...options.headers });
    headers.set('authorization', `Bearer ${this.#apiKey}`);
    if (!headers.has('accept')) headers.set('accept', 'application/json');
    let body = req.body;
    if (req.json !== undefined) {
      body = JSON.stringify(req.json);
      headers.set('content-type', 'application/json');
    }
    if (req.method === 'POST' && !headers.has('idempotency-key')) {
      headers.set('idempotency-key', options.idempotencyKey ?? crypto.randomUUID());
    }
    // A stream is read once, unless it says it can be sent again (the Node entry point's file bodies).
    const oneShot =
      typeof ReadableStream !== 'undefined' &&
      body instanceof ReadableStream &&
      (body as { replayable?: unknown }).replayable !== true;
    const maxRetries = oneShot ? 0 : (options.maxRetries ?? this.maxRetries);
    const timeout = options.timeout ?? this.timeout;
    const url = this.url(req.path, req.query);

    for (let attempt = 0; ; attempt += 1) {
      options.signal?.throwIfAborted();
      const timer = AbortSignal.timeout(timeout);
      const signal = options.signal === undefined ? timer : AbortSignal.any([options.signal, timer]);
      let res: Response;
      try {
        const init: RequestInit & { duplex?: 'half' } = { method: req.method, headers, signal };
        if (body !== undefined) init.body = body;
        if (oneShot) init.duplex = 'half';
        res = await this.fetch(url, init);
      } catch (err) {
        if (options.signal?.aborted === true) throw options.signal.reason;
        const error = timer.aborted
          ? new TimeoutError({ status: null, code: 'timeout', message: `no answer within ${timeout} ms`, cause: err })
          : new ConnectionError({
              status: null,
              code: 'connection_error',
              message: `could not reach ${this.baseUrl}: ${describe(err)}`,
              cause: err,
            });
        if (attempt >= maxRetries) throw error;
        await sleep(this.backoff(attempt), options.signal);
        continue;
      }
      if (res.ok || (req.accept ?? []).includes(res.status)) return res;
      const text = await res.text().catch(() => '');
      const error = errorFromResponse(res.status, res.headers, text);
      const wait = this.retryDelay(res.status, res.headers, attempt);
      if (wait === null || attempt >= maxRetries) throw error;
      await sleep(wait, options.signal);
    }
  }

  /** Milliseconds to wait before retrying an answer of `status`, or null when it is final. */
  private retryDelay(status: number, headers: Headers, attempt: number): number | null {
    if (status === 429 || status === 503) {
      const after = retryAfterSeconds(headers);
      if (after !== null) return after > MAX_RETRY_AFTER_SECONDS ? null : after * 1000;
      return this.backoff(attempt);
    }
    if (status >= 500) return this.backoff(attempt);
    return null;
  }

  /** 0.5 s, 1 s, 2 s ... capped at 8 s, each scaled by a random 50-100% (jitter). */
  backoff(attempt: number): number {
    return Math.min(8000, 500 * 2 ** attempt) * (0.5 + this.random() / 2);
  }

  /** Sends a request and parses its JSON answer, with `lastResponse` attached. */
  async json<T>(req: RawRequest): Promise<WithResponse<T>> {
    const res = await this.send(req);
    return withResponse((await res.json()) as T, res);
  }

  /** A GET that may answer NotModified when `ifNoneMatch` is given. */
  async get<T, O extends GetOptions | undefined>(
    path: string,
    query: Query | undefined,
    options: O,
  ): Promise<Conditional<O, T>> {
    const headers: Record<string, string> = {};
    if (options?.ifNoneMatch !== undefined) headers['if-none-match'] = options.ifNoneMatch;
    const res = await this.send({ method: 'GET', path, query, headers, options, accept: [304] });
    if (res.status === 304) {
      const info = responseInfo(res);
      return new NotModified(info.etag, info) as Conditional<O, T>;
    }
    return withResponse((await res.json()) as T, res) as Conditional<O, T>;
  }

  /** A request whose answer has no body (204, 202 without one). */
  async empty(req: RawRequest): Promise<ResponseInfo> {
    const res = await this.send(req);
    await res.body?.cancel();
    return responseInfo(res);
  }
}

function responseInfo(res: Response): ResponseInfo {
  return {
    status: res.status,
    headers: res.headers,
    requestId: res.headers.get('x-request-id'),
    etag: res.headers.get('etag'),
  };
}

function withResponse<T>(value: T, res: Response): WithResponse<T> {
  Object.defineProperty(value, 'lastResponse', { value: responseInfo(res), enumerable: false });
  return value as WithResponse<T>;
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err.message}${cause}`;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
