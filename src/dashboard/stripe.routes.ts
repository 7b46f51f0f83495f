// Settings > Studio > Online payment (docs/api.md §29): the owner's Stripe keys, taken and sealed
// (never shown again), or cleared (online payment off).
import type { App } from '../http/types.ts';
import { MIN_PASSWORD_LENGTH } from '../modules/accounts/accounts.service.ts';
import { fieldErrors, formFields } from './form.ts';
import { PAGE_ROUTE, sendPage, viewerOf, type DashboardContext } from './page.ts';
import { studioPage } from './views/studio.ts';

/** docs/api.md §27: the studio's settings are the owner's. */
const OWNER = { dashboard: 'owner' } as const;

export function registerStripeSettingsRoutes(scope: App, { services }: DashboardContext): void {
  scope.post('/settings/stripe', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const form = formFields(request.body);
    const secretKey = form.get('secret_key').trim();
    const webhookSecret = form.get('webhook_secret').trim();
    let refused = null;
    if (secretKey === '' || webhookSecret === '') {
      refused = {
        ...(secretKey === '' ? { secret_key: 'Enter your Stripe secret key' } : {}),
        ...(webhookSecret === '' ? { webhook_secret: 'Enter the signing secret of the webhook endpoint' } : {}),
      };
    } else {
      try {
        await services.stripe.configure(account.id, { secretKey, webhookSecret });
      } catch (err) {
        refused = fieldErrors(err);
        if (refused === null) throw err;
      }
    }
    if (refused === null) return reply.redirect('/dashboard/settings/studio?notice=stripe-on', 303);
    // Nothing typed is sent back: the fields come back empty, with what to fix.
    return sendPage(
      reply,
      studioPage({
        team: (await services.team.list(account.id)).users,
        viewer,
        email: account.email,
        values: { name: account.name, sender_name: account.sender_name ?? '', currency: account.currency },
        minPassword: MIN_PASSWORD_LENGTH,
        roomOrder: await services.accounts.roomOrder(account.id),
        stripe: { status: await services.stripe.status(account.id), errors: refused },
      }),
      400,
    );
  });

  scope.post('/settings/stripe/off', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    await services.stripe.configure(account.id, null);
    return reply.redirect('/dashboard/settings/studio?notice=stripe-off', 303);
  });
}
