// The logger every service, job and command writes to: pino's shape (Fastify's own logger), so
// the app's logger is passed as is, and tests pass a small collector.
export interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}
