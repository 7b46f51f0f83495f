// Resource ids: a type prefix and a ULID. ULIDs sort by creation time (monotonic within a
// millisecond in this process), which gives "created_at desc, id desc" a stable, natural order.
// Clients must treat them as opaque.
import { randomFillSync } from 'node:crypto';

export type IdPrefix =
  | 'lst'
  | 'cli'
  | 'med'
  | 'key'
  | 'acc'
  | 'ntf'
  | 'job'
  | 'evt'
  | 'whe'
  | 'whd'
  | 'upl'
  | 'usr'
  | 'inv'
  | 'shl'
  | 'gln'
  | 'prd'
  | 'ivc'
  | 'pay'
  | 'mlp';

// Crockford's base32, as the ULID spec has it.
const ENCODING = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const RANDOM_CHARS = 16;

// Random bytes drawn from the system's CSPRNG a page at a time: the `ulid` package asks it once
// per character (16 calls per id), which cost 4% of the server's time on a write.
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

let lastTime = -1;
const lastRandom = new Uint8Array(RANDOM_CHARS);

function freshRandom(): void {
  if (poolAt + RANDOM_CHARS > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  // 256 is a multiple of 32: each character is uniform.
  for (let i = 0; i < RANDOM_CHARS; i += 1) lastRandom[i] = (pool[poolAt + i] as number) & 31;
  poolAt += RANDOM_CHARS;
}

/** The random part plus one, in base 32 (the next id of the same millisecond sorts after). */
function incrementRandom(): void {
  for (let i = RANDOM_CHARS - 1; i >= 0; i -= 1) {
    const c = lastRandom[i] as number;
    if (c < 31) {
      lastRandom[i] = c + 1;
      return;
    }
    lastRandom[i] = 0;
  }
  throw new Error('ULID random part overflowed within one millisecond');
}

/** A monotonic ULID: 10 characters of milliseconds, 16 of randomness (incremented within a millisecond). */
function ulid(now = Date.now()): string {
  if (now <= lastTime) incrementRandom();
  else {
    lastTime = now;
    freshRandom();
  }
  let out = '';
  let time = lastTime;
  for (let i = 0; i < 10; i += 1) {
    out = (ENCODING[time % 32] as string) + out;
    time = Math.floor(time / 32);
  }
  for (let i = 0; i < RANDOM_CHARS; i += 1) out += ENCODING[lastRandom[i] as number] as string;
  return out;
}

export const newId = (prefix: IdPrefix): string => `${prefix}_${ulid()}`;

const ID_SHAPE = /^[a-z]+_[0-9A-Za-z_-]+$/;

/**
 * Ids are a prefix and an opaque URL-safe string of at most 40 characters. A path id of any
 * other shape is simply not found, without a query (PostgreSQL would refuse a NUL in it: a 500).
 */
export const hasIdShape = (prefix: IdPrefix, id: string): boolean =>
  id.length <= 40 && id.startsWith(`${prefix}_`) && ID_SHAPE.test(id);
