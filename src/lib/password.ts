// Passwords are hashed with scrypt (memory-hard, in node:crypto): 2^15 iterations, 32 MiB.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';

/**
 * One message per key derivation, with its cost parameters. Sign-in must do the same work for an
 * unknown email as for a known one (so timing does not tell who has an account): tests count the
 * derivations instead of timing them, which a busy machine cannot make flaky. Free without a
 * subscriber.
 */
export const derivations = diagnostics.channel('lightbox:password:scrypt');

export interface Derivation {
  N: number;
  r: number;
  p: number;
}

/**
 * Derivations running at once in this process. Each holds one of libuv's 4 threads (UV_THREADPOOL_SIZE's
 * default) for the whole derivation, and file reads, DNS look-ups and zlib share those threads: password
 * checks sent at once (guesses at a gallery link, sign-ins) would otherwise take all four and stall
 * every gallery's images behind them. The others wait here, in order, holding no thread.
 */
const MAX_RUNNING = 2;
let running = 0;
const waiting: (() => void)[] = [];

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (running < MAX_RUNNING) running += 1;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await work();
  } finally {
    // The place passes to the next in line, or is given back.
    const next = waiting.shift();
    if (next === undefined) running -= 1;
    else next();
  }
}

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> =>
  inTurn(
    () =>
      new Promise((resolve, reject) => {
        if (derivations.hasSubscribers) {
          derivations.publish({ N: options.N, r: options.r, p: options.p } satisfies Partial<Derivation>);
        }
        scryptCb(password.normalize('NFKC'), salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key)));
      }),
  );

const PARAMS = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;

async function hashWith(password: string, params: Derivation): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LENGTH, { ...params, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function hashPassword(password: string): Promise<string> {
  return hashWith(password, PARAMS);
}

/** Makes the services' password hashes (src/deps.ts): one per process, at production's cost. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
}

/**
 * A hasher at production's cost, or (`cost`) a cheaper one for tests that are not about hashing:
 * a 32 MiB scrypt takes 100-130 ms of a core, and a test run makes hundreds of accounts and
 * sign-ins. The cost is stored in each hash, so verifying reads it from there.
 */
export function passwordHasher(cost: Partial<Derivation> = {}): PasswordHasher {
  const params = { ...PARAMS, ...cost };
  return { hash: (password) => hashWith(password, params) };
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 256 * 1024 * 1024,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
