// GET /: a signpost, so that whoever opens the bare address finds their way. A browser (its Accept
// prefers HTML) is sent to the dashboard; anything else (curl, an API client) gets JSON naming
// where the API, its reference and the dashboard are. Not in the OpenAPI document: it is not part
// of the API, like /docs and /dashboard.
import type { App } from './types.ts';

/** The links the JSON answer gives, absolute from PUBLIC_URL like every URL the API returns. */
export function rootLinks(publicUrl: string) {
  return {
    api: `${publicUrl}/v1`,
    openapi: `${publicUrl}/v1/openapi.json`,
    docs: `${publicUrl}/docs`,
    dashboard: `${publicUrl}/dashboard`,
    health: `${publicUrl}/healthz`,
  };
}

/**
 * True when the Accept header ranks HTML above JSON: a browser's `text/html,...,*\/*;q=0.8`.
 * Only an explicit text/html (or text/*) counts for HTML, while `*\/*` and application/* count
 * for JSON, so curl's `*\/*` and a missing header get JSON.
 */
export function prefersHtml(accept: string | undefined): boolean {
  let html = 0;
  let json = accept === undefined || accept.trim() === '' ? 1 : 0;
  for (const part of (accept ?? '').split(',')) {
    const [range = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q) || q < 0 || q > 1) continue;
    if (range === 'text/html' || range === 'text/*') html = Math.max(html, q);
    if (range === 'application/json' || range === 'application/*' || range === '*/*') json = Math.max(json, q);
  }
  return html > 0 && html > json;
}

export function registerRootRoute(app: App, publicUrl: string): void {
  const body = {
    name: 'Lightbox',
    description:
      'A REST API for photography studios. Call `api` with `Authorization: Bearer <key>`; ' +
      '`openapi` describes it and `docs` renders that; studios manage keys in the `dashboard`.',
    links: rootLinks(publicUrl),
  };
  app.get('/', { schema: { hide: true } }, (request, reply) => {
    // The answer depends on Accept: a cache must not give a browser's redirect to an API client.
    void reply.header('vary', 'Accept');
    if (prefersHtml(request.headers.accept)) return reply.redirect('/dashboard', 303);
    return reply.send(body);
  });
}
