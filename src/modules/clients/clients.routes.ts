import type { App } from '../../http/types.ts';
import { Answer, ErrorAnswer, errorResponses, NoContent, READ_ERRORS, WRITE_ERRORS } from '../../http/schemas.ts';
import { Listing } from '../listings/listings.schemas.ts';
import { Notification } from '../notifications/notifications.schemas.ts';
import {
  AssignQuery,
  Client,
  ClientCreateBody,
  ClientList,
  ClientListingList,
  ClientListingsQuery,
  ClientListingParams,
  ClientListQuery,
  ClientParams,
  ClientUpdateBody,
} from './clients.schemas.ts';
import type { ClientsService } from './clients.service.ts';

const tags = ['Clients'];

const DUPLICATE_EMAIL = ErrorAnswer(
  'Conflict (`conflict`): another client of this account has this email; or the Idempotency-Key was used ' +
    'for a different request, or that request is still running.',
);

export function registerClientsRoutes(app: App, { clients }: { clients: ClientsService }): void {
  app.get(
    '/clients',
    {
      schema: {
        operationId: 'listClients',
        summary: 'List clients, newest first, optionally searching name and email',
        tags,
        querystring: ClientListQuery,
        response: { 200: Answer(ClientList, 'A page of clients, newest first.'), ...errorResponses(400, 401) },
      },
    },
    (request) => clients.list(request.auth.accountId, request.query),
  );

  app.post(
    '/clients',
    {
      schema: {
        operationId: 'createClient',
        summary: 'Create a client',
        tags,
        body: ClientCreateBody,
        response: {
          201: Answer(Client, 'Created: the new client.'),
          ...errorResponses(400, 401, 403, 413, 415),
          409: DUPLICATE_EMAIL,
        },
      },
    },
    async (request, reply) => {
      const client = await clients.create(request.auth.accountId, request.body);
      return reply.code(201).header('location', `/v1/clients/${client.id}`).send(client);
    },
  );

  app.get(
    '/clients/:id',
    {
      schema: {
        operationId: 'getClient',
        summary: 'Get a client with their galleries',
        tags,
        params: ClientParams,
        response: { 200: Answer(Client, 'The client, with their galleries.'), ...errorResponses(...READ_ERRORS) },
      },
    },
    (request) => clients.get(request.auth.accountId, request.params.id),
  );

  app.patch(
    '/clients/:id',
    {
      schema: {
        operationId: 'updateClient',
        summary: 'Change some fields of a client',
        tags,
        params: ClientParams,
        body: ClientUpdateBody,
        response: {
          200: Answer(Client, 'The client, as changed.'),
          ...errorResponses(...WRITE_ERRORS),
          409: DUPLICATE_EMAIL,
        },
      },
    },
    (request) => clients.update(request.auth.accountId, request.params.id, request.body),
  );

  app.delete(
    '/clients/:id',
    {
      schema: {
        operationId: 'deleteClient',
        summary: 'Delete a client; their galleries stay, unassigned',
        tags,
        params: ClientParams,
        response: {
          204: NoContent('No content: the client is deleted; their galleries stay, unassigned.'),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      await clients.remove(request.auth.accountId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/clients/:id/portal/rotate',
    {
      schema: {
        operationId: 'rotateClientPortal',
        summary: "Replace the client's portal link",
        description:
          "A new token for the client's portal (docs/api.md §28): the old `portal_url` stops working at once " +
          '(404). The gallery links are not changed.',
        tags,
        params: ClientParams,
        response: {
          200: Answer(Client, 'The client, with its new `portal_url`.'),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    (request) => clients.rotatePortal(request.auth.accountId, request.params.id),
  );

  app.get(
    '/clients/:id/listings',
    {
      schema: {
        operationId: 'listClientListings',
        summary: 'All galleries assigned to a client, newest first',
        tags,
        description:
          'Without `page`, `limit` and `cursor`, every gallery at once (`next_cursor` null); with any of them, a ' +
          'page as other lists page (docs/api.md §19).',
        params: ClientParams,
        querystring: ClientListingsQuery,
        response: {
          200: Answer(ClientListingList, "The client's galleries, newest first."),
          ...errorResponses(...READ_ERRORS),
        },
      },
    },
    (request) => clients.listListings(request.auth.accountId, request.params.id, request.query),
  );

  app.post(
    '/clients/:id/listings/:listing_id',
    {
      schema: {
        operationId: 'assignListing',
        summary: 'Assign a gallery to a client and email them',
        description:
          "The gallery's client becomes this client (replacing any earlier one), the client gets the gallery's " +
          "link (`client_link`; an earlier client's link stops working) and a notification email carrying it is " +
          'queued in the same transaction, then sent in the background (`?notify=false` assigns without an ' +
          'email). Assigning a gallery to the client it already has changes nothing and sends nothing.',
        tags,
        params: ClientListingParams,
        querystring: AssignQuery,
        response: {
          200: Answer(Listing, 'The gallery, assigned to the client (the email is queued).'),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    (request) =>
      clients.assign(request.auth.accountId, request.params.id, request.params.listing_id, {
        notify: request.query.notify,
      }),
  );

  app.post(
    '/clients/:id/listings/:listing_id/notify',
    {
      schema: {
        operationId: 'notifyClient',
        summary: "Send the gallery's email to its client again",
        description:
          'Queues a new notification email (with the link as it is when sent). 404 unless the gallery is ' +
          'assigned to that client.',
        tags,
        params: ClientListingParams,
        response: {
          202: Answer(Notification, 'Accepted: the new notification, queued.'),
          ...errorResponses(401, 403),
          404: ErrorAnswer(
            'No client or gallery with these ids in this account, or the gallery is not assigned to this client ' +
              '(`not_found`).',
          ),
        },
      },
    },
    async (request, reply) => {
      const notification = await clients.notify(request.auth.accountId, request.params.id, request.params.listing_id);
      return reply.code(202).send(notification);
    },
  );

  app.delete(
    '/clients/:id/listings/:listing_id',
    {
      schema: {
        operationId: 'unassignListing',
        summary: 'Unassign a gallery from a client',
        description:
          '404 when the gallery is not assigned to this client. An unsent notification about it is cancelled.',
        tags,
        params: ClientListingParams,
        response: {
          204: NoContent('No content: the gallery is no longer assigned to the client.'),
          ...errorResponses(401, 403),
          404: ErrorAnswer(
            'No client or gallery with these ids in this account, or the gallery is not assigned to this client ' +
              '(`not_found`).',
          ),
        },
      },
    },
    async (request, reply) => {
      await clients.unassign(request.auth.accountId, request.params.id, request.params.listing_id);
      return reply.code(204).send(null);
    },
  );
}
