import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { KeyScope } from '../db/schema.ts';

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

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext;
  }
  interface FastifyContextConfig {
    /** false: the route needs no API key (health, OpenAPI document). */
    auth?: boolean;
  }
}
