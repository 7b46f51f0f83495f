// Builds the app in-process on a real database: a temporary SQLite file, or a fresh
// PostgreSQL database when DATABASE_URL is a postgres:// URL (created here, dropped by close()).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { type Services } from '../../src/services.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { closeDeps, createDeps, type Deps } from '../../src/deps.ts';
import type { App } from '../../src/http/types.ts';
import type { KeyScope } from '../../src/db/schema.ts';
import { copySqliteTemplate, postgresTemplate } from './template-database.ts';
import { passwordHasher } from '../../src/lib/password.ts';

/**
 * scrypt at 1 MiB instead of 32 (2^10 iterations, not 2^15): a test run makes hundreds of accounts
 * and sign-ins, each a hash of 100-130 ms at production's cost. Suites about hashing itself
 * (password.test.ts, the CLI's real processes) use production's; a test passes `passwords` to
 * choose.
 */
const TEST_PASSWORDS = passwordHasher({ N: 2 ** 10 });

export const isPostgres = (process.env.DATABASE_URL ?? '').startsWith('postgres');

/**
 * A fresh database for one test file, empty or (`migrated`) with today's schema copied from a
 * template (test/support/template-database.ts); `drop` removes it. On SQLite the database is the
 * file DATA_DIR/lightbox.db: `migrated` needs `dataDir`.
 */
export async function createTestDatabase(
  options: { migrated?: boolean; dataDir?: string } = {},
): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  const base = process.env.DATABASE_URL;
  if (base === undefined || !isPostgres) {
    if (options.migrated === true) {
      if (options.dataDir === undefined) throw new Error('a migrated SQLite test database needs its dataDir');
      await copySqliteTemplate(path.join(options.dataDir, 'lightbox.db'));
    }
    return { env: {}, drop: () => Promise.resolve() };
  }
  const name = `lbx_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    const template = options.migrated === true ? ` template ${await postgresTemplate(admin, base)}` : '';
    await admin.query(`create database ${name}${template}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString() },
    drop: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** A resolver that knows no name: what tests use instead of the system's DNS. */
export const offlineResolver = (host: string): Promise<never> =>
  Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));

export interface TestContext {
  app: App;
  deps: Deps;
  services: Services;
  config: Config;
  dataDir: string;
  /** Log lines the app wrote, as text. */
  logs: () => string;
  close: () => Promise<void>;
}

/**
 * Rate limits, and limits of requests in progress, out of the way of suites that make hundreds of
 * requests with one key (many at once), or many without one; the suites about limits pass their own.
 */
const GENEROUS_LIMITS = {
  RATE_LIMIT_PER_MINUTE: '1000000',
  RATE_LIMIT_ADDRESS_PER_MINUTE: '1000000',
  HTTP_MAX_IN_FLIGHT_PER_KEY: '100000',
  HTTP_MAX_IN_FLIGHT_PER_ADDRESS: '100000',
};

export async function createTestContext(
  env: Record<string, string> = {},
  overrides: Partial<Omit<Deps, 'config' | 'db'>> = {},
): Promise<TestContext> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-test-'));
  // Copied from a migrated template unless the test names a database of its own.
  const migrated = env.DATABASE_URL === undefined && env.DATA_DIR === undefined;
  const database = await createTestDatabase({ migrated, dataDir });
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    PUBLIC_URL: 'http://127.0.0.1:3000',
    ...GENEROUS_LIMITS,
    ...database.env,
    ...env,
  });
  // No test ever asks the network's DNS: a webhook host name resolves to nothing unless the test
  // passes a resolver of its own (tests of deliveries use loopback IP literals).
  const deps = createDeps(config, { resolve: offlineResolver, passwords: TEST_PASSWORDS, ...overrides });
  await migrateToLatest(deps.db);
  const logStream = new PassThrough();
  let logText = '';
  logStream.on('data', (chunk: Buffer) => {
    logText += chunk.toString('utf8');
  });
  const { app, services } = await buildApp(deps, { logStream });
  await app.ready();
  return {
    app,
    deps,
    services,
    config,
    dataDir,
    logs: () => logText,
    close: async () => {
      await app.close();
      await closeDeps(deps);
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Starts the context's app on a real socket of 127.0.0.1 (once) and returns its port. */
export async function listen(ctx: TestContext): Promise<number> {
  if (!ctx.app.server.listening) await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  return (ctx.app.server.address() as AddressInfo).port;
}

let accountCounter = 0;

export interface TestAccount {
  accountId: string;
  /** The studio's owner (docs/api.md §27), who signs in with `email`. */
  userId: string;
  email: string;
  key: string;
  keyId: string;
}

/** A new account with a full-access key (and the password `correct horse battery`). */
export async function createAccount(ctx: TestContext, name = 'Studio'): Promise<TestAccount> {
  accountCounter += 1;
  const email = `owner${accountCounter}.${randomBytes(3).toString('hex')}@studio.test`;
  const account = await ctx.services.accounts.create({ name, email, password: 'correct horse battery' });
  const { key, apiKey } = await ctx.services.apiKeys.create(account.id, { name: 'test' });
  const userId = (await ctx.services.team.ownerOf(account.id)).id;
  return { accountId: account.id, userId, email, key, keyId: apiKey.id };
}

/**
 * The studio's test mode (docs/api.md §20), as an account of its own: a full test key
 * (`lbx_test_`), and `accountId` the id its data is kept under (the studio's test account).
 */
export async function testModeOf(ctx: TestContext, live: TestAccount): Promise<TestAccount> {
  const { key, apiKey } = await ctx.services.apiKeys.create(live.accountId, { name: 'test mode', test: true });
  const auth = await ctx.services.apiKeys.authenticate(key);
  if (auth === null || auth.livemode) throw new Error('a test key did not authenticate to test mode');
  return { accountId: auth.accountId, userId: live.userId, email: live.email, key, keyId: apiKey.id };
}

/** A test context (`env` as in createTestContext) listening on 127.0.0.1, and an account of it. */
export async function listeningAccount(
  env: Record<string, string> = {},
): Promise<{ ctx: TestContext; account: TestAccount; port: number }> {
  const ctx = await createTestContext(env);
  const account = await createAccount(ctx);
  const port = await listen(ctx);
  return { ctx, account, port };
}

export async function createKey(
  ctx: TestContext,
  accountId: string,
  options: { scope?: KeyScope; expiresInDays?: number; test?: boolean } = {},
): Promise<{ key: string; keyId: string }> {
  const { key, apiKey } = await ctx.services.apiKeys.create(accountId, { name: 'extra', ...options });
  return { key, keyId: apiKey.id };
}

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

export type Response = LightMyRequestResponse;

/** One HTTP request through the real stack (app.inject), JSON in and out. */
export async function call(
  ctx: TestContext,
  method: string,
  url: string,
  options: CallOptions = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key !== undefined && options.key !== null) headers.authorization = `Bearer ${options.key}`;
  let payload: string | undefined;
  if (options.body !== undefined) {
    payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await ctx.app.inject({
    method: method as 'GET',
    url,
    headers,
    ...(payload === undefined ? {} : { payload }),
    ...(options.query === undefined ? {} : { query: options.query }),
  });
  return res;
}

export interface ApiError {
  code: string;
  message: string;
  details?: { field: string; message: string }[];
  request_id: string;
}

/**
 * Asserts the contract's one error body (docs/api.md §2) and returns `error`: the status and code,
 * JSON, only the documented fields, a non-empty message, well-formed details, and a request id
 * equal to the X-Request-Id header.
 */
export function expectError(res: Response, status: number, code: string): ApiError {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = res.json<{ error: ApiError }>();
  assert.deepEqual(Object.keys(body), ['error']);
  const { error } = body;
  assert.equal(error.code, code, res.body);
  assert.equal(typeof error.message, 'string');
  assert.ok(error.message.length > 0);
  for (const field of Object.keys(error)) {
    assert.ok(['code', 'message', 'details', 'request_id'].includes(field), `unexpected error.${field}`);
  }
  if (error.details !== undefined) {
    assert.ok(Array.isArray(error.details));
    for (const d of error.details) {
      assert.equal(typeof d.field, 'string');
      assert.equal(typeof d.message, 'string');
    }
  }
  assert.equal(typeof res.headers['x-request-id'], 'string');
  assert.equal(error.request_id, res.headers['x-request-id']);
  return error;
}

/** The fields an error's details name, in order. */
export const detailFields = (error: ApiError): string[] => (error.details ?? []).map((d) => d.field);
