// The hooks a mechanism attaches to each /v1 route it applies to (Idempotency-Key, conditional
// GETs), composed in one place: src/v1.ts lists the mechanisms in the order their hooks run, and
// one onRoute hook appends each one's hooks after the route's own.
import type {
  onResponseHookHandler,
  onSendHookHandler,
  preHandlerAsyncHookHandler,
  preHandlerHookHandler,
  RouteOptions,
} from 'fastify';
import type { App } from './types.ts';

/** What a mechanism adds to one route; nothing where it does not apply. */
interface RouteHooks {
  preHandler?: preHandlerHookHandler | preHandlerAsyncHookHandler;
  onSend?: onSendHookHandler;
  onResponse?: onResponseHookHandler;
}

/** Decides, once per route as it is declared, which hooks a mechanism adds to it. */
export type RouteHooksFor = (route: RouteOptions) => RouteHooks | undefined;

/** A route's own hooks of one kind, as a list (Fastify takes one function or an array). */
const listOf = <T>(hooks: T | T[] | undefined): T[] =>
  hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];

/** Attaches every mechanism's hooks to each route `scope` declares, in the order given. */
export function attachRouteHooks(scope: App, mechanisms: readonly RouteHooksFor[]): void {
  scope.addHook('onRoute', (route: RouteOptions) => {
    for (const hooksFor of mechanisms) {
      const hooks = hooksFor(route);
      if (hooks === undefined) continue;
      if (hooks.preHandler)
        route.preHandler = [...listOf(route.preHandler), hooks.preHandler] as preHandlerHookHandler[];
      if (hooks.onSend) route.onSend = [...listOf(route.onSend), hooks.onSend] as onSendHookHandler[];
      if (hooks.onResponse) {
        route.onResponse = [...listOf(route.onResponse), hooks.onResponse] as onResponseHookHandler[];
      }
    }
  });
}
