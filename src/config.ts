// The only reader of process.env. Everything else receives a frozen Config.
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
  if (!/^\d+$/.test(raw) || !Number.isInteger(n) || n < 0 || n > 65535) {
    throw new ConfigError('PORT', `must be an integer from 0 to 65535 (got ${JSON.stringify(raw)})`);
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

export function loadConfig(env: Env = process.env): Config {
  const dataDir = path.resolve(read(env, 'DATA_DIR') ?? './data');
  const p = port(env);
  const h = host(env);
  return Object.freeze({
    port: p,
    host: h,
    dataDir,
    database: Object.freeze(database(env, dataDir)),
    publicUrl: publicUrl(env, h, p),
    logLevel: logLevel(env),
  });
}
