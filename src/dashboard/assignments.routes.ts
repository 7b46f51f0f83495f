// The overview's assignments panel: Resend sends a gallery's email to its client again, through
// the same service call as POST /v1/clients/:id/listings/:listing_id/notify.
import type { App } from '../http/types.ts';
import { PAGE_ROUTE, viewerOf, type DashboardContext } from './respond.ts';

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
      // Back to the top of the overview, where the notice says it is done.
      return reply.redirect('/dashboard?notice=email-resent', 303);
    },
  );
}
