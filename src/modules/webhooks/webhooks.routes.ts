import type { App } from '../../http/types.ts';
import { Answer, ErrorAnswer, errorResponses, NoContent, READ_ERRORS, WRITE_ERRORS } from '../../http/schemas.ts';
import {
  DeliveryListQuery,
  EndpointListQuery,
  Event,
  EventList,
  EventListQuery,
  EventParams,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookDeliveryParams,
  WebhookEndpoint,
  WebhookEndpointCreateBody,
  WebhookEndpointList,
  WebhookEndpointParams,
  WebhookEndpointUpdateBody,
  WebhookEndpointWithSecret,
} from './webhooks.schemas.ts';
import type { WebhooksService } from './webhooks.service.ts';

const tags = ['Webhooks'];

export function registerWebhooksRoutes(app: App, { webhooks }: { webhooks: WebhooksService }): void {
  app.post(
    '/webhook_endpoints',
    {
      schema: {
        operationId: 'createWebhookEndpoint',
        summary: 'Subscribe an endpoint to events',
        description:
          'The answer holds the signing `secret`, shown only here and by `rotate_secret`. A URL whose host is, ' +
          'or resolves to, a private, loopback, link-local or other internal address is 400 (unless the ' +
          'deployment sets WEBHOOK_ALLOW_PRIVATE=true); a name that does not resolve yet is accepted.',
        tags,
        body: WebhookEndpointCreateBody,
        response: {
          201: Answer(WebhookEndpointWithSecret, 'Created: the endpoint, with its signing secret (shown once).'),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request, reply) => {
      const endpoint = await webhooks.create(request.auth.accountId, request.body);
      return reply.code(201).header('location', `/v1/webhook_endpoints/${endpoint.id}`).send(endpoint);
    },
  );

  app.get(
    '/webhook_endpoints',
    {
      schema: {
        operationId: 'listWebhookEndpoints',
        summary: 'List webhook endpoints, newest first',
        tags,
        querystring: EndpointListQuery,
        response: { 200: Answer(WebhookEndpointList, 'A page of webhook endpoints.'), ...errorResponses(400, 401) },
      },
    },
    (request) => webhooks.list(request.auth.accountId, request.query),
  );

  app.get(
    '/webhook_endpoints/:id',
    {
      schema: {
        operationId: 'getWebhookEndpoint',
        summary: 'Get a webhook endpoint',
        tags,
        params: WebhookEndpointParams,
        response: { 200: Answer(WebhookEndpoint, 'The webhook endpoint.'), ...errorResponses(...READ_ERRORS) },
      },
    },
    (request) => webhooks.get(request.auth.accountId, request.params.id),
  );

  app.patch(
    '/webhook_endpoints/:id',
    {
      schema: {
        operationId: 'updateWebhookEndpoint',
        summary: 'Change an endpoint (url, events, description, enabled)',
        description: 'Enabling a disabled endpoint makes its waiting retries due at once.',
        tags,
        params: WebhookEndpointParams,
        body: WebhookEndpointUpdateBody,
        response: { 200: Answer(WebhookEndpoint, 'The endpoint, changed.'), ...errorResponses(...WRITE_ERRORS) },
      },
    },
    (request) => webhooks.update(request.auth.accountId, request.params.id, request.body),
  );

  app.delete(
    '/webhook_endpoints/:id',
    {
      schema: {
        operationId: 'deleteWebhookEndpoint',
        summary: 'Delete an endpoint (its deliveries go with it)',
        tags,
        params: WebhookEndpointParams,
        response: { 204: NoContent('No content: the endpoint is deleted.'), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await webhooks.remove(request.auth.accountId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/webhook_endpoints/:id/rotate_secret',
    {
      schema: {
        operationId: 'rotateWebhookSecret',
        summary: "Replace an endpoint's signing secret",
        description: 'The old secret keeps signing for 24 hours: until then both signatures are sent.',
        tags,
        params: WebhookEndpointParams,
        response: {
          200: Answer(WebhookEndpointWithSecret, 'The endpoint, with its new secret (shown once).'),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    (request) => webhooks.rotateSecret(request.auth.accountId, request.params.id),
  );

  app.post(
    '/webhook_endpoints/:id/test',
    {
      schema: {
        operationId: 'testWebhookEndpoint',
        summary: 'Send a webhook.test event to an endpoint',
        description:
          'Sent to this endpoint whatever it subscribes to, delivered and retried like any other event, never ' +
          'listed in /v1/events. 409 while the endpoint is disabled.',
        tags,
        params: WebhookEndpointParams,
        response: {
          202: Answer(WebhookDelivery, 'Accepted: the delivery, queued.'),
          409: ErrorAnswer('The endpoint is disabled (`conflict`).'),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request, reply) => reply.code(202).send(await webhooks.test(request.auth.accountId, request.params.id)),
  );

  app.get(
    '/webhook_endpoints/:id/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: "An endpoint's deliveries, newest first",
        tags,
        params: WebhookEndpointParams,
        querystring: DeliveryListQuery,
        response: { 200: Answer(WebhookDeliveryList, 'A page of deliveries.'), ...errorResponses(...READ_ERRORS) },
      },
    },
    (request) => webhooks.deliveries(request.auth.accountId, request.params.id, request.query),
  );

  app.post(
    '/webhook_endpoints/:id/deliveries/:delivery_id/retry',
    {
      schema: {
        operationId: 'retryWebhookDelivery',
        summary: 'Send a delivery again now',
        tags,
        params: WebhookDeliveryParams,
        response: {
          202: Answer(WebhookDelivery, 'Accepted: the delivery, due now.'),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request, reply) =>
      reply.code(202).send(await webhooks.retry(request.auth.accountId, request.params.id, request.params.delivery_id)),
  );

  app.get(
    '/events',
    {
      schema: {
        operationId: 'listEvents',
        summary: 'Events of the last 30 days, newest first',
        tags,
        querystring: EventListQuery,
        response: { 200: Answer(EventList, 'A page of events.'), ...errorResponses(400, 401) },
      },
    },
    (request) => webhooks.events(request.auth.accountId, request.query, request.auth.livemode),
  );

  app.get(
    '/events/:id',
    {
      schema: {
        operationId: 'getEvent',
        summary: 'Get one event',
        tags,
        params: EventParams,
        response: { 200: Answer(Event, 'The event.'), ...errorResponses(...READ_ERRORS) },
      },
    },
    (request) => webhooks.event(request.auth.accountId, request.params.id, request.auth.livemode),
  );
}
