import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

/** What repository functions take first: the database or a transaction on it. */
export type Executor = Kysely<Database>;
