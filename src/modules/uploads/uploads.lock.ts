// One request at a time writes an upload, whichever node it reaches (docs/api.md §16): a lease lock in
// the upload's own row, shared through the database by every node (SQLite or PostgreSQL; no
// Redis needed). A holder renews its lease while it works; a node that dies leaves a lease that
// runs out within LEASE_MS. A request that wants a held lock asks for it (release_wanted), and
// the holder's next renewal hands that on to the tus server, which ends the older request (the
// client that lost its connection and came back must not wait for the dead one's lease).
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ERRORS, type Lock, type Locker, type RequestRelease } from '@tus/utils';
import type { Clock } from '../../lib/clock.ts';
import type { Db } from '../../db/database.ts';
import * as repo from './uploads.repository.ts';
import { uploadIdOf } from './uploads.store.ts';

const LEASE_MS = 10_000;
const RENEW_MS = 1_000;
const RETRY_MS = 100;
const ACQUIRE_TIMEOUT_MS = 30_000;

export class DatabaseLocker implements Locker {
  readonly #db: Db;
  readonly #clock: Clock;
  constructor(db: Db, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }
  newLock(id: string): Lock {
    return new DatabaseLock(this.#db, this.#clock, uploadIdOf(id));
  }
}

class DatabaseLock implements Lock {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #id: string;
  readonly #token = randomUUID();
  #renewal: NodeJS.Timeout | undefined;

  constructor(db: Db, clock: Clock, id: string) {
    this.#db = db;
    this.#clock = clock;
    this.#id = id;
  }

  async lock(signal: AbortSignal, requestRelease: RequestRelease): Promise<void> {
    const deadline = Date.now() + ACQUIRE_TIMEOUT_MS;
    const kysely = this.#db.kysely;
    for (let asked = false; ; asked = true) {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- the tus server's errors are {status_code, body}
      if (signal.aborted) throw ERRORS.ERR_LOCK_TIMEOUT;
      if (await repo.tryLock(kysely, this.#id, this.#token, this.#clock.iso(LEASE_MS), this.#clock.iso())) break;
      // Gone meanwhile (terminated, expired, its gallery deleted): nothing left to lock.
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- see above
      if ((await repo.findUploadById(kysely, this.#id)) === undefined) throw ERRORS.FILE_NOT_FOUND;
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- see above
      if (Date.now() > deadline) throw ERRORS.ERR_LOCK_TIMEOUT;
      if (!asked) await repo.askRelease(kysely, this.#id);
      await sleep(RETRY_MS);
    }
    let released = false;
    const renew = (): void => {
      repo.renewLock(kysely, this.#id, this.#token, this.#clock.iso(LEASE_MS)).then(
        (state) => {
          if (state === undefined || (state.releaseWanted && !released)) {
            released = true;
            void requestRelease();
          }
        },
        () => undefined,
      );
    };
    this.#renewal = setInterval(renew, RENEW_MS);
    this.#renewal.unref();
  }

  async unlock(): Promise<void> {
    clearInterval(this.#renewal);
    await repo.unlock(this.#db.kysely, this.#id, this.#token);
  }
}
