// The overview's assignments panel: Resend sends a gallery's email to its client again, through
// the same service call as POST /v1/clients/:id/listings/:listing_id/notify.
import type { App } from '../http/types.ts';
import { PAGE_ROUTE, viewerOf, type DashboardContext } from './page.ts';
import { AppError } from '../errors.ts';
import { formOf, hasErrors, schemaFieldErrors } from './form.ts';
import { ClientLinkUpdateBody, type ClientLinkUpdateInput } from '../modules/listings/listings.schemas.ts';

const MEMBER = { dashboard: 'member' } as const;

export function registerAssignmentRoutes(scope: App, ctx: DashboardContext): void {
  const { services } = ctx;

  scope.post(
    '/clients/:client_id/galleries/:listing_id/resend',
    { config: MEMBER, schema: PAGE_ROUTE },
    async (request, reply) => {
      const { account } = viewerOf(request);
      const { client_id: clientId, listing_id: listingId } = request.params as {
        client_id: string;
        listing_id: string;
      };
      // Another account's client or gallery, or one no longer assigned to that client: the 404 page.
      await services.clients.notify(account.id, clientId, listingId);
      // Back where the button was: the gallery's page, or the top of the overview, with the notice.
      if (formOf(request.body)?.get('back') === 'gallery') {
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
