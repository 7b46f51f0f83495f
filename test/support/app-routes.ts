// The routes an app has registered, read back from Fastify's own router, so the suites that must
// cover every route (security, OpenAPI) are checked against the app rather than against a list
// someone has to remember to update.
import type { App } from '../../src/http/types.ts';

export interface AppRoute {
  method: string;
  /** Fastify's form: `/v1/listings/:id`. */
  url: string;
}

// One line of `printRoutes()`: tree drawing (4 characters a level), the node's label, and the
// methods of a route ending at that node. A node's full path is its ancestors' labels joined.
const LINE = /^((?:│ {3}| {4})*)(?:├── |└── )(.+?)(?: \(([A-Z, ]+)\))?$/;

export function appRoutes(app: App): AppRoute[] {
  const routes: AppRoute[] = [];
  const labels: string[] = [];
  for (const line of app.printRoutes().split('\n')) {
    const match = LINE.exec(line);
    if (match === null) continue;
    const [, indent = '', label = '', methods] = match;
    labels.length = indent.length / 4;
    labels.push(label);
    if (methods === undefined) continue;
    const url = labels.join('');
    for (const method of methods.split(', ')) routes.push({ method, url });
  }
  return routes.sort((a, b) => a.url.localeCompare(b.url) || a.method.localeCompare(b.method));
}

export const routeKey = (route: AppRoute): string => `${route.method} ${route.url}`;
