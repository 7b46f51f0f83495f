// docs/api.md §28: /v1/listings/:id/share_links, a gallery's share links and what was chosen at each.
import type { App } from '../../http/types.ts';
import { Answer, errorResponses, NoContent, READ_ERRORS, WRITE_ERRORS } from '../../http/schemas.ts';
import { Notification } from '../notifications/notifications.schemas.ts';
import { ListingParams } from '../listings/listings.schemas.ts';
import {
  Favorites,
  ShareLink,
  ShareLinkCreateBody,
  ShareLinkList,
  ShareLinkListQuery,
  ShareLinkParams,
  ShareLinkUpdateBody,
} from './share-links.schemas.ts';
import type { ShareLinksService } from './share-links.service.ts';

const tags = ['Share links'];

export function registerShareLinksRoutes(app: App, { shareLinks }: { shareLinks: ShareLinksService }): void {
  app.post(
    '/listings/:id/share_links',
    {
      schema: {
        operationId: 'createShareLink',
        summary: 'Create a share link',
        description:
          "A link to the gallery besides its client's (at most 50 per gallery; a 51st is 409), with its own " +
          'label, controls, selection bounds and counters. With `email`, the link is emailed to that address ' +
          '(a notification with `share_link_id` set).',
        tags,
        params: ListingParams,
        body: ShareLinkCreateBody,
        response: {
          201: Answer(ShareLink, 'Created: the new share link.'),
          ...errorResponses(...WRITE_ERRORS, 409),
        },
      },
    },
    async (request, reply) => {
      const link = await shareLinks.create(request.auth.accountId, request.params.id, request.body);
      return reply.code(201).header('location', `/v1/listings/${request.params.id}/share_links/${link.id}`).send(link);
    },
  );

  app.get(
    '/listings/:id/share_links',
    {
      schema: {
        operationId: 'listShareLinks',
        summary: "List a gallery's share links, newest first",
        tags,
        params: ListingParams,
        querystring: ShareLinkListQuery,
        response: {
          200: Answer(ShareLinkList, "A page of the gallery's share links."),
          ...errorResponses(...READ_ERRORS),
        },
      },
    },
    (request) => shareLinks.list(request.auth.accountId, request.params.id, request.query),
  );

  app.get(
    '/listings/:id/share_links/:share_link_id',
    {
      schema: {
        operationId: 'getShareLink',
        summary: 'Get a share link',
        tags,
        params: ShareLinkParams,
        response: { 200: Answer(ShareLink, 'The share link.'), ...errorResponses(...READ_ERRORS) },
      },
    },
    (request) => shareLinks.get(request.auth.accountId, request.params.id, request.params.share_link_id),
  );

  app.patch(
    '/listings/:id/share_links/:share_link_id',
    {
      schema: {
        operationId: 'updateShareLink',
        summary: 'Change some fields of a share link',
        description: 'Any field but `email`. Changing or removing the password makes every browser ask again.',
        tags,
        params: ShareLinkParams,
        body: ShareLinkUpdateBody,
        response: { 200: Answer(ShareLink, 'The share link, as changed.'), ...errorResponses(...WRITE_ERRORS) },
      },
    },
    (request) =>
      shareLinks.update(request.auth.accountId, request.params.id, request.params.share_link_id, request.body),
  );

  app.delete(
    '/listings/:id/share_links/:share_link_id',
    {
      schema: {
        operationId: 'deleteShareLink',
        summary: 'Delete a share link',
        description: 'The link stops working at once; its email, if not yet sent, is cancelled.',
        tags,
        params: ShareLinkParams,
        response: { 204: NoContent('No content: the share link is deleted.'), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await shareLinks.delete(request.auth.accountId, request.params.id, request.params.share_link_id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/listings/:id/share_links/:share_link_id/rotate',
    {
      schema: {
        operationId: 'rotateShareLink',
        summary: "Replace a share link's token",
        description: 'The old URL stops at once; the counters, favorites and comments are kept.',
        tags,
        params: ShareLinkParams,
        response: { 200: Answer(ShareLink, 'The share link with its new URL.'), ...errorResponses(401, 403, 404) },
      },
    },
    (request) => shareLinks.rotate(request.auth.accountId, request.params.id, request.params.share_link_id),
  );

  app.post(
    '/listings/:id/share_links/:share_link_id/notify',
    {
      schema: {
        operationId: 'notifyShareLink',
        summary: 'Email a share link to its recipient again',
        description: "Queues a new notification to the link's `email`; 409 when the link has none.",
        tags,
        params: ShareLinkParams,
        response: {
          202: Answer(Notification, "Accepted: the new notification to the link's recipient, queued."),
          ...errorResponses(401, 403, 404, 409),
        },
      },
    },
    async (request, reply) => {
      const notification = await shareLinks.notify(
        request.auth.accountId,
        request.params.id,
        request.params.share_link_id,
      );
      return reply.code(202).send(notification);
    },
  );

  app.get(
    '/listings/:id/share_links/:share_link_id/favorites',
    {
      schema: {
        operationId: 'getShareLinkFavorites',
        summary: 'The photos marked and the comments written at a share link',
        tags,
        params: ShareLinkParams,
        response: { 200: Answer(Favorites, 'The selection at the share link.'), ...errorResponses(...READ_ERRORS) },
      },
    },
    (request) => shareLinks.favorites(request.auth.accountId, request.params.id, request.params.share_link_id),
  );
}
