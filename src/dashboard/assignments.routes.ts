// Assigning a gallery from its page, and unassigning it; Resend (the overview's assignments panel,
// a gallery's page) sends a gallery's email to its client again, through the same service call as
// POST /v1/clients/:id/listings/:listing_id/notify. A draft is emailed only once confirmed.
import type { App } from '../http/types.ts';
import { PAGE_ROUTE, sendPage, viewerOf, type DashboardContext } from './page.ts';
import { AppError } from '../errors.ts';
import { hasIdShape } from '../lib/ids.ts';
import { ClientCreateBody } from '../modules/clients/clients.schemas.ts';
import { formFields, formOf, hasErrors, schemaFieldErrors, type FormBody } from './form.ts';
import { CONFIRM_DRAFT, draftEmailPage, draftEmailUnconfirmed } from './views/draft-email.ts';
import { ClientLinkUpdateBody, type ClientLinkUpdateInput } from '../modules/listings/listings.schemas.ts';

const MEMBER = { dashboard: 'member' } as const;

/** A gallery's page, with a notice (galleries.routes.ts says its words) and where on it. */
const galleryPath = (id: string, notice?: string, anchor?: string): string =>
  `/dashboard/galleries/${id}${notice === undefined ? '' : `?notice=${notice}`}${anchor === undefined ? '' : `#${anchor}`}`;

export function registerAssignmentRoutes(scope: App, ctx: DashboardContext): void {
  const { services } = ctx;

  // Assign to a client chosen in the list, or to one named here: the client with that email, made
  // first when the studio has none (one service write: a failure leaves no client behind).
  scope.post('/galleries/:listing_id/assign', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const { listing_id: id } = request.params as { listing_id: string };
    const form = formFields(request.body);
    const notify = form.get('notify') === '1';
    const clientId = form.get('client_id');
    // The gallery first: another account's, or a deleted one, is the 404 page, whatever the form says.
    const listing = await services.listings.get(account.id, id);
    const refused = galleryPath(id, 'assign-refused', 'client');
    const client = { name: form.get('name').trim(), email: form.get('email').trim() };
    if (clientId !== '' ? !hasIdShape('cli', clientId) : hasErrors(schemaFieldErrors(ClientCreateBody, client))) {
      return reply.redirect(refused, 303);
    }
    // A draft is emailed only once confirmed (docs/api.md §27): the page asks, the form comes again.
    if (draftEmailUnconfirmed(listing.status, notify, form.get(CONFIRM_DRAFT))) {
      const chosen = clientId === '' ? null : await services.clients.get(account.id, clientId);
      return sendPage(
        reply,
        draftEmailPage({
          viewer,
          address: listing.address,
          clientName: chosen?.name ?? client.name,
          action: `${galleryPath(id)}/assign`,
          fields: request.body as FormBody,
          notifyField: 'notify',
          back: galleryPath(id, undefined, 'client'),
          section: 'galleries',
        }),
      );
    }
    const assigned = galleryPath(id, notify ? 'assigned-emailed' : 'assigned', 'client');
    if (clientId !== '') {
      await services.clients.assign(account.id, clientId, id, { notify });
      return reply.redirect(assigned, 303);
    }
    try {
      const { existing } = await services.clients.assignToClientByEmail(account.id, id, client, { notify });
      return await reply.redirect(existing ? galleryPath(id, 'assigned-existing', 'client') : assigned, 303);
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'conflict')) throw err;
      return reply.redirect(galleryPath(id, 'assign-email-taken', 'client'), 303);
    }
  });

  scope.post('/galleries/:listing_id/unassign', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const { listing_id: id } = request.params as { listing_id: string };
    const listing = await services.listings.get(account.id, id);
    if (listing.client_id !== null) await services.clients.unassign(account.id, listing.client_id, id);
    return reply.redirect(galleryPath(id, 'unassigned', 'client'), 303);
  });

  scope.post(
    '/clients/:client_id/galleries/:listing_id/resend',
    { config: MEMBER, schema: PAGE_ROUTE },
    async (request, reply) => {
      const { viewer, account } = viewerOf(request);
      const { client_id: clientId, listing_id: listingId } = request.params as {
        client_id: string;
        listing_id: string;
      };
      const form = formFields(request.body);
      const fromGallery = form.get('back') === 'gallery';
      // A draft is emailed only once confirmed (docs/api.md §27): the page asks, the form comes again.
      // Another account's gallery is the 404 page here already.
      const listing = await services.listings.get(account.id, listingId);
      if (listing.client_id === clientId && draftEmailUnconfirmed(listing.status, true, form.get(CONFIRM_DRAFT))) {
        const client = await services.clients.get(account.id, clientId);
        return sendPage(
          reply,
          draftEmailPage({
            viewer,
            address: listing.address,
            clientName: client.name,
            action: `/dashboard/clients/${clientId}/galleries/${listingId}/resend`,
            fields: request.body as FormBody,
            back: fromGallery ? `/dashboard/galleries/${listingId}#client` : '/dashboard#assignments',
            section: fromGallery ? 'galleries' : 'overview',
          }),
        );
      }
      // Another account's client, or a gallery no longer assigned to that client: the 404 page.
      await services.clients.notify(account.id, clientId, listingId);
      // Back where the button was: the gallery's page, or the top of the overview, with the notice.
      if (fromGallery) {
        return reply.redirect(`/dashboard/galleries/${listingId}?notice=email-resent#client`, 303);
      }
      return reply.redirect('/dashboard?notice=email-resent', 303);
    },
  );

  // The link controls of docs/api.md §25, through the same service call as PATCH /v1/listings/:id/client_link.
  scope.post('/galleries/:listing_id/link', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const { listing_id: listingId } = request.params as { listing_id: string };
    const form = formOf(request.body);
    // The gallery page's form comes back to the gallery; the overview's to its assignments.
    const back = (notice: string): string =>
      form?.get('back') === 'gallery'
        ? `/dashboard/galleries/${listingId}?notice=${notice}#client`
        : `/dashboard?notice=${notice}#assignments`;
    const input: ClientLinkUpdateInput = { downloads_enabled: form?.get('downloads_enabled') === '1' };
    const expiresOn = form?.get('expires_on') ?? '';
    // A day: the link works until the end of it (UTC).
    if (expiresOn === '') input.expires_at = null;
    else if (/^\d{4}-\d{2}-\d{2}$/.test(expiresOn)) input.expires_at = `${expiresOn}T23:59:59.999Z`;
    else return reply.redirect(back('link-refused'), 303);
    const password = form?.get('password') ?? '';
    if (form?.get('remove_password') === '1') input.password = null;
    else if (password !== '') input.password = password;
    // The same schema as PATCH /v1/listings/:id/client_link (a password's length, above all).
    if (hasErrors(schemaFieldErrors(ClientLinkUpdateBody, input))) return reply.redirect(back('link-refused'), 303);
    try {
      await services.listings.updateClientLink(account.id, listingId, input);
    } catch (err) {
      // Another account's gallery, or one without a client: the 404 page.
      if (err instanceof AppError && err.code === 'conflict') throw new AppError('not_found', 'No such gallery');
      if (err instanceof AppError && err.code === 'validation_error') {
        return reply.redirect(back('link-refused'), 303);
      }
      throw err;
    }
    return reply.redirect(back('link-saved'), 303);
  });
}
