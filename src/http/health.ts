import { Type } from '@sinclair/typebox';
import type { Db } from '../db/database.ts';
import { AppError } from '../errors.ts';
import { Answer, errorResponses, StringEnum } from './schemas.ts';
import type { App } from './types.ts';

const Status = Type.Object(
  { status: StringEnum(['ok', 'ready'] as const) },
  { title: 'HealthStatus', additionalProperties: false },
);

// Neither answer is ever limited (`unlimited`): a load balancer or orchestrator behind the same
// address as a busy client must still see the process alive (docs/api.md §10).
export function registerHealthRoutes(app: App, db: Db): void {
  app.get(
    '/healthz',
    {
      config: { auth: false, unlimited: true },
      schema: {
        operationId: 'healthz',
        summary: 'Liveness: 200 while the process runs',
        tags: ['Operations'],
        security: [],
        response: { 200: Answer(Status, 'The process is up.') },
      },
    },
    () => ({ status: 'ok' as const }),
  );
  app.get(
    '/readyz',
    {
      config: { auth: false, unlimited: true },
      schema: {
        operationId: 'readyz',
        summary: 'Readiness: 200 when the database answers, else 503',
        tags: ['Operations'],
        security: [],
        response: { 200: Answer(Status, 'Ready: the database answers.'), 503: errorResponses()[503] },
      },
    },
    async (request) => {
      try {
        await db.ping();
      } catch (err) {
        request.log.warn({ err }, 'readiness check: the database is not answering');
        throw new AppError('unavailable', 'The database is not answering');
      }
      return { status: 'ready' as const };
    },
  );
}
