// Everything this app adds to Fastify's request and route config, in one place. A declaration
// file that no module imports (TypeScript reads it through tsconfig's include), so the types it
// names do not make an import circle through the modules that use them.
import type { Access, DashboardState } from '../dashboard/page.ts';
import type { IdempotencyClaim } from '../mechanisms/idempotency/idempotency.hooks.ts';
import type { AuthContext } from '../modules/api-keys/api-keys.service.ts';
import type { ConditionalState } from '../http/conditional.ts';
import type { Deprecation } from '../http/deprecation.ts';

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
    /** /v1: the route answers its own 304 and states no length on it (the RESO feed, docs/api.md §33). */
    noLengthOn304?: boolean;
    /** Health checks: exempt from every limit (requests in progress, rate limits), docs/api.md §10. */
    unlimited?: boolean;
    /** The handler streams the body (an upload): set by STREAMED_BODY in src/http/validation.ts. */
    streamedBody?: boolean;
    /** Deprecation and Sunset headers on every answer, `deprecated` in the OpenAPI document (src/http/deprecation.ts). */
    deprecated?: Deprecation;
  }
}
