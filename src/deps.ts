// The only wiring: creates the long-lived resources once. Later issues add storage and mail here.
import type { Config } from './config.ts';
import { openDatabase, type Db } from './db/database.ts';

export type Clock = () => Date;

export interface Deps {
  readonly config: Config;
  readonly db: Db;
  readonly clock: Clock;
}

export function createDeps(config: Config, overrides: Partial<Omit<Deps, 'config'>> = {}): Deps {
  return {
    config,
    db: overrides.db ?? openDatabase(config.database),
    clock: overrides.clock ?? (() => new Date()),
  };
}

export async function closeDeps(deps: Deps): Promise<void> {
  await deps.db.destroy();
}
