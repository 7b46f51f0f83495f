// Over 400 lines on purpose: every environment variable's rule in the one module that may read process.env.
// The only reader of process.env. Everything else receives a frozen Config.
import { statSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';

type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

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
  readonly webhooks: WebhooksConfig;
  /**
   * JOBS: whether `lightbox serve` also runs the background jobs (true, the default) or only
   * answers HTTP (false: an API node, with `lightbox worker` processes doing the jobs).
   */
  readonly jobs: boolean;
  /**
   * METRICS_PORT and METRICS_HOST: where `serve` and `worker` answer Prometheus' GET /metrics, on a
   * listener of their own (127.0.0.1 unless METRICS_HOST says otherwise); undefined: no listener.
   */
  readonly metrics: { readonly port: number; readonly host: string } | undefined;
  /** STRIPE_API_BASE: where the Stripe library sends requests (docs/api.md §29); a test's stand-in. */
  readonly stripeApiBase: string;
  /** docs/api.md §32: the listing kit. */
  readonly kit: KitConfig;
}

interface KitConfig {
  /** KIT_PAPER (`letter`): the flyer's paper when the studio has not chosen one in Settings. */
  readonly paper: 'letter' | 'a4';
  /** KIT_SECONDS_PER_PHOTO (4): how long each photo shows in the kit's videos (1-30). */
  readonly secondsPerPhoto: number;
  /**
   * KIT_REBUILD_DELAY_SECONDS (30): a change to a built kit's gallery rebuilds it this long after
   * (further changes meanwhile join that rebuild); at most 60, the contract's minute.
   */
  readonly rebuildDelayMs: number;
  /** KIT_LEASE_MS (120000): how long a node holds a kit build, renewed every quarter of it while it runs. */
  readonly leaseMs: number;
}

interface WebhooksConfig {
  /** WEBHOOK_ALLOW_PRIVATE: let endpoints reach private and loopback addresses (development, tests). */
  readonly allowPrivate: boolean;
  /** WEBHOOK_RETRY_SECONDS: the waits before each retry (5 s, 5 min, 30 min, 2 h, 8 h, 24 h). */
  readonly retrySeconds: readonly number[];
  /** WEBHOOK_TIMEOUT_SECONDS: an attempt succeeds only with a 2xx within this (10). */
  readonly timeoutSeconds: number;
  /** WEBHOOK_CONCURRENCY: deliveries in flight at once on a node (32). */
  readonly concurrency: number;
  /** WEBHOOK_ENDPOINT_CONCURRENCY: of those, at most this many to one endpoint (4). */
  readonly perEndpoint: number;
}

export interface LimitsConfig {
  /** Requests a minute per API key (RATE_LIMIT_PER_MINUTE). */
  readonly perKeyPerMinute: number;
  /** Requests a minute per client address for requests without a valid key. */
  readonly perAddressPerMinute: number;
  /** Requests a minute per client address to the client gallery (GALLERY_RATE_LIMIT_PER_MINUTE). */
  readonly galleryPerAddressPerMinute: number;
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
  /** Bytes of JSON 200 bodies each node keeps by ETag (HTTP_RESPONSE_CACHE_MB; 0: none). */
  readonly responseCacheBytes: number;
}

interface MailConfig {
  /** smtp:// or smtps:// URL; undefined writes .eml files under DATA_DIR/outbox. */
  readonly smtpUrl: string | undefined;
  /** The sender address; the display name is each studio's. */
  readonly from: { readonly name: string; readonly address: string };
  /** Transient failures are retried this long after the notification was queued. */
  readonly retryHours: number;
  /** The first retry waits about this long; each next one twice as long (capped at an hour). */
  readonly retryBaseSeconds: number;
  /**
   * MAIL_ALLOW_LOCAL: with SMTP_URL set, let the start go on with links to this machine or a
   * localhost sender (a local mail catcher while developing). Off: such a start is refused.
   */
  readonly allowLocal: boolean;
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
  readonly variants: VariantsConfig;
  /** ANALYSIS (on): new photos are analysed (docs/api.md §30); off queues nothing, `analysis` null. */
  readonly analysis: boolean;
  /** ANALYSIS_OCR (on): analysis reads words in photos; off leaves `analysis.text` null (docs/api.md §30). */
  readonly analysisOcr: boolean;
  /**
   * Unfinished resumable uploads (docs/api.md §16) are removed this long after their creation
   * (UPLOAD_EXPIRY_HOURS, 24; a fraction of an hour is allowed, for tests and small disks).
   */
  readonly uploadExpiryMs: number;
}

interface VariantsConfig {
  /** The box the `mls` variant fits within (VARIANT_MLS_SIZE, `2048x1536`). */
  readonly mlsBox: { readonly width: number; readonly height: number };
  /** Photos made at once on a node (VARIANT_CONCURRENCY, 1): the rest of the CPU serves the API. */
  readonly concurrency: number;
  /** libvips threads per photo (VARIANT_THREADS, 1). */
  readonly threads: number;
  /**
   * A photo's job is held this long at a time (VARIANT_LEASE_MS, 60 s), renewed while it runs: a
   * node that dies leaves its photos to another node once this has passed.
   */
  readonly leaseMs: number;
  /**
   * Each ffmpeg run of a video's variants is killed after this (VIDEO_VARIANT_TIMEOUT_SECONDS,
   * 1800); the video's variants then end failed (docs/api.md §25).
   */
  readonly videoTimeoutMs: number;
  /** Address space each ffmpeg run may take (VIDEO_VARIANT_MEMORY_MB, 2048), in bytes. */
  readonly videoMemoryBytes: number;
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

interface UrlRule {
  /** Schemes taken, with their colon: `https:`. */
  readonly protocols: readonly string[];
  /** What the variable must be, said when it is not: never the value, which may hold a password. */
  readonly expected: string;
  /** A host is required (smtp://host, not smtp:/path). */
  readonly host?: boolean;
  /** A user name or password in the URL is refused (it belongs elsewhere, or nowhere). */
  readonly noCredentials?: boolean;
}

/**
 * A URL variable: undefined when unset, else the value as given and its parsed form. Every refusal
 * names the variable and says what is expected, in one line, without echoing the value.
 */
function urlVariable(env: Env, name: string, rule: UrlRule): { raw: string; url: URL } | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (
    url === undefined ||
    !rule.protocols.includes(url.protocol) ||
    (rule.host === true && url.hostname === '') ||
    (rule.noCredentials === true && (url.username !== '' || url.password !== ''))
  ) {
    throw new ConfigError(name, `must be ${rule.expected}`);
  }
  return { raw, url };
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

function host(env: Env, name: 'HOST' | 'METRICS_HOST'): string {
  const raw = read(env, name) ?? '127.0.0.1';
  if (!/^[A-Za-z0-9.:\-[\]]+$/.test(raw)) {
    throw new ConfigError(name, `must be a host name or IP address (got ${JSON.stringify(raw)})`);
  }
  return raw;
}

/** Off unless METRICS_PORT is set; never the service's own port (the public one, behind the proxy). */
function metrics(env: Env, servicePort: number): Config['metrics'] {
  if (read(env, 'METRICS_PORT') === undefined) return undefined;
  const p = integerIn(env, 'METRICS_PORT', 0, 1, 65535);
  if (p === servicePort) {
    throw new ConfigError(
      'METRICS_PORT',
      `must differ from PORT (${String(servicePort)}): /metrics is not served publicly`,
    );
  }
  return Object.freeze({ port: p, host: host(env, 'METRICS_HOST') });
}

function database(env: Env, dataDir: string): Config['database'] {
  const given = urlVariable(env, 'DATABASE_URL', {
    protocols: ['postgres:', 'postgresql:', 'sqlite:'],
    expected: 'a postgres:// URL or a sqlite: path',
  });
  if (given === undefined) return { kind: 'sqlite', file: path.join(dataDir, 'lightbox.db') };
  if (given.url.protocol !== 'sqlite:') return { kind: 'postgres', url: given.raw };
  const file = given.raw.slice('sqlite:'.length).replace(/^\/\//, '');
  if (file === '') throw new ConfigError('DATABASE_URL', 'sqlite: needs a file path');
  return { kind: 'sqlite', file: path.resolve(file) };
}

function publicUrl(env: Env, hostName: string, portNumber: number): string {
  const given = urlVariable(env, 'PUBLIC_URL', {
    protocols: ['http:', 'https:'],
    expected: 'an absolute http(s) URL such as https://api.example.com, without credentials',
    noCredentials: true,
  });
  if (given === undefined) {
    const h = hostName.includes(':') && !hostName.startsWith('[') ? `[${hostName}]` : hostName;
    return `http://${h}:${portNumber}`;
  }
  if (given.url.search !== '' || given.url.hash !== '') {
    throw new ConfigError('PUBLIC_URL', 'must not carry a query or a fragment');
  }
  return given.raw.replace(/\/+$/, '');
}

function logLevel(env: Env): LogLevel {
  const raw = (read(env, 'LOG_LEVEL') ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(raw)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')} (got ${JSON.stringify(raw)})`);
  }
  return raw as LogLevel;
}

/** A whole number from `min` to `max`; the fallback when unset. */
function integerIn(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max} (got ${JSON.stringify(raw)})`);
  }
  return n;
}

function positiveInteger(env: Env, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  return integerIn(env, name, fallback, 1, max);
}

/** A positive number of hours, at most a year (fractions allowed: 0.01 is 36 seconds). */
function positiveHours(env: Env, name: string, fallback: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !(n * 3_600_000 >= 1000) || n > 8784) {
    throw new ConfigError(name, `must be a number of hours from 0.0003 to 8784 (got ${JSON.stringify(raw)})`);
  }
  return n;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
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
  const endpoint = urlVariable(env, 'S3_ENDPOINT', {
    protocols: ['http:', 'https:'],
    expected: 'an http(s) URL without credentials, such as https://s3.example.com',
    noCredentials: true,
  })?.raw;
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
    variants: Object.freeze({
      mlsBox: Object.freeze(box(env, 'VARIANT_MLS_SIZE', { width: 2048, height: 1536 })),
      concurrency: positiveInteger(env, 'VARIANT_CONCURRENCY', 1, 64),
      threads: positiveInteger(env, 'VARIANT_THREADS', 1, 64),
      leaseMs: positiveInteger(env, 'VARIANT_LEASE_MS', 60_000, 3_600_000),
      videoTimeoutMs: positiveInteger(env, 'VIDEO_VARIANT_TIMEOUT_SECONDS', 1800, 86_400) * 1000,
      videoMemoryBytes: positiveInteger(env, 'VIDEO_VARIANT_MEMORY_MB', 2048, 1_048_576) * 1024 ** 2,
    }),
    analysis: bool(env, 'ANALYSIS', true),
    analysisOcr: bool(env, 'ANALYSIS_OCR', true),
    uploadExpiryMs: Math.round(positiveHours(env, 'UPLOAD_EXPIRY_HOURS', 24) * 3_600_000),
  });
}

function kitConfig(env: Env): KitConfig {
  const paper = (read(env, 'KIT_PAPER') ?? 'letter').toLowerCase();
  if (paper !== 'letter' && paper !== 'a4') {
    throw new ConfigError('KIT_PAPER', `must be letter or a4 (got ${JSON.stringify(paper)})`);
  }
  return Object.freeze({
    paper,
    secondsPerPhoto: positiveInteger(env, 'KIT_SECONDS_PER_PHOTO', 4, 30),
    rebuildDelayMs: integerIn(env, 'KIT_REBUILD_DELAY_SECONDS', 30, 0, 60) * 1000,
    leaseMs: positiveInteger(env, 'KIT_LEASE_MS', 120_000, 3_600_000),
  });
}

/** `WIDTHxHEIGHT`, each 1..16384 pixels. */
function box(env: Env, name: string, fallback: { width: number; height: number }): { width: number; height: number } {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const match = /^(\d{1,5})x(\d{1,5})$/.exec(raw);
  const width = Number(match?.[1]);
  const height = Number(match?.[2]);
  if (match === null || width < 1 || height < 1 || width > 16_384 || height > 16_384) {
    throw new ConfigError(
      name,
      `must be WIDTHxHEIGHT in pixels, each 1 to 16384, e.g. 2048x1536 (got ${JSON.stringify(raw)})`,
    );
  }
  return { width, height };
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
  return urlVariable(env, 'SMTP_URL', {
    protocols: ['smtp:', 'smtps:'],
    expected: 'smtp://user:pass@host:port or smtps://user:pass@host:port',
    host: true,
  })?.raw;
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
    allowLocal: bool(env, 'MAIL_ALLOW_LOCAL', false),
  });
}

/** A host only this machine reaches: localhost, loopback, or the any-address a server binds. */
function isLocalHost(host: string): boolean {
  const h = host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.') || h === '0.0.0.0';
  // IPv4-mapped: ::ffff:127.0.0.1, which URL writes as ::ffff:7f00:1.
  if (isIP(h) === 6)
    return ['::1', '::', '::ffff:0:0', '::ffff:0.0.0.0'].includes(h) || /^::ffff:(127\.|7f[0-9a-f]{2}:)/.test(h);
  return false;
}

/**
 * Real email (SMTP_URL set) with links or a sender only this machine knows: every client email
 * would carry dead links, or come from no-reply@localhost. Checked when a process that sends
 * starts (serve, worker), so other commands still run; MAIL_ALLOW_LOCAL=true lets it go on.
 */
function checkRealEmail(env: Env, config: Config): void {
  const { mail } = config;
  if (mail.smtpUrl === undefined || mail.allowLocal) return;
  const escape = '; MAIL_ALLOW_LOCAL=true allows it while testing with a local mail catcher';
  if (read(env, 'PUBLIC_URL') === undefined) {
    throw new ConfigError(
      'PUBLIC_URL',
      `must be set when SMTP_URL is: client emails link to it, and without it they would link to ${config.publicUrl} (e.g. PUBLIC_URL=https://photos.example.com)${escape}`,
    );
  }
  if (isLocalHost(new URL(config.publicUrl).hostname)) {
    throw new ConfigError(
      'PUBLIC_URL',
      `is ${config.publicUrl}, an address only this machine opens, and SMTP_URL sends real email: set it to the address your clients open (e.g. https://photos.example.com)${escape}`,
    );
  }
  const domain = mail.from.address.slice(mail.from.address.lastIndexOf('@') + 1);
  if (isLocalHost(domain)) {
    throw new ConfigError(
      'MAIL_FROM',
      `is ${mail.from.address}, and SMTP_URL sends real email: set it to an address at your own domain (e.g. MAIL_FROM="Harbour Light <galleries@harbourlight.example>")${escape}`,
    );
  }
}

export interface LoadOptions {
  /** For `serve` and `worker`: also refuse what a running service must not do (real email to local links). */
  readonly start?: boolean;
}

function redisUrl(env: Env): string | undefined {
  const given = urlVariable(env, 'REDIS_URL', {
    protocols: ['redis:', 'rediss:'],
    expected: 'redis://[:password@]host[:port][/db] or rediss://...',
    host: true,
  });
  const pathname = given?.url.pathname ?? '';
  if (pathname !== '' && pathname !== '/' && !/^\/\d{1,2}$/.test(pathname)) {
    throw new ConfigError('REDIS_URL', 'may name a database only by its number (redis://host:6379/0)');
  }
  return given?.raw;
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
    galleryPerAddressPerMinute: positiveInteger(env, 'GALLERY_RATE_LIMIT_PER_MINUTE', 300, 1_000_000_000),
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
    responseCacheBytes: integerIn(env, 'HTTP_RESPONSE_CACHE_MB', 64, 0, 65_536) * 1024 * 1024,
  });
}

export function loadConfig(env: Env = process.env, options: LoadOptions = {}): Config {
  const dataDir = dataDirectory(env);
  const p = port(env);
  const h = host(env, 'HOST');
  const config: Config = Object.freeze({
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
    webhooks: webhooks(env),
    jobs: bool(env, 'JOBS', true),
    metrics: metrics(env, p),
    stripeApiBase: urlVariable(env, 'STRIPE_API_BASE', STRIPE_API_RULE)?.url.origin ?? 'https://api.stripe.com',
    kit: kitConfig(env),
  });
  if (options.start === true) checkRealEmail(env, config);
  return config;
}

const STRIPE_API_RULE = { protocols: ['https:', 'http:'], expected: 'an http(s) URL', noCredentials: true };
function webhooks(env: Env): WebhooksConfig {
  const raw = read(env, 'WEBHOOK_RETRY_SECONDS');
  let retrySeconds = [5, 300, 1800, 7200, 28_800, 86_400];
  if (raw !== undefined) {
    const parts = raw.split(',').map((p) => p.trim());
    if (parts.length > 20 || parts.some((p) => !/^\d{1,7}$/.test(p))) {
      throw new ConfigError(
        'WEBHOOK_RETRY_SECONDS',
        `must be up to 20 comma-separated whole numbers of seconds, e.g. 5,300,1800 (got ${JSON.stringify(raw)})`,
      );
    }
    retrySeconds = parts.map(Number);
  }
  return Object.freeze({
    allowPrivate: bool(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    retrySeconds: Object.freeze(retrySeconds),
    timeoutSeconds: positiveInteger(env, 'WEBHOOK_TIMEOUT_SECONDS', 10, 60),
    concurrency: positiveInteger(env, 'WEBHOOK_CONCURRENCY', 32, 1024),
    perEndpoint: positiveInteger(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 4, 64),
  });
}
