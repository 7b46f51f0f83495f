// Products and invoices in the dashboard over HTTP (app.inject), docs/api.md §29: prices typed as
// decimal text in the account's currency and kept as integer minor units; refused forms come back
// 400 as typed; an invoice made from a gallery (409 without a client), edited while draft, issued,
// paid in parts, voided; its PDF; the list's status filter; another account's invoice is 404.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Browser, textOf } from '../../test/support/dashboard-browser.ts';
import { addMember } from '../../test/support/team.ts';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';

let ctx: TestContext;

before(async () => {
  ctx = await createTestContext();
});
after(async () => {
  await ctx.close();
});

async function signedIn(name: string): Promise<{ owner: TestAccount; browser: Browser; token: string }> {
  const owner = await createAccount(ctx, name);
  const browser = new Browser(ctx.app);
  assert.equal((await browser.signIn(owner.email, 'correct horse battery')).statusCode, 303);
  await browser.get('/dashboard/products');
  return { owner, browser, token: browser.token() };
}

const idIn = (location: string | undefined, prefix: string): string =>
  new RegExp(`/(${prefix}_[A-Za-z0-9]+)`).exec(location ?? '')?.[1] ?? '';

/** One row of an invoice form: the five fields every row sends. */
const row = (kind: 'catalogue' | 'line', product: string, description: string, quantity: string, price: string) => ({
  kind,
  product,
  description,
  quantity,
  price,
});
type Row = ReturnType<typeof row>;
const rowsForm = (rows: Row[], rest: Record<string, string> = {}) => ({
  item_kind: rows.map((r) => r.kind),
  item_product: rows.map((r) => r.product),
  item_description: rows.map((r) => r.description),
  item_quantity: rows.map((r) => r.quantity),
  item_price: rows.map((r) => r.price),
  ...rest,
});

describe('products and invoices in the dashboard', () => {
  test('products: create, refused as typed, edit, archive and activate, delete; JPY has no decimals', async () => {
    const { owner, browser, token } = await signedIn('Catalogue Studio');
    const post = (url: string, fields: Record<string, string>) => browser.post(url, fields, { csrf: token });

    const refused = await post('/dashboard/products', { name: '', price: '12.345', active: '1' });
    assert.equal(refused.statusCode, 400);
    assert.match(textOf(refused.body), /Name: Enter the name/);
    assert.match(textOf(refused.body), /Price: Use at most 2 decimals/);
    assert.match(refused.body, /value="12.345"/);

    const made = await post('/dashboard/products', { name: 'Photos, up to 25', price: '1,250.5', active: '1' });
    assert.equal(made.statusCode, 303);
    const id = idIn(made.headers.location, 'prd');
    const stored = (await call(ctx, 'GET', `/v1/products/${id}`, { key: owner.key })).json<{
      unit_amount: number;
      active: boolean;
    }>();
    assert.deepEqual([stored.unit_amount, stored.active], [125050, true]);
    assert.match(textOf((await browser.get('/dashboard/products')).body), /Photos, up to 25 .*USD 1,250.50 active/);

    const page = await browser.get(`/dashboard/products/${id}`);
    assert.match(page.body, /value="1250.50"/);
    assert.equal((await post(`/dashboard/products/${id}`, { name: 'Photos', price: 'ten' })).statusCode, 400);
    assert.equal((await post(`/dashboard/products/${id}`, { name: 'Photos', price: '99' })).statusCode, 303);
    assert.equal(
      (await call(ctx, 'GET', `/v1/products/${id}`, { key: owner.key })).json<{ unit_amount: number }>().unit_amount,
      9900,
    );

    assert.equal((await post(`/dashboard/products/${id}/active`, { active: '0' })).statusCode, 303);
    assert.match(textOf((await browser.get(`/dashboard/products/${id}`)).body), /Photos archived/);
    await post(`/dashboard/products/${id}/active`, { active: '1' });
    assert.match(textOf((await browser.get(`/dashboard/products/${id}`)).body), /Photos active/);

    assert.equal((await browser.get(`/dashboard/products/${id}/delete`)).statusCode, 200);
    const gone = await post(`/dashboard/products/${id}/delete`, {});
    assert.equal(gone.headers.location, '/dashboard/products?notice=product-deleted');
    assert.equal((await call(ctx, 'GET', `/v1/products/${id}`, { key: owner.key })).statusCode, 404);

    await ctx.services.accounts.updateStudio(owner.accountId, {
      name: 'Yen Studio',
      senderName: null,
      currency: 'JPY',
    });
    const yen = await post('/dashboard/products', { name: 'Drone', price: '25.5' });
    assert.equal(yen.statusCode, 400);
    assert.match(textOf(yen.body), /JPY has no decimals/);
    const ok = await post('/dashboard/products', { name: 'Drone', price: '25,000' });
    const drone = idIn(ok.headers.location, 'prd');
    assert.equal((await ctx.services.products.get(owner.accountId, drone)).unit_amount, 25000);
    assert.equal((await ctx.services.products.get(owner.accountId, drone)).active, false);
  });

  test('an invoice from a gallery: 409 without a client, made, edited, issued, paid in parts; another voided', async () => {
    const { owner, browser, token } = await signedIn('Invoice Studio');
    const post = (url: string, fields: Record<string, string | readonly string[]>) =>
      browser.post(url, fields, { csrf: token });
    const photos = await ctx.services.products.create(owner.accountId, { name: 'Photos', unit_amount: 25000 });
    const gallery = (
      await call(ctx, 'POST', '/v1/listings', { key: owner.key, body: { address: '9 Quay Street' } })
    ).json<{ id: string }>().id;

    // No client: the card says so, and a form sent anyway is 409 with the way to set one.
    const bare = await browser.get(`/dashboard/galleries/${gallery}`);
    assert.match(textOf(bare.body), /This gallery has no client/);
    const noClient = await post(
      `/dashboard/galleries/${gallery}/invoices`,
      rowsForm([row('catalogue', photos.id, '', '1', '')]),
    );
    assert.equal(noClient.statusCode, 409);
    assert.match(noClient.body, /href="#client">Set the gallery’s client/);

    const client = (
      await call(ctx, 'POST', '/v1/clients', { key: owner.key, body: { name: 'Ann Agent', email: 'ann@agent.test' } })
    ).json<{ id: string }>().id;
    await call(ctx, 'POST', `/v1/clients/${client}/listings/${gallery}`, {
      key: owner.key,
      query: { notify: 'false' },
    });
    const card = textOf((await browser.get(`/dashboard/galleries/${gallery}`)).body);
    assert.match(card, /Invoices No invoices for this gallery yet\. New invoice .*Photos USD 250\.00 each/);

    // Nothing chosen; then a line without its price: 400, as typed, the error beside it.
    const empty = await post(
      `/dashboard/galleries/${gallery}/invoices`,
      rowsForm([row('catalogue', photos.id, '', '', ''), row('line', '', '', '', '')]),
    );
    assert.equal(empty.statusCode, 400);
    assert.match(textOf(empty.body), /Add a line/);
    const typed = rowsForm([row('catalogue', photos.id, '', '2', ''), row('line', '', 'Drone flight', '', 'lots')], {
      discount: '10',
      tax: '8.25',
      due_on: '2027-01-31',
      note: 'Thank you',
      pay_to_unlock: '1',
    });
    const noPrice = await post(`/dashboard/galleries/${gallery}/invoices`, typed);
    assert.equal(noPrice.statusCode, 400);
    assert.match(textOf(noPrice.body), /Line 1 unit price: Enter an amount in numbers/);
    assert.match(noPrice.body, /value="Drone flight"/);
    assert.match(noPrice.body, /value="8.25"/);

    const made = await post(`/dashboard/galleries/${gallery}/invoices`, {
      ...typed,
      item_price: ['', '150'],
    });
    assert.equal(made.statusCode, 303);
    const id = idIn(made.headers.location, 'ivc');
    let invoice = await ctx.services.invoices.get(owner.accountId, id);
    assert.deepEqual(
      invoice.items.map((i) => [i.description, i.quantity, i.unit_amount]),
      [
        ['Photos', 2, 25000],
        ['Drone flight', 1, 15000],
      ],
    );
    // (65,000 − 1,000) × 8.25 % = 5,280.
    assert.deepEqual(
      [invoice.subtotal, invoice.discount, invoice.tax_rate_bps, invoice.tax, invoice.total, invoice.due_at],
      [65000, 1000, 825, 5280, 69280, '2027-01-31T23:59:59.999Z'],
    );
    const draftPage = textOf((await browser.get(`/dashboard/invoices/${id}`)).body);
    assert.match(draftPage, /Draft invoice draft/);
    assert.match(draftPage, /Total USD 692\.80/);

    // The draft edited: the photos' line removed (quantity 0), the drone dearer; too big a discount refused.
    const edit = (discount: string) =>
      post(
        `/dashboard/invoices/${id}`,
        rowsForm(
          [
            row('catalogue', photos.id, '', '', ''),
            row('line', photos.id, 'Photos', '0', '250.00'),
            row('line', '', 'Drone flight', '1', '175'),
            row('line', '', '', '', ''),
          ],
          { discount, tax: '', due_on: '', note: '' },
        ),
      );
    const tooMuch = await edit('500');
    assert.equal(tooMuch.statusCode, 400);
    assert.match(textOf(tooMuch.body), /Discount: The discount cannot be more than the subtotal/);
    assert.equal((await edit('')).statusCode, 303);
    invoice = await ctx.services.invoices.get(owner.accountId, id);
    assert.deepEqual(
      [invoice.items.length, invoice.total, invoice.pay_to_unlock, invoice.note],
      [1, 17500, false, null],
    );

    const pdf = await browser.get(`/dashboard/invoices/${id}/pdf`);
    assert.equal(pdf.statusCode, 200);
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    assert.equal(pdf.headers['content-security-policy'], "frame-ancestors 'none'");
    assert.equal(pdf.rawPayload.subarray(0, 5).toString(), '%PDF-');

    const issued = await post(`/dashboard/invoices/${id}/issue`, {});
    assert.equal(issued.headers.location, `/dashboard/invoices/${id}?notice=invoice-issued`);
    invoice = await ctx.services.invoices.get(owner.accountId, id);
    assert.deepEqual([invoice.status, invoice.number], ['open', 'INV-0001']);
    // No longer a draft: edits and deleting are refused, nothing changes.
    assert.match((await edit('')).headers.location ?? '', /notice=invoice-not-draft/);
    assert.match((await post(`/dashboard/invoices/${id}/delete`, {})).headers.location ?? '', /invoice-not-draft/);

    const over = await post(`/dashboard/invoices/${id}/payments`, { amount: '175.01', method: 'cash', reference: '' });
    assert.equal(over.statusCode, 400);
    assert.match(textOf(over.body), /Amount: Enter at most USD 175\.00/);
    assert.match(over.body, /value="175.01"/);
    const part = await post(`/dashboard/invoices/${id}/payments`, {
      amount: '75',
      method: 'bank_transfer',
      reference: 'TX-1',
    });
    assert.match(part.headers.location ?? '', /notice=payment-recorded/);
    const rest = await post(`/dashboard/invoices/${id}/payments`, { amount: '100.00', method: 'check', reference: '' });
    assert.match(rest.headers.location ?? '', /notice=invoice-paid/);
    const paidPage = textOf((await browser.get(`/dashboard/invoices/${id}`)).body);
    assert.match(paidPage, /Invoice INV-0001 paid/);
    assert.match(paidPage, /USD 75\.00 · Bank transfer · TX-1/);
    assert.doesNotMatch(paidPage, /Record a payment|Void this invoice/);

    // A second one, issued and voided after the page that asks.
    const second = await post(
      `/dashboard/galleries/${gallery}/invoices`,
      rowsForm([row('catalogue', photos.id, '', '1', '')], { pay_to_unlock: '1' }),
    );
    const other = idIn(second.headers.location, 'ivc');
    await post(`/dashboard/invoices/${other}/issue`, {});
    assert.match(textOf((await browser.get(`/dashboard/invoices/${other}/void`)).body), /Void INV-0002\?/);
    assert.match((await post(`/dashboard/invoices/${other}/void`, {})).headers.location ?? '', /invoice-voided/);
    assert.equal((await ctx.services.invoices.get(owner.accountId, other)).status, 'void');

    const list = textOf((await browser.get('/dashboard/invoices')).body);
    assert.match(list, /2 invoices/);
    assert.match(list, /INV-0002 .*9 Quay Street Ann Agent USD 250\.00 USD 0\.00 void/);
    const paid = textOf((await browser.get('/dashboard/invoices?status=paid')).body);
    assert.match(paid, /1 invoice /);
    assert.doesNotMatch(paid, /INV-0002/);
    assert.match(textOf((await browser.get(`/dashboard/galleries/${gallery}`)).body), /INV-0001 paid USD 175\.00/);

    // Billing is the owner's: a member's gallery page has no Invoices card (the routes are 403: roles.test.ts).
    await addMember(ctx, owner.accountId, 'assistant@invoice.test', 'correct horse battery');
    const member = new Browser(ctx.app);
    await member.signIn('assistant@invoice.test', 'correct horse battery');
    const theirPage = await member.get(`/dashboard/galleries/${gallery}`);
    assert.equal(theirPage.statusCode, 200);
    assert.doesNotMatch(theirPage.body, /id="invoices"|href="\/dashboard\/invoices"/);

    // Another studio's invoice and gallery: 404 whatever is asked.
    const them = await createAccount(ctx, 'Not Theirs');
    const stranger = new Browser(ctx.app);
    await stranger.signIn(them.email, 'correct horse battery');
    await stranger.get('/dashboard/invoices');
    assert.equal((await stranger.get(`/dashboard/invoices/${id}`)).statusCode, 404);
    assert.equal((await stranger.get(`/dashboard/invoices/${id}/pdf`)).statusCode, 404);
    assert.equal(
      (await stranger.post(`/dashboard/galleries/${gallery}/invoices`, rowsForm([]), { csrf: stranger.token() }))
        .statusCode,
      404,
    );
  });
});
