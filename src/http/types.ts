import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Access, DashboardState } from '../dashboard/respond.ts';
import type { KeyScope } from '../db/schema.ts';
import type { IdempotencyClaim } from '../mechanisms/idempotency/idempotency.hooks.ts';
import type { ConditionalState } from './conditional.ts';

/** The Fastify instance every module registers its routes on. */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** Who is calling: set by the auth hook on every authenticated /v1 request. */
export interface AuthContext {
  accountId: string;
  keyId: string;
  scope: KeyScope;
}

// Everything this app adds to Fastify's request and route config, in one place.
declare module 'fastify' {
  interface FastifyRequest {
    /** /v1: set by the auth hook (src/http/auth.ts). */
    auth: AuthContext;
    /** /v1 POSTs: the Idempotency-Key held by this request (src/mechanisms/idempotency/idempotency.hooks.ts). */
    idempotency: IdempotencyClaim | null;
    /** /v1 JSON GETs: the ETag this request answers with (src/http/conditional.ts). */
    conditional: ConditionalState | null;
    /** /dashboard: the sign-in state (src/dashboard/dashboard.plugin.ts). */
    dashboard: DashboardState;
  }
  interface FastifyContextConfig {
    /** /v1: false when the route needs no API key (the OpenAPI document). */
    auth?: boolean;
    /** /dashboard: who may use the route. */
    dashboard?: Access;
    /** Health checks: exempt from every limit (requests in progress, rate limits), section 10. */
    unlimited?: boolean;
  }
}
