// Products in the dashboard (docs/api.md §29): the catalogue's list, a product's page, create,
// edit, archive or activate, delete after a page that asks; through the same products service as
// /v1/products. Prices are typed in the account's currency and kept as integer minor units.
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { App } from '../http/types.ts';
import { moneyInput } from '../modules/money/money.ts';
import {
  ProductCreateBody,
  type ProductCreateInput,
  type ProductType,
  type ProductUpdateInput,
} from '../modules/products/products.schemas.ts';
import { formFields, hasErrors, schemaFieldErrors, type FormFields } from './form.ts';
import { readMoney } from './money-form.ts';
import { noticeOf } from './notices.ts';
import { PAGE_ROUTE, sendPage, viewerOf, type DashboardContext } from './page.ts';
import type { FieldErrors, Notice } from './views/layout.ts';
import {
  EMPTY_PRODUCT,
  deleteProductPage,
  newProductPage,
  productPage,
  productsPage,
  type ProductFormValues,
} from './views/products.ts';

/**
 * Billing (products, invoices, payments) is the owner's, as keys, webhooks, the team and the
 * studio's settings are: docs/api.md §27 gives a member "galleries and clients" only.
 */
export const BILLING = { dashboard: 'owner' } as const;
/** A description of 2,000 characters, each up to a few bytes encoded. */
const FORM_WITH_TEXT = 32 * 1024;
const PAGE_SIZE = 50;

const NOTICES: Record<string, Notice> = {
  'product-created': { kind: 'success', text: 'Product added. It is offered on new invoices.' },
  'product-saved': { kind: 'success', text: 'Product saved.' },
  'product-archived': { kind: 'success', text: 'Archived: it is no longer offered on new invoices.' },
  'product-activated': { kind: 'success', text: 'Active: it is offered on new invoices again.' },
  'product-deleted': { kind: 'success', text: 'The product was deleted. Invoices that named it keep their lines.' },
};

const productNotice = (request: FastifyRequest): Notice | null => {
  const code = (request.query as Record<string, unknown> | undefined)?.notice;
  return (typeof code === 'string' ? NOTICES[code] : undefined) ?? noticeOf(request);
};

/** The form's product in the API's terms, checked by the API's schema, with what is wrong by field. */
function readProduct(
  form: FormFields,
  currency: string,
): { values: ProductFormValues; input: ProductCreateInput; errors: FieldErrors } {
  const values: ProductFormValues = {
    name: form.get('name').trim(),
    description: form.get('description').trim(),
    price: form.get('price').trim(),
    active: form.get('active') === '1',
  };
  const price = readMoney(values.price, currency);
  const input: ProductCreateInput = {
    name: values.name,
    description: values.description === '' ? null : values.description,
    unit_amount: price.amount ?? 0,
  };
  const errors = schemaFieldErrors(ProductCreateBody, input, { name: { empty: 'Enter the name' } });
  delete errors.unit_amount;
  if (price.error !== undefined) errors.price = price.error;
  return { values, input, errors };
}

const valuesOf = (p: ProductType, currency: string): ProductFormValues => ({
  name: p.name,
  description: p.description ?? '',
  price: moneyInput(p.unit_amount, currency),
  active: p.active,
});

export function registerProductsRoutes(scope: App, ctx: DashboardContext): void {
  const { products } = ctx.services;
  const idOf = (request: FastifyRequest): string => (request.params as { id: string }).id;

  scope.get('/products', { config: BILLING, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const cursor = (request.query as Record<string, unknown>).cursor;
    let notice = productNotice(request);
    let list;
    try {
      list = await products.list(account.id, {
        limit: PAGE_SIZE,
        ...(typeof cursor === 'string' && cursor !== '' ? { cursor } : {}),
      });
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'validation_error')) throw err;
      list = await products.list(account.id, { limit: PAGE_SIZE });
      notice = { kind: 'info', text: 'That page of the list is no longer available: here is the first page.' };
    }
    const next = list.pagination.next_cursor;
    return sendPage(
      reply,
      productsPage({
        viewer,
        notice,
        currency: account.currency,
        items: list.data,
        total: list.pagination.total,
        nextUrl: next === null ? null : `/dashboard/products?cursor=${encodeURIComponent(next)}`,
        paged: typeof cursor === 'string' && cursor !== '',
      }),
    );
  });

  scope.get('/products/new', { config: BILLING, schema: PAGE_ROUTE }, (request, reply) => {
    const { viewer, account } = viewerOf(request);
    return sendPage(reply, newProductPage({ viewer, currency: account.currency, values: EMPTY_PRODUCT, errors: {} }));
  });

  scope.post(
    '/products',
    { config: BILLING, schema: PAGE_ROUTE, bodyLimit: FORM_WITH_TEXT },
    async (request, reply) => {
      const { viewer, account } = viewerOf(request);
      const { values, input, errors } = readProduct(formFields(request.body), account.currency);
      if (hasErrors(errors)) {
        return sendPage(reply, newProductPage({ viewer, currency: account.currency, values, errors }), 400);
      }
      const created = await products.create(account.id, { ...input, active: values.active });
      return reply.redirect(`/dashboard/products/${created.id}?notice=product-created`, 303);
    },
  );

  scope.get('/products/:id', { config: BILLING, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const product = await products.get(account.id, idOf(request));
    return sendPage(
      reply,
      productPage({
        viewer,
        notice: productNotice(request),
        currency: account.currency,
        product,
        values: valuesOf(product, account.currency),
        errors: {},
      }),
    );
  });

  scope.post(
    '/products/:id',
    { config: BILLING, schema: PAGE_ROUTE, bodyLimit: FORM_WITH_TEXT },
    async (request, reply) => {
      const { viewer, account } = viewerOf(request);
      const current = await products.get(account.id, idOf(request));
      const { values, input, errors } = readProduct(formFields(request.body), account.currency);
      if (hasErrors(errors)) {
        const body = productPage({
          viewer,
          notice: null,
          currency: account.currency,
          product: current,
          values,
          errors,
        });
        return sendPage(reply, body, 400);
      }
      const patch: ProductUpdateInput = {};
      if (input.name !== current.name) patch.name = input.name;
      if (input.description !== current.description) patch.description = input.description ?? null;
      if (input.unit_amount !== current.unit_amount) patch.unit_amount = input.unit_amount;
      if (Object.keys(patch).length > 0) await products.update(account.id, current.id, patch);
      return reply.redirect(`/dashboard/products/${current.id}?notice=product-saved`, 303);
    },
  );

  scope.post('/products/:id/active', { config: BILLING, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const active = formFields(request.body).get('active') === '1';
    const current = await products.get(account.id, idOf(request));
    if (current.active !== active) await products.update(account.id, current.id, { active });
    return reply.redirect(
      `/dashboard/products/${current.id}?notice=${active ? 'product-activated' : 'product-archived'}`,
      303,
    );
  });

  scope.get('/products/:id/delete', { config: BILLING, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const product = await products.get(account.id, idOf(request));
    return sendPage(reply, deleteProductPage({ viewer, currency: account.currency, product }));
  });

  scope.post('/products/:id/delete', { config: BILLING, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    await products.remove(account.id, idOf(request));
    return reply.redirect('/dashboard/products?notice=product-deleted', 303);
  });
}
