// Translates driver errors into facts the services can act on, for both dialects.

interface DriverError {
  code?: unknown;
  constraint?: unknown;
  message?: unknown;
}

/** A UNIQUE constraint was violated (SQLite or PostgreSQL). */
export function isUniqueViolation(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code } = err as DriverError;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EPIPE',
  '57P01',
  '57P03',
  '08000',
  '08003',
  '08006',
]);

/** A FOREIGN KEY constraint was violated (the referenced row is gone). */
export function isForeignKeyViolation(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code } = err as DriverError;
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/** The database could not be reached (the service should answer 503, not 500). */
export function isUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as DriverError;
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
  return (
    typeof message === 'string' &&
    /timeout exceeded when trying to connect|Connection terminated|driver has already been destroyed|database connection is not open/i.test(
      message,
    )
  );
}
