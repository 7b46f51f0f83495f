import type { App } from '../../http/types.ts';
import { Answer, ErrorAnswer, errorResponses, NoContent, READ_ERRORS, WRITE_ERRORS } from '../../http/schemas.ts';
import {
  Listing,
  ListingCreateBody,
  ListingList,
  ListingListQuery,
  ListingParams,
  ListingUpdateBody,
  ClientLinkUpdateBody,
  Favorites,
} from './listings.schemas.ts';
import type { ListingsService } from './listings.service.ts';

const tags = ['Galleries'];

export function registerListingsRoutes(app: App, { listings }: { listings: ListingsService }): void {
  app.get(
    '/listings',
    {
      schema: {
        operationId: 'listListings',
        summary: 'List galleries, newest first',
        tags,
        querystring: ListingListQuery,
        response: { 200: Answer(ListingList, 'A page of galleries, newest first.'), ...errorResponses(400, 401) },
      },
    },
    (request) => listings.list(request.auth.accountId, request.query),
  );

  app.post(
    '/listings',
    {
      schema: {
        operationId: 'createListing',
        summary: 'Create a gallery',
        tags,
        body: ListingCreateBody,
        response: { 201: Answer(Listing, 'Created: the new gallery.'), ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) => {
      const listing = await listings.create(request.auth.accountId, request.body);
      return reply.code(201).header('location', `/v1/listings/${listing.id}`).send(listing);
    },
  );

  app.get(
    '/listings/:id',
    {
      schema: {
        operationId: 'getListing',
        summary: 'Get a gallery',
        tags,
        params: ListingParams,
        response: { 200: Answer(Listing, 'The gallery.'), ...errorResponses(...READ_ERRORS) },
      },
    },
    (request) => listings.get(request.auth.accountId, request.params.id),
  );

  app.patch(
    '/listings/:id',
    {
      schema: {
        operationId: 'updateListing',
        summary: 'Change some fields of a gallery',
        tags,
        params: ListingParams,
        body: ListingUpdateBody,
        response: { 200: Answer(Listing, 'The gallery, as changed.'), ...errorResponses(...WRITE_ERRORS) },
      },
    },
    (request) => listings.update(request.auth.accountId, request.params.id, request.body),
  );

  app.delete(
    '/listings/:id',
    {
      schema: {
        operationId: 'deleteListing',
        summary: 'Delete a gallery and all its media',
        tags,
        params: ListingParams,
        response: {
          204: NoContent('No content: the gallery and its media are deleted, its unsent emails cancelled.'),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      await listings.remove(request.auth.accountId, request.params.id, request.log);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/listings/:id/client_link',
    {
      schema: {
        operationId: 'replaceClientLink',
        summary: "Replace the gallery's client link",
        description:
          'A new token: the old link stops working at once; the views and downloads are kept. 409 `conflict` ' +
          'when the gallery has no client.',
        tags,
        params: ListingParams,
        response: {
          200: Answer(Listing, 'The gallery, with its new client link.'),
          409: ErrorAnswer('The gallery has no client, so no link (`conflict`).'),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    (request) => listings.rotateClientLink(request.auth.accountId, request.params.id),
  );

  app.patch(
    '/listings/:id/client_link',
    {
      schema: {
        operationId: 'updateClientLink',
        summary: "Set the client link's expiry, password and downloads",
        description:
          'Any of `expires_at` (a future time, or null), `password` (8..200 characters, or null to remove it; ' +
          'never returned) and `downloads_enabled`. Changing or removing the password makes every browser ask ' +
          'again. 409 `conflict` when the gallery has no client.',
        tags,
        params: ListingParams,
        body: ClientLinkUpdateBody,
        response: {
          200: Answer(Listing, 'The gallery, with its link as it now is.'),
          409: ErrorAnswer('The gallery has no client, so no link (`conflict`).'),
          ...errorResponses(400, 401, 403, 404, 413, 415),
        },
      },
    },
    (request) => listings.updateClientLink(request.auth.accountId, request.params.id, request.body),
  );

  app.put(
    '/listings/:id/property_page',
    {
      schema: {
        operationId: 'publishPropertyPage',
        summary: 'Publish the gallery as its public property pages',
        description:
          'Two public pages of the property: `url` names the studio, `unbranded_url` shows nothing that names or ' +
          'links to the studio, for listing services that forbid branding. Neither offers originals or a ZIP. ' +
          'Publishing a published gallery changes nothing. 409 `conflict` unless the gallery is `active`; ' +
          'archiving or deleting it takes the pages down.',
        tags,
        params: ListingParams,
        response: {
          200: Answer(Listing, 'The gallery, with its `property_page`.'),
          409: ErrorAnswer('The gallery is not active (`conflict`).'),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    (request) => listings.publishPropertyPage(request.auth.accountId, request.params.id),
  );

  app.delete(
    '/listings/:id/property_page',
    {
      schema: {
        operationId: 'unpublishPropertyPage',
        summary: "Take the gallery's property pages down",
        description:
          'Both URLs stop working at once; publishing again gives new ones. Answers 204 whether or not the gallery ' +
          'was published.',
        tags,
        params: ListingParams,
        response: {
          204: NoContent('No content: the gallery is not published.'),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      await listings.unpublishPropertyPage(request.auth.accountId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/listings/:id/favorites',
    {
      schema: {
        operationId: 'getListingFavorites',
        summary: "The photos the gallery's client marked as favorites",
        description:
          'The selection as the client left it on the gallery page: `media_ids` in position order, the note sent ' +
          'with it, when it was last sent and last changed. Empty when the gallery has no client.',
        tags,
        params: ListingParams,
        response: { 200: Answer(Favorites, "The client's selection."), ...errorResponses(401, 404) },
      },
    },
    (request) => listings.favorites(request.auth.accountId, request.params.id),
  );
}
