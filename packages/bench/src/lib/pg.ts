// A fresh PostgreSQL database for a benchmark or an outage run: created on the admin connection
// (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres) and dropped after.
import pg from 'pg';

const PG_BASE = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_BASE });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Creates (or re-creates) database `name`; returns its URL. `name` must be a plain identifier. */
export async function createPgDatabase(name: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  await admin(`drop database if exists ${name} with (force)`);
  await admin(`create database ${name}`);
  const url = new URL(PG_BASE);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropPgDatabase(name: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  await admin(`drop database if exists ${name} with (force)`);
}
