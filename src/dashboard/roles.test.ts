// docs/api.md §27: every dashboard route, with every role. The table below names each route the
// app registers and who may use it; the test fails when a route is added without an entry (or an
// entry outlives its route), as the API's security suite does with scopes. Each route is then
// asked for signed out, as a member and as the owner, on a fresh session each time:
//   owner:     member 403 (the owner's words), owner let through, signed out sent to sign in;
//   member:    member and owner let through, signed out sent to sign in;
//   anonymous: nobody refused (setup, sign-in and the links from emails);
//   asset:     served to anyone.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Browser, textOf } from '../../test/support/dashboard-browser.ts';
import { appRoutes, routeKey } from '../../test/support/app-routes.ts';
import { addMember } from '../../test/support/team.ts';
import { createAccount, createTestContext, type TestAccount, type TestContext } from '../../test/support/test-app.ts';
import { assetUrl } from './assets.ts';
import type { Access } from './page.ts';

/** Every dashboard route and who may use it. A new route must be added here. */
const ACCESS: Record<string, Access> = {
  'GET /dashboard': 'member',
  'GET /dashboard/': 'member',
  'GET /dashboard/assets/:file': 'asset',
  'GET /dashboard/setup': 'anonymous',
  'POST /dashboard/setup': 'anonymous',
  'GET /dashboard/sign-in': 'anonymous',
  'POST /dashboard/sign-in': 'anonymous',
  'GET /dashboard/sign-in/code': 'anonymous',
  'POST /dashboard/sign-in/code': 'anonymous',
  'POST /dashboard/sign-out': 'member',
  'GET /dashboard/forgot-password': 'anonymous',
  'POST /dashboard/forgot-password': 'anonymous',
  'GET /dashboard/forgot-password/sent': 'anonymous',
  'GET /dashboard/reset-password': 'anonymous',
  'POST /dashboard/reset-password': 'anonymous',
  'GET /dashboard/invitations/accept': 'anonymous',
  'POST /dashboard/invitations/accept': 'anonymous',
  'GET /dashboard/account': 'member',
  'GET /dashboard/account/two-factor': 'member',
  'POST /dashboard/account/two-factor': 'member',
  'POST /dashboard/account/two-factor/disable': 'member',
  'POST /dashboard/settings/password': 'member',
  // Galleries and clients (docs/api.md §27): everyone on the team. Fastify's router names a
  // parameter shared by two routes with both names.
  'GET /dashboard/clients': 'member',
  'POST /dashboard/clients': 'member',
  'GET /dashboard/clients/new': 'member',
  'GET /dashboard/clients/:client_id|:id': 'member',
  'POST /dashboard/clients/:client_id|:id': 'member',
  'GET /dashboard/clients/:client_id|:id/delete': 'member',
  'POST /dashboard/clients/:client_id|:id/delete': 'member',
  'POST /dashboard/clients/:client_id|:id/galleries/:listing_id/resend': 'member',
  'POST /dashboard/clients/:client_id|:id/galleries': 'member',
  'POST /dashboard/clients/:client_id|:id/galleries/new': 'member',
  'POST /dashboard/clients/:client_id|:id/portal/rotate': 'member',
  'GET /dashboard/galleries': 'member',
  'POST /dashboard/galleries': 'member',
  'GET /dashboard/galleries/new': 'member',
  'GET /dashboard/galleries/:listing_id|:id': 'member',
  'POST /dashboard/galleries/:listing_id|:id': 'member',
  'POST /dashboard/galleries/:listing_id|:id/tours': 'member',
  'POST /dashboard/galleries/:listing_id|:id/assign': 'member',
  'GET /dashboard/galleries/:listing_id|:id/delete': 'member',
  'POST /dashboard/galleries/:listing_id|:id/delete': 'member',
  'POST /dashboard/galleries/:listing_id|:id/link': 'member',
  'POST /dashboard/galleries/:listing_id|:id/media': 'member',
  'POST /dashboard/galleries/:listing_id|:id/media/bulk': 'member',
  'POST /dashboard/galleries/:listing_id|:id/media/suggested-order': 'member',
  'GET /dashboard/galleries/:listing_id|:id/media/:media_id': 'member',
  'POST /dashboard/galleries/:listing_id|:id/media/:media_id': 'member',
  'POST /dashboard/galleries/:listing_id|:id/media/:media_id/cover': 'member',
  'POST /dashboard/galleries/:listing_id|:id/media/:media_id/delete': 'member',
  'GET /dashboard/galleries/:listing_id|:id/media/:media_id/thumb': 'member',
  'POST /dashboard/galleries/:listing_id|:id/order': 'member',
  'POST /dashboard/galleries/:listing_id|:id/property-page': 'member',
  'POST /dashboard/galleries/:listing_id|:id/property-page/delete': 'member',
  'POST /dashboard/galleries/:listing_id|:id/unassign': 'member',
  'POST /dashboard/galleries/:listing_id|:id/share-links': 'member',
  'POST /dashboard/galleries/:listing_id|:id/share-links/:share_link_id': 'member',
  'POST /dashboard/galleries/:listing_id|:id/share-links/:share_link_id/notify': 'member',
  'POST /dashboard/galleries/:listing_id|:id/share-links/:share_link_id/rotate': 'member',
  'GET /dashboard/galleries/:listing_id|:id/share-links/:share_link_id/delete': 'member',
  'POST /dashboard/galleries/:listing_id|:id/share-links/:share_link_id/delete': 'member',
  // docs/api.md §32: the listing kit is gallery work: build it, see and download its items.
  'POST /dashboard/galleries/:listing_id|:id/kit': 'member',
  'GET /dashboard/galleries/:listing_id|:id/kit/:name': 'member',
  // Resumable uploads (tus) for the gallery page's script: the form token in X-CSRF-Token.
  'OPTIONS /dashboard/galleries/:listing_id|:id/uploads': 'member',
  'POST /dashboard/galleries/:listing_id|:id/uploads': 'member',
  'PATCH /dashboard/galleries/:listing_id|:id/uploads/:upload_id': 'member',
  'DELETE /dashboard/galleries/:listing_id|:id/uploads/:upload_id': 'member',
  // docs/api.md §31: anyone who edits a gallery chooses its MLS profile (and sees its report).
  'POST /dashboard/galleries/:listing_id|:id/mls-profile': 'member',
  // Billing (docs/api.md §29) is the owner's, as the studio's settings are: §27 gives a member
  // galleries and clients only. A member's gallery page has no Invoices card.
  'GET /dashboard/products': 'owner',
  'POST /dashboard/products': 'owner',
  'GET /dashboard/products/new': 'owner',
  'GET /dashboard/products/:id': 'owner',
  'POST /dashboard/products/:id': 'owner',
  'POST /dashboard/products/:id/active': 'owner',
  'GET /dashboard/products/:id/delete': 'owner',
  'POST /dashboard/products/:id/delete': 'owner',
  'GET /dashboard/invoices': 'owner',
  'GET /dashboard/invoices/:id': 'owner',
  'POST /dashboard/invoices/:id': 'owner',
  'GET /dashboard/invoices/:id/pdf': 'owner',
  'POST /dashboard/invoices/:id/issue': 'owner',
  'GET /dashboard/invoices/:id/delete': 'owner',
  'POST /dashboard/invoices/:id/delete': 'owner',
  'GET /dashboard/invoices/:id/void': 'owner',
  'POST /dashboard/invoices/:id/void': 'owner',
  'POST /dashboard/invoices/:id/payments': 'owner',
  'POST /dashboard/galleries/:listing_id|:id/invoices': 'owner',
  'GET /dashboard/settings': 'owner',
  'GET /dashboard/settings/api': 'owner',
  'POST /dashboard/settings/api': 'owner',
  'GET /dashboard/settings/api/:id/revoke': 'owner',
  'POST /dashboard/settings/api/:id/revoke': 'owner',
  'GET /dashboard/settings/api/test-data/delete': 'owner',
  'POST /dashboard/settings/api/test-data/delete': 'owner',
  'GET /dashboard/settings/studio': 'owner',
  'POST /dashboard/settings/studio': 'owner',
  'POST /dashboard/settings/rooms': 'owner',
  // docs/api.md §31: the MLS profiles are the studio's settings.
  'GET /dashboard/settings/mls': 'owner',
  'POST /dashboard/settings/mls': 'owner',
  'GET /dashboard/settings/mls/new': 'owner',
  'GET /dashboard/settings/mls/:id': 'owner',
  'POST /dashboard/settings/mls/:id': 'owner',
  'GET /dashboard/settings/mls/:id/delete': 'owner',
  'POST /dashboard/settings/mls/:id/delete': 'owner',
  // docs/api.md §29: the watermark logo (the upload is multipart, its token first).
  'GET /dashboard/settings/studio/logo': 'owner',
  'POST /dashboard/settings/studio/logo': 'owner',
  'POST /dashboard/settings/studio/logo/delete': 'owner',
  // docs/api.md §32: the kit's music track (multipart, its token first, as the logo).
  'GET /dashboard/settings/studio/music': 'owner',
  'POST /dashboard/settings/studio/music': 'owner',
  'POST /dashboard/settings/studio/music/delete': 'owner',
  'POST /dashboard/settings/studio/paper': 'owner',
  'POST /dashboard/settings/stripe': 'owner',
  'POST /dashboard/settings/stripe/off': 'owner',
  'GET /dashboard/settings/webhooks': 'owner',
  'POST /dashboard/settings/webhooks': 'owner',
  'POST /dashboard/settings/webhooks/:id/enable': 'owner',
  'POST /dashboard/settings/webhooks/:id/disable': 'owner',
  'POST /dashboard/settings/webhooks/:id/rotate': 'owner',
  'POST /dashboard/settings/webhooks/:id/test': 'owner',
  'POST /dashboard/settings/webhooks/:id/deliveries/:delivery_id/retry': 'owner',
  'GET /dashboard/settings/webhooks/:id/delete': 'owner',
  'POST /dashboard/settings/webhooks/:id/delete': 'owner',
  'GET /dashboard/settings/team': 'owner',
  'POST /dashboard/settings/team': 'owner',
  'POST /dashboard/settings/team/invitations/:id/revoke': 'owner',
  'GET /dashboard/settings/team/:id/remove': 'owner',
  'POST /dashboard/settings/team/:id/remove': 'owner',
  'POST /dashboard/settings/team/:id/reset-2fa': 'owner',
};

/** A path of the route: parameters filled with ids of the right shape that name nothing. */
function pathOf(url: string): string {
  if (url === '/dashboard/assets/:file') return assetUrl('dashboard.css');
  return url.replace(/:([a-z_]+)(?:\|:[a-z_]+)*/g, (_m, name: string) => {
    const prefix: Record<string, string> = {
      client_id: 'cli',
      listing_id: 'lst',
      delivery_id: 'whd',
      media_id: 'med',
      upload_id: 'upl',
    };
    const owner: string =
      prefix[name] ??
      (url.startsWith('/dashboard/products/')
        ? 'prd'
        : url.startsWith('/dashboard/invoices/')
          ? 'ivc'
          : url.includes('/team/invitations/')
            ? 'inv'
            : url.includes('/team/')
              ? 'usr'
              : url.includes('/webhooks/')
                ? 'whe'
                : 'key');
    return `${owner}_00000000000000000000000000`;
  });
}

const PASSWORD = 'correct horse battery';
const OWNER_WORDS = /That page is the studio owner's/;

let ctx: TestContext;
let studio: TestAccount;
let memberId: string;

before(async () => {
  ctx = await createTestContext();
  studio = await createAccount(ctx, 'Harbour Light');
  memberId = (await addMember(ctx, studio.accountId, 'assistant@harbour.test', PASSWORD)).id;
});
after(() => ctx.close());

/** A browser signed in as `userId` on a fresh session (no password: the route is under test). */
async function signedIn(userId: string): Promise<{ browser: Browser; csrf: string }> {
  const browser = new Browser(ctx.app);
  const { token, session } = await ctx.services.sessions.create(studio.accountId, userId);
  browser.cookies.set('lbx_session', token);
  return { browser, csrf: session.csrfToken };
}

async function ask(route: { method: string; url: string }, who: 'anonymous' | 'member' | 'owner') {
  const path = pathOf(route.url);
  const { browser, csrf } =
    who === 'anonymous'
      ? { browser: new Browser(ctx.app), csrf: undefined }
      : await signedIn(who === 'owner' ? studio.userId : memberId);
  if (route.method === 'GET') return browser.get(path);
  if (route.method !== 'POST') {
    // The upload routes' methods: the session's form token goes in X-CSRF-Token.
    return ctx.app.inject({
      method: route.method as 'PATCH' | 'DELETE' | 'OPTIONS',
      url: path,
      remoteAddress: browser.address,
      headers: {
        cookie: browser.cookieHeader(),
        origin: 'http://localhost',
        'sec-fetch-site': 'same-origin',
        'tus-resumable': '1.0.0',
        ...(csrf === undefined ? {} : { 'x-csrf-token': csrf }),
      },
    });
  }
  if (ACCESS[routeKey(route)] === 'anonymous' || csrf === undefined) {
    // The forms before sign-in carry the token of their own cookie, which this page sets.
    await browser.get('/dashboard/forgot-password');
    return browser.post(path, {});
  }
  return browser.post(path, {}, { csrf, headers: { 'x-csrf-token': csrf, 'tus-resumable': '1.0.0' } });
}

describe('every dashboard route, by role', () => {
  test('the table names every dashboard route the app registers, and no other', () => {
    const registered = appRoutes(ctx.app)
      .filter((r) => r.url.startsWith('/dashboard') && r.method !== 'HEAD')
      .map(routeKey);
    const missing = registered.filter((k) => !(k in ACCESS));
    const stale = Object.keys(ACCESS).filter((k) => !registered.includes(k));
    assert.deepEqual(missing, [], 'routes without an entry in ACCESS: say who may use them');
    assert.deepEqual(stale, [], 'entries in ACCESS for routes that no longer exist');
  });

  test('each route answers each role as its access says', async () => {
    const routes = appRoutes(ctx.app).filter((r) => r.url.startsWith('/dashboard') && r.method !== 'HEAD');
    for (const route of routes) {
      const access = ACCESS[routeKey(route)];
      const name = `${routeKey(route)} (${access})`;
      const signedOut = await ask(route, 'anonymous');
      const member = await ask(route, 'member');
      const owner = await ask(route, 'owner');
      if (access === 'owner' || access === 'member') {
        assert.equal(signedOut.statusCode, 303, `${name}, signed out`);
        assert.match(String(signedOut.headers.location), /^\/dashboard\/sign-in/, `${name}, signed out`);
      } else {
        assert.notEqual(signedOut.statusCode, 403, `${name}, signed out`);
      }
      for (const [who, res] of [
        ['member', member],
        ['owner', owner],
      ] as const) {
        const refused = access === 'owner' && who === 'member';
        if (refused) {
          assert.equal(res.statusCode, 403, `${name}, as ${who}`);
          assert.match(textOf(res.body), OWNER_WORDS, `${name}, as ${who}`);
          // The refusal's page frame is a member's: no link to the owner's pages.
          assert.doesNotMatch(res.body, /href="\/dashboard\/settings\/(api|webhooks|team|studio)"/, name);
        } else {
          assert.notEqual(res.statusCode, 403, `${name}, as ${who}: ${textOf(res.body).slice(0, 200)}`);
          assert.doesNotMatch(textOf(res.body), OWNER_WORDS, `${name}, as ${who}`);
          if (access !== 'anonymous' && access !== 'asset') {
            // Not sent to sign in (sign-out's own redirect there says it signed out).
            const to = res.headers.location ?? '';
            assert.ok(
              !['/dashboard/sign-in', '/dashboard/sign-in?notice=session-ended'].includes(to),
              `${name}, as ${who}`,
            );
          }
        }
      }
    }
  });

  test("a member's navigation and overview show no keys, webhooks, team or studio settings; the owner's do", async () => {
    const member = (await signedIn(memberId)).browser;
    const page = await member.get('/dashboard');
    assert.equal(page.statusCode, 200);
    for (const path of [
      '/dashboard/settings/api',
      '/dashboard/settings/webhooks',
      '/dashboard/settings/team',
      '/dashboard/settings/studio',
      '/dashboard/invoices',
    ]) {
      assert.ok(!page.body.includes(`href="${path}"`), `a member sees a link to ${path}`);
    }
    assert.doesNotMatch(textOf(page.body), /API keys/);
    assert.match(page.body, /href="\/dashboard\/account"/);
    const owner = (await signedIn(studio.userId)).browser;
    const own = await owner.get('/dashboard');
    for (const path of [
      '/dashboard/settings/api',
      '/dashboard/settings/webhooks',
      '/dashboard/settings/team',
      '/dashboard/settings/studio',
      '/dashboard/invoices',
    ]) {
      assert.ok(own.body.includes(`href="${path}"`), `the owner sees no link to ${path}`);
    }
  });
});
