// The only reader of process.env. Everything else receives a frozen Config.
import { statSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** `sqlite` with a file path, or `postgres` with a connection string. */
  readonly database:
    { readonly kind: 'sqlite'; readonly file: string } | { readonly kind: 'postgres'; readonly url: string };
  /** Base of absolute URLs, without a trailing slash. */
  readonly publicUrl: string;
  readonly logLevel: LogLevel;
  readonly media: MediaConfig;
  readonly mail: MailConfig;
  readonly limits: LimitsConfig;
  readonly http: HttpConfig;
  /**
   * Which proxies in front may name the client in X-Forwarded-For (TRUST_PROXY): false (none,
   * the default: the connection's address is the client's), a hop count, or addresses/CIDRs.
   */
  readonly trustProxy: false | number | readonly string[];
}

export interface LimitsConfig {
  /** Requests a minute per API key (RATE_LIMIT_PER_MINUTE). */
  readonly perKeyPerMinute: number;
  /** Requests a minute per client address for requests without a valid key. */
  readonly perAddressPerMinute: number;
  /** redis:// or rediss:// URL; undefined keeps the counters in this process. */
  readonly redisUrl: string | undefined;
  /** Prefix of every Redis key this service writes (so deployments and tests can share one Redis). */
  readonly redisKeyPrefix: string;
}

/** How long the server waits on a client, and how many requests one may have open (src/http/connections.ts). */
export interface HttpConfig {
  /** A request's headers must arrive within this (HTTP_HEADERS_TIMEOUT_SECONDS); else 408, closed. */
  readonly headersTimeoutMs: number;
  /** A JSON or form body must arrive whole within this (HTTP_REQUEST_TIMEOUT_SECONDS); uploads are exempt. */
  readonly requestTimeoutMs: number;
  /** A connection that sends and takes nothing this long is closed; a body then gets 408 (HTTP_IDLE_TIMEOUT_SECONDS). */
  readonly idleTimeoutMs: number;
  /** A kept-alive connection with no request is closed after this (HTTP_KEEP_ALIVE_TIMEOUT_SECONDS). */
  readonly keepAliveTimeoutMs: number;
  /** Requests in progress at once per API key, on this node (HTTP_MAX_IN_FLIGHT_PER_KEY); more: 429. */
  readonly maxInFlightPerKey: number;
  /** Requests in progress at once per client address, on this node (HTTP_MAX_IN_FLIGHT_PER_ADDRESS); more: 429. */
  readonly maxInFlightPerAddress: number;
}

export interface MailConfig {
  /** smtp:// or smtps:// URL; undefined writes .eml files under DATA_DIR/outbox. */
  readonly smtpUrl: string | undefined;
  /** The sender address; the display name is each studio's. */
  readonly from: { readonly name: string; readonly address: string };
  /** Transient failures are retried this long after the notification was queued. */
  readonly retryHours: number;
  /** The first retry waits about this long; each next one twice as long (capped at an hour). */
  readonly retryBaseSeconds: number;
}

export type MediaStorageConfig =
  | { readonly kind: 'local'; readonly dir: string }
  | {
      readonly kind: 's3';
      readonly bucket: string;
      /** '' or a prefix without leading or trailing slashes. */
      readonly prefix: string;
      readonly endpoint: string | undefined;
      readonly region: string;
      readonly forcePathStyle: boolean;
      /** Explicit credentials when AWS_ACCESS_KEY_ID is set; otherwise the SDK's default chain. */
      readonly credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | undefined;
    };

export interface MediaConfig {
  readonly storage: MediaStorageConfig;
  readonly maxFileBytes: number;
  readonly maxFiles: number;
  /** Photos with more pixels are refused (read from the header, never decoded). */
  readonly maxImagePixels: number;
}

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(`${variable} ${message}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

type Env = Readonly<Record<string, string | undefined>>;

function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function port(env: Env): number {
  const raw = read(env, 'PORT');
  if (raw === undefined) return 3000;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isInteger(n) || n < 1 || n > 65535) {
    throw new ConfigError('PORT', `must be an integer from 1 to 65535 (got ${JSON.stringify(raw)})`);
  }
  return n;
}

function host(env: Env): string {
  const raw = read(env, 'HOST') ?? '127.0.0.1';
  if (!/^[A-Za-z0-9.:\-[\]]+$/.test(raw)) {
    throw new ConfigError('HOST', `must be a host name or IP address (got ${JSON.stringify(raw)})`);
  }
  return raw;
}

function database(env: Env, dataDir: string): Config['database'] {
  const raw = read(env, 'DATABASE_URL');
  if (raw === undefined) return { kind: 'sqlite', file: path.join(dataDir, 'lightbox.db') };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('DATABASE_URL', 'must be a postgres:// URL or a sqlite: path');
  }
  if (url.protocol === 'postgres:' || url.protocol === 'postgresql:') return { kind: 'postgres', url: raw };
  if (url.protocol === 'sqlite:') {
    const file = raw.slice('sqlite:'.length).replace(/^\/\//, '');
    if (file === '') throw new ConfigError('DATABASE_URL', 'sqlite: needs a file path');
    return { kind: 'sqlite', file: path.resolve(file) };
  }
  // Never echo the URL: it may carry a password.
  throw new ConfigError('DATABASE_URL', `has an unsupported scheme ${JSON.stringify(url.protocol)} (use postgres://)`);
}

function publicUrl(env: Env, hostName: string, portNumber: number): string {
  const raw = read(env, 'PUBLIC_URL');
  if (raw === undefined) {
    const h = hostName.includes(':') && !hostName.startsWith('[') ? `[${hostName}]` : hostName;
    return `http://${h}:${portNumber}`;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('PUBLIC_URL', 'must be an absolute http(s) URL such as https://api.example.com');
  }
  // Never echo the value: a URL may carry a password.
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError('PUBLIC_URL', 'must be an absolute http(s) URL such as https://api.example.com');
  }
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    throw new ConfigError('PUBLIC_URL', 'must not carry credentials, a query or a fragment');
  }
  return raw.replace(/\/+$/, '');
}

function logLevel(env: Env): LogLevel {
  const raw = (read(env, 'LOG_LEVEL') ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(raw)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')} (got ${JSON.stringify(raw)})`);
  }
  return raw as LogLevel;
}

function positiveInteger(env: Env, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < 1 || n > max) {
    throw new ConfigError(name, `must be a whole number from 1 to ${max} (got ${JSON.stringify(raw)})`);
  }
  return n;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['1', 'true', 'yes'].includes(raw)) return true;
  if (['0', 'false', 'no'].includes(raw)) return false;
  throw new ConfigError(name, `must be true or false (got ${JSON.stringify(raw)})`);
}

function mediaStorage(env: Env, dataDir: string): MediaStorageConfig {
  const raw = read(env, 'MEDIA_STORAGE');
  if (raw === undefined) return { kind: 'local', dir: path.join(dataDir, 'media') };
  if (!raw.startsWith('s3://')) return { kind: 'local', dir: path.resolve(raw) };
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(raw);
  if (match === null) {
    throw new ConfigError('MEDIA_STORAGE', 'must be a folder path or s3://bucket/prefix with a valid bucket name');
  }
  const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix !== '' && !/^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_-]+)*$/.test(prefix)) {
    throw new ConfigError('MEDIA_STORAGE', 'prefix may hold only letters, digits, _, - and /');
  }
  const endpoint = read(env, 'S3_ENDPOINT');
  if (endpoint !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(endpoint);
    } catch {
      url = undefined;
    }
    if (
      url === undefined ||
      (url.protocol !== 'http:' && url.protocol !== 'https:') ||
      url.username !== '' ||
      url.password !== ''
    ) {
      throw new ConfigError(
        'S3_ENDPOINT',
        'must be an http(s) URL without credentials, such as https://s3.example.com',
      );
    }
  }
  const accessKeyId = read(env, 'AWS_ACCESS_KEY_ID');
  const secretAccessKey = read(env, 'AWS_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError(
      accessKeyId === undefined ? 'AWS_ACCESS_KEY_ID' : 'AWS_SECRET_ACCESS_KEY',
      'must be set together with its pair',
    );
  }
  const sessionToken = read(env, 'AWS_SESSION_TOKEN');
  return {
    kind: 's3',
    bucket: match[1] ?? '',
    prefix,
    endpoint,
    region: read(env, 'S3_REGION') ?? read(env, 'AWS_REGION') ?? 'us-east-1',
    // S3-compatible servers (MinIO, Ceph, s3rver) usually want path-style; AWS wants virtual hosts.
    forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', endpoint !== undefined),
    credentials:
      accessKeyId === undefined || secretAccessKey === undefined
        ? undefined
        : { accessKeyId, secretAccessKey, ...(sessionToken === undefined ? {} : { sessionToken }) },
  };
}

function media(env: Env, dataDir: string): MediaConfig {
  return Object.freeze({
    storage: Object.freeze(mediaStorage(env, dataDir)),
    maxFileBytes: positiveInteger(env, 'MEDIA_MAX_FILE_BYTES', 2 * 1024 ** 3),
    maxFiles: positiveInteger(env, 'MEDIA_MAX_FILES', 100, 10_000),
    maxImagePixels: positiveInteger(env, 'MEDIA_MAX_IMAGE_PIXELS', 268_402_689),
  });
}

function dataDirectory(env: Env): string {
  const dir = path.resolve(read(env, 'DATA_DIR') ?? './data');
  // It need not exist yet (it is created on first use), but it must not be something else.
  const existing = statSync(dir, { throwIfNoEntry: false });
  if (existing !== undefined && !existing.isDirectory()) {
    throw new ConfigError('DATA_DIR', `must be a directory (${dir} is a file)`);
  }
  return dir;
}

function smtpUrl(env: Env): string | undefined {
  const raw = read(env, 'SMTP_URL');
  if (raw === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  // Never echo the value: it usually carries a password.
  if (url === undefined || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '') {
    throw new ConfigError('SMTP_URL', 'must be smtp://user:pass@host:port or smtps://user:pass@host:port');
  }
  return raw;
}

function mailFrom(env: Env): { name: string; address: string } {
  const raw = read(env, 'MAIL_FROM') ?? 'Lightbox <no-reply@localhost>';
  const match = /^(?:"?([^"<>]*?)"?\s*<([^<>\s]+@[^<>\s]+)>|([^<>\s]+@[^<>\s]+))$/.exec(raw);
  if (match === null) {
    throw new ConfigError('MAIL_FROM', `must be an address or "Name <address>" (got ${JSON.stringify(raw)})`);
  }
  return { name: (match[1] ?? '').trim(), address: match[2] ?? match[3] ?? '' };
}

function mail(env: Env): MailConfig {
  return Object.freeze({
    smtpUrl: smtpUrl(env),
    from: Object.freeze(mailFrom(env)),
    retryHours: positiveInteger(env, 'MAIL_RETRY_HOURS', 24, 24 * 30),
    retryBaseSeconds: positiveInteger(env, 'MAIL_RETRY_BASE_SECONDS', 30, 3600),
  });
}

function redisUrl(env: Env): string | undefined {
  const raw = read(env, 'REDIS_URL');
  if (raw === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  // Never echo the value: it may carry a password.
  if (url === undefined || (url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.hostname === '') {
    throw new ConfigError('REDIS_URL', 'must be redis://[:password@]host[:port][/db] or rediss://...');
  }
  if (url.pathname !== '' && url.pathname !== '/' && !/^\/\d{1,2}$/.test(url.pathname)) {
    throw new ConfigError('REDIS_URL', 'may name a database only by its number (redis://host:6379/0)');
  }
  return raw;
}

function redisKeyPrefix(env: Env): string {
  const raw = read(env, 'REDIS_KEY_PREFIX') ?? 'lightbox:';
  if (!/^[A-Za-z0-9:_.-]{1,64}$/.test(raw)) {
    throw new ConfigError('REDIS_KEY_PREFIX', `must be 1 to 64 of A-Z a-z 0-9 : _ . - (got ${JSON.stringify(raw)})`);
  }
  return raw;
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isProxyAddress(entry: string): boolean {
  if (PROXY_NAMES.has(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

function trustProxy(env: Env): false | number | readonly string[] {
  const raw = read(env, 'TRUST_PROXY');
  if (raw === undefined || ['0', 'false', 'no'].includes(raw.toLowerCase())) return false;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops > 10) throw new ConfigError('TRUST_PROXY', `a hop count must be 1 to 10 (got ${JSON.stringify(raw)})`);
    return hops;
  }
  const entries = raw.split(',').map((e) => e.trim());
  const bad = entries.find((e) => !isProxyAddress(e));
  if (bad !== undefined) {
    throw new ConfigError(
      'TRUST_PROXY',
      `must be a hop count, or addresses/CIDRs (or loopback, linklocal, uniquelocal) separated by commas (got ${JSON.stringify(bad)})`,
    );
  }
  return Object.freeze(entries);
}

function limits(env: Env): LimitsConfig {
  return Object.freeze({
    perKeyPerMinute: positiveInteger(env, 'RATE_LIMIT_PER_MINUTE', 600, 1_000_000_000),
    perAddressPerMinute: positiveInteger(env, 'RATE_LIMIT_ADDRESS_PER_MINUTE', 60, 1_000_000_000),
    redisUrl: redisUrl(env),
    redisKeyPrefix: redisKeyPrefix(env),
  });
}

function http(env: Env): HttpConfig {
  return Object.freeze({
    headersTimeoutMs: positiveInteger(env, 'HTTP_HEADERS_TIMEOUT_SECONDS', 10, 600) * 1000,
    requestTimeoutMs: positiveInteger(env, 'HTTP_REQUEST_TIMEOUT_SECONDS', 30, 3600) * 1000,
    idleTimeoutMs: positiveInteger(env, 'HTTP_IDLE_TIMEOUT_SECONDS', 30, 3600) * 1000,
    keepAliveTimeoutMs: positiveInteger(env, 'HTTP_KEEP_ALIVE_TIMEOUT_SECONDS', 5, 600) * 1000,
    maxInFlightPerKey: positiveInteger(env, 'HTTP_MAX_IN_FLIGHT_PER_KEY', 32, 100_000),
    maxInFlightPerAddress: positiveInteger(env, 'HTTP_MAX_IN_FLIGHT_PER_ADDRESS', 128, 100_000),
  });
}

export function loadConfig(env: Env = process.env): Config {
  const dataDir = dataDirectory(env);
  const p = port(env);
  const h = host(env);
  return Object.freeze({
    port: p,
    host: h,
    dataDir,
    database: Object.freeze(database(env, dataDir)),
    publicUrl: publicUrl(env, h, p),
    logLevel: logLevel(env),
    media: media(env, dataDir),
    mail: mail(env),
    limits: limits(env),
    http: http(env),
    trustProxy: trustProxy(env),
  });
}
