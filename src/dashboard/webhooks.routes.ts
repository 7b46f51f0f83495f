// Settings > Webhooks: every action is a call to the webhooks service, scoped by the signed-in
// account (another account's endpoint or delivery is simply not found: 404). A new endpoint's
// secret, and a rotated one, are shown once, with the keys page's one-time display: held, sealed,
// in the session for the one page after the redirect.
import type { FastifyRequest } from 'fastify';
import { EVENT_TYPES, type EventType } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import type { App } from '../http/types.ts';
import { WebhookEndpointCreateBody, type WebhookEndpointType } from '../modules/webhooks/webhooks.schemas.ts';
import { schemaFieldErrors, type FieldWords, fieldErrors, formFields } from './form.ts';
import { PAGE_ROUTE, sendPage, viewerOf, type DashboardContext } from './page.ts';
import { WEBHOOK_SECRET_READY, WEBHOOK_SECRET_SHOWN_ONCE, noticeOf } from './notices.ts';
import type { FieldErrors } from './views/layout.ts';
import {
  RECENT_DELIVERIES,
  deleteWebhookPage,
  eventFieldName,
  webhooksPage,
  type EndpointView,
  type ShownSecret,
  type WebhookFormValues,
} from './views/webhooks.ts';

/** docs/api.md §27: webhooks are the owner's. */
const OWNER = { dashboard: 'owner' } as const;
const PAGE = '/dashboard/settings/webhooks';
/** The endpoints one page lists (the service's largest page). */
const MAX_LISTED = 100;
/** Where the schema's own keyword says too little: which of the URL's rules it breaks. */
const WEBHOOK_WORDS: Record<string, FieldWords> = {
  url: {
    empty: 'Enter the URL that should receive the events',
    invalid: (url) =>
      !/^https?:\/\//i.test(String(url))
        ? 'Enter a full URL starting with https:// (or http://)'
        : /\s|\p{Cc}/u.test(String(url))
          ? 'A URL cannot contain spaces or control characters'
          : 'Enter a valid URL',
  },
};

type Params = { id: string; delivery_id?: string };

/** The form's values, and what is wrong with them before the service is asked. */
function readForm(body: unknown): { values: WebhookFormValues; selected: EventType[]; errors: FieldErrors } {
  const form = formFields(body);
  const selected = EVENT_TYPES.filter((t) => form.get(eventFieldName(t)) !== '');
  const values: WebhookFormValues = {
    url: form.get('url').trim(),
    description: form.get('description').trim(),
    mode: form.get('events') === 'some' ? 'some' : 'all',
    selected,
  };
  const errors = schemaFieldErrors(
    WebhookEndpointCreateBody,
    { url: values.url, description: values.description === '' ? null : values.description },
    WEBHOOK_WORDS,
  );
  if (values.mode === 'some' && values.selected.length === 0) {
    errors.events = 'Tick at least one event, or choose all events';
  }
  return { values, selected, errors };
}

export function registerWebhooksRoutes(scope: App, ctx: DashboardContext): void {
  const { services } = ctx;
  const { webhooks } = services;

  /** The account's endpoints with their latest deliveries, newest first. */
  async function endpointViews(accountId: string): Promise<{ views: EndpointView[]; total: number }> {
    const list = await webhooks.list(accountId, { limit: MAX_LISTED });
    const views = await Promise.all(
      list.data.map(async (endpoint) => {
        const page = await webhooks.deliveries(accountId, endpoint.id, { limit: RECENT_DELIVERIES });
        return { endpoint, deliveries: page.data, total: page.pagination.total };
      }),
    );
    return { views, total: list.pagination.total };
  }

  /** The secret held for this session's next webhooks page, or undefined (none, or already shown). */
  async function takeSecret(token: string | undefined): Promise<{ id: string; secret: string } | undefined> {
    const held = await services.sessions.takeOnce(token);
    if (held === null) return undefined;
    const value = JSON.parse(held) as { webhook?: unknown; secret?: unknown };
    return typeof value.webhook === 'string' && typeof value.secret === 'string'
      ? { id: value.webhook, secret: value.secret }
      : undefined;
  }

  /** Holds the secret for the page after the redirect (no-store): a reload does not show it again. */
  async function holdSecret(request: FastifyRequest, endpoint: { id: string; secret: string }): Promise<void> {
    await services.sessions.holdOnce(
      request.dashboard.token,
      JSON.stringify({ webhook: endpoint.id, secret: endpoint.secret }),
    );
  }

  /** One of the holder's own endpoints; another account's is not found (404). */
  async function ownEndpoint(request: FastifyRequest, accountId: string): Promise<WebhookEndpointType> {
    return webhooks.get(accountId, (request.params as Params).id);
  }

  const back = (notice: string, id?: string): string =>
    `${PAGE}?notice=${notice}${id === undefined ? '' : `#endpoint-${id}`}`;

  scope.get('/settings/webhooks', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const { views, total } = await endpointViews(account.id);
    let notice = noticeOf(request);
    let shown: ShownSecret | undefined;
    if (notice === WEBHOOK_SECRET_READY) {
      // Shown once: taken from this session as it is read; a reload finds nothing to show.
      const held = await takeSecret(request.dashboard.token);
      const endpoint = views.find((v) => v.endpoint.id === held?.id)?.endpoint;
      const rotated = (request.query as Record<string, unknown>).notice === 'webhook-rotated';
      shown = held === undefined || endpoint === undefined ? undefined : { endpoint, secret: held.secret, rotated };
      notice = shown === undefined ? WEBHOOK_SECRET_SHOWN_ONCE : null;
    }
    return sendPage(reply, webhooksPage({ viewer, endpoints: views, totalEndpoints: total, notice, shown }));
  });

  scope.post('/settings/webhooks', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const { values, selected, errors } = readForm(request.body);
    const render = async (e: FieldErrors) => {
      const { views, total } = await endpointViews(account.id);
      return sendPage(reply, webhooksPage({ viewer, endpoints: views, totalEndpoints: total, values, errors: e }), 400);
    };
    if (Object.keys(errors).length > 0) return render(errors);
    let created;
    try {
      created = await webhooks.create(account.id, {
        url: values.url,
        events: values.mode === 'some' ? selected : ['*'],
        ...(values.description === '' ? {} : { description: values.description }),
      });
    } catch (err) {
      const refused = fieldErrors(err);
      if (refused === null) throw err;
      // The service's reason, in the form: "10.1.2.3 is a private address", "not an absolute URL".
      if (refused.url !== undefined) refused.url = `This URL cannot be used: ${refused.url}`;
      return render(refused);
    }
    await holdSecret(request, created);
    return reply.redirect(back('webhook-created'), 303);
  });

  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    scope.post(`/settings/webhooks/:id/${action}`, { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
      const { account } = viewerOf(request);
      const { id } = request.params as Params;
      // Enabling makes the retries that waited due at once (the service does it).
      await webhooks.update(account.id, id, { enabled });
      return reply.redirect(back(enabled ? 'webhook-enabled' : 'webhook-disabled', id), 303);
    });
  }

  scope.post('/settings/webhooks/:id/rotate', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const rotated = await webhooks.rotateSecret(account.id, (request.params as Params).id);
    await holdSecret(request, rotated);
    return reply.redirect(back('webhook-rotated'), 303);
  });

  scope.post('/settings/webhooks/:id/test', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const { id } = request.params as Params;
    try {
      await webhooks.test(account.id, id);
    } catch (err) {
      // Disabled meanwhile (another tab): said on the page, not as an error page.
      if (err instanceof AppError && err.code === 'conflict') {
        return reply.redirect(back('webhook-test-disabled', id), 303);
      }
      throw err;
    }
    return reply.redirect(back('webhook-test-sent', id), 303);
  });

  scope.post(
    '/settings/webhooks/:id/deliveries/:delivery_id/retry',
    { config: OWNER, schema: PAGE_ROUTE },
    async (request, reply) => {
      const { account } = viewerOf(request);
      const { id, delivery_id: deliveryId = '' } = request.params as Params;
      await webhooks.retry(account.id, id, deliveryId);
      return reply.redirect(back('webhook-retried', id), 303);
    },
  );

  scope.get('/settings/webhooks/:id/delete', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    return sendPage(reply, deleteWebhookPage({ viewer, endpoint: await ownEndpoint(request, account.id) }));
  });

  scope.post('/settings/webhooks/:id/delete', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    await webhooks.remove(account.id, (request.params as Params).id);
    return reply.redirect(back('webhook-deleted'), 303);
  });
}
