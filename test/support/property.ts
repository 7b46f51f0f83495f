// Helpers for the property page suites (docs/api.md §25): an account and a client whose every
// identifying string is distinctive (so a page that leaks one is caught), a published gallery
// with photos, a hidden photo, a video and a document, and the headers every /p response carries.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { call, type Response, type TestAccount, type TestContext } from './test-app.ts';
import { jpeg, mp4, pdf } from './media-fixtures.ts';
import { makeVariantsNow, uploaded, type MediaJson } from './media-helpers.ts';
import { patchMedia } from './gallery-order.ts';

export interface PropertyPageJson {
  url: string;
  unbranded_url: string;
  published_at: string;
  views: number;
}

/** Strings that name the studio or anyone else: none may reach the unbranded page. */
export const BRAND = {
  studio: 'Zephyrquill Atelier',
  sender: 'Marigold Vexley Sends',
  email: 'owner@zephyrquill-brand.test',
  clientName: 'Ophelia Klondike',
  clientEmail: 'ophelia@klondike-client.test',
  clientPhone: '+1 555 0199 7733',
};

/** Every distinctive piece, lower-cased, in the forms a page could carry it. */
export const brandNeedles = (): string[] =>
  [
    BRAND.studio,
    'Zephyrquill',
    BRAND.sender,
    'Marigold',
    BRAND.email,
    'zephyrquill-brand',
    BRAND.clientName,
    'Klondike',
    BRAND.clientEmail,
    BRAND.clientPhone,
    // The phone however it is written: 4 digits alone also turned up in a random ETag or Date.
    '0199 7733',
    '01997733',
    '5550199',
    'mailto:',
    'tel:',
  ].map((s) => s.toLowerCase());

export interface PublishedProperty {
  account: TestAccount;
  listingId: string;
  clientId: string;
  /** Visible, in position order: front photo, kitchen photo, video, document. */
  media: MediaJson[];
  hidden: MediaJson;
  page: PropertyPageJson;
}

export const pathOf = (url: string): string => new URL(url).pathname;

export async function brandedAccount(ctx: TestContext): Promise<TestAccount> {
  const email = `${randomBytes(3).toString('hex')}.${BRAND.email}`;
  const account = await ctx.services.accounts.create({ name: BRAND.studio, email, password: 'correct horse battery' });
  await ctx.services.accounts.updateStudio(account.id, { name: BRAND.studio, senderName: BRAND.sender });
  const { key, apiKey } = await ctx.services.apiKeys.create(account.id, { name: 'test' });
  const userId = (await ctx.services.team.ownerOf(account.id)).id;
  return { accountId: account.id, userId, email, key, keyId: apiKey.id };
}

export const publish = (ctx: TestContext, key: string, listingId: string): Promise<Response> =>
  call(ctx, 'PUT', `/v1/listings/${listingId}/property_page`, { key });

export const unpublish = (ctx: TestContext, key: string, listingId: string): Promise<Response> =>
  call(ctx, 'DELETE', `/v1/listings/${listingId}/property_page`, { key });

/** An active gallery of a branded account, assigned to a branded client, with its media, published. */
export async function publishedProperty(ctx: TestContext, account?: TestAccount): Promise<PublishedProperty> {
  const me = account ?? (await brandedAccount(ctx));
  const created = await call(ctx, 'POST', '/v1/listings', {
    key: me.key,
    body: {
      address: '7 Lantern Row, Port Ellis',
      beds: 4,
      baths: 2.5,
      sqft: 2140,
      description: 'Bright rooms & a walled garden <b>south-facing</b>.',
      mls_number: 'MLS-88123',
      status: 'active',
    },
  });
  assert.equal(created.statusCode, 201, created.body);
  const listingId = created.json<{ id: string }>().id;
  const client = await call(ctx, 'POST', '/v1/clients', {
    key: me.key,
    body: {
      name: BRAND.clientName,
      email: `${randomBytes(3).toString('hex')}.${BRAND.clientEmail}`,
      phone: BRAND.clientPhone,
    },
  });
  assert.equal(client.statusCode, 201, client.body);
  const clientId = client.json<{ id: string }>().id;
  const assigned = await call(ctx, 'POST', `/v1/clients/${clientId}/listings/${listingId}`, {
    key: me.key,
    query: { notify: 'false' },
  });
  assert.equal(assigned.statusCode, 200, assigned.body);
  const all = await uploaded(ctx, me.key, listingId, [
    { filename: 'front.jpg', contentType: 'image/jpeg', data: await jpeg(90, 60) },
    { filename: 'hidden-secret.jpg', contentType: 'image/jpeg', data: await jpeg(60, 90) },
    { filename: 'kitchen.jpg', contentType: 'image/jpeg', data: await jpeg(80, 50) },
    { filename: 'tour.mp4', contentType: 'video/mp4', data: Buffer.concat([mp4(), randomBytes(16 * 1024)]) },
    { filename: 'floor-plan.pdf', contentType: 'application/pdf', data: pdf('plan') },
  ]);
  const hidden = all[1]!;
  assert.equal((await patchMedia(ctx, me.key, listingId, hidden.id, { hidden: true })).statusCode, 200);
  await makeVariantsNow(ctx);
  const res = await publish(ctx, me.key, listingId);
  assert.equal(res.statusCode, 200, res.body);
  const page = res.json<{ property_page: PropertyPageJson }>().property_page;
  return { account: me, listingId, clientId, media: all.filter((m) => m.id !== hidden.id), hidden, page };
}

/** The CSP's directives by name. */
export function cspOf(res: Response): Map<string, string[]> {
  const csp = res.headers['content-security-policy'];
  assert.equal(typeof csp, 'string', 'no Content-Security-Policy');
  return new Map(
    String(csp)
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0] !== '')
      .map(([name, ...values]) => [name!.toLowerCase(), values] as const),
  );
}

/**
 * What every response under /p carries: the client gallery's headers except X-Robots-Tag
 * (docs/api.md §14, §25) and a strict CSP; `framable` only for the embeddable view.
 */
export function assertPropertyHeaders(res: Response, label: string, framable = false): void {
  const where = `${label} (${res.statusCode})`;
  assert.equal(res.headers['referrer-policy'], 'no-referrer', where);
  assert.equal(res.headers['x-robots-tag'], undefined, `${where}: a public page is not hidden from search`);
  assert.equal(res.headers['x-content-type-options'], 'nosniff', where);
  const directives = cspOf(res);
  const defaults = directives.get('default-src');
  assert.deepEqual(defaults, ["'none'"], `${where}: default-src`);
  for (const [name, values] of directives) {
    if (name === 'frame-ancestors') continue;
    for (const value of values) {
      assert.ok(!value.includes('*'), `${where}: ${name} allows a wildcard`);
      assert.ok(!/^(https?|wss?):/i.test(value) && !value.includes('.'), `${where}: ${name} names a host: ${value}`);
      assert.ok(!/^'unsafe-/.test(value), `${where}: ${name} ${value}`);
      assert.ok(!/^(data|blob):$/i.test(value) || name === 'img-src', `${where}: ${name} ${value}`);
    }
  }
  const scripts = directives.get('script-src') ?? defaults;
  assert.ok(
    ["'self'", "'none'"].includes(scripts?.join(' ') ?? ''),
    `${where}: scripts from elsewhere: ${String(scripts)}`,
  );
  if (framable) {
    assert.deepEqual(directives.get('frame-ancestors'), ['*'], `${where}: the embed is framable`);
    assert.equal(res.headers['x-frame-options'], undefined, `${where}: X-Frame-Options forbids framing`);
  } else {
    // Pages say so in their CSP; stored bytes keep their own sandboxing policy, with the header.
    const ancestors = directives.get('frame-ancestors');
    assert.ok(
      ancestors === undefined || ancestors.join(' ') === "'none'",
      `${where}: framable by ${String(ancestors)}`,
    );
    assert.equal(res.headers['x-frame-options'], 'DENY', where);
  }
}

/**
 * The property page operations as the security suite's route table takes them: each prepares a
 * valid request in the account (publishing needs an active gallery).
 */
export const propertyPageRouteCases = (newListing: (account: TestAccount, status?: string) => Promise<string>) =>
  [
    {
      method: 'PUT',
      path: '/v1/listings/:id/property_page',
      prepare: async (a: TestAccount) => ({
        url: `/v1/listings/${await newListing(a, 'active')}/property_page`,
        status: 200,
      }),
    },
    {
      method: 'DELETE',
      path: '/v1/listings/:id/property_page',
      prepare: async (a: TestAccount) => ({ url: `/v1/listings/${await newListing(a)}/property_page`, status: 204 }),
    },
  ] as const;
