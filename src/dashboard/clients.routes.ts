// Clients in the dashboard (docs/api.md §27): the list with search, a client's page with their
// galleries (and a gallery given to them: an existing one, or a new one made for them), create,
// edit and delete, through the same clients service as /v1/clients.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { App } from '../http/types.ts';
import {
  ClientCreateBody,
  ClientListingParams,
  ClientListQuery,
  type ClientCreateInput,
  type ClientType,
  type ClientUpdateInput,
} from '../modules/clients/clients.schemas.ts';
import { ListingCreateBody, type ListingCreateInput } from '../modules/listings/listings.schemas.ts';
import {
  hasErrors,
  maxLengthOf,
  schemaFieldErrors,
  type FieldWords,
  type FormBody,
  type FormFields,
  formFields,
} from './form.ts';
import { noticeOf } from './notices.ts';
import { PAGE_ROUTE, sendPage, viewerOf, type DashboardContext } from './page.ts';
import type { FieldErrors, Notice } from './views/layout.ts';
import { CONFIRM_DRAFT, draftEmailPage, draftEmailUnconfirmed } from './views/draft-email.ts';
import {
  EMPTY_CLIENT,
  EMPTY_GIVE,
  clientPage,
  clientsPage,
  clientsUrl,
  deleteClientPage,
  newClientPage,
  type ClientFormValues,
  type GiveGalleryValues,
} from './views/clients.ts';

const MEMBER = { dashboard: 'member' } as const;
/** A form with notes of 10,000 characters, each up to a few bytes encoded. */
const FORM_WITH_TEXT = 96 * 1024;
const PAGE_SIZE = 25;
/** The list says how many clients a search found, not just how many it has shown. */
const COUNTED = { countMatches: true };

/** Galleries offered on a client's page to give them (the newest without a client). */
const GALLERY_CHOICES = 100;

/** Where the schema's own keyword says too little (a new gallery's fields). */
const NEW_GALLERY_WORDS: Record<string, FieldWords> = {
  address: { empty: 'Enter the address', invalid: 'Use one line' },
  status: { choice: 'Choose draft or active' },
};

const NOTICES: Record<string, Notice> = {
  'client-created': { kind: 'success', text: 'Client added.' },
  'client-saved': { kind: 'success', text: 'Client saved.' },
  'portal-rotated': { kind: 'success', text: 'The portal has a new link; the old one no longer works.' },
  'client-deleted': { kind: 'success', text: 'The client was deleted. Their galleries stay, unassigned.' },
  'gallery-given': { kind: 'success', text: 'Gallery assigned. Its link is on the gallery’s page.' },
  'gallery-given-emailed': {
    kind: 'success',
    text: 'Gallery assigned. The email with its link is on its way to the client.',
  },
};

const clientNotice = (request: FastifyRequest): Notice | null => {
  const code = (request.query as Record<string, unknown> | undefined)?.notice;
  return (typeof code === 'string' ? NOTICES[code] : undefined) ?? noticeOf(request);
};

/** Where the schema's own keyword says too little. */
const CLIENT_WORDS: Record<string, FieldWords> = {
  name: { empty: 'Enter the name' },
  email: { empty: 'Enter the email address' },
};

/** The form's client, checked by the API's schema (docs/api.md §7), with what is wrong by field. */
function readClient(form: FormFields): { values: ClientFormValues; input: ClientCreateInput; errors: FieldErrors } {
  const values: ClientFormValues = {
    name: form.get('name').trim(),
    email: form.get('email').trim(),
    phone: form.get('phone').trim(),
    company: form.get('company').trim(),
    notes: form.get('notes').trim(),
  };
  const input: ClientCreateInput = {
    name: values.name,
    email: values.email,
    phone: values.phone === '' ? null : values.phone,
    company: values.company === '' ? null : values.company,
    notes: values.notes === '' ? null : values.notes,
  };
  return { values, input, errors: schemaFieldErrors(ClientCreateBody, input, CLIENT_WORDS) };
}

const valuesOf = (c: ClientType): ClientFormValues => ({
  name: c.name,
  email: c.email,
  phone: c.phone ?? '',
  company: c.company ?? '',
  notes: c.notes ?? '',
});

const taken = (err: unknown): boolean => err instanceof AppError && err.code === 'conflict';
const TAKEN = 'Another client has this email address';

export function registerClientsRoutes(scope: App, ctx: DashboardContext): void {
  const { clients, listings } = ctx.services;
  const idOf = (request: FastifyRequest): string => (request.params as { id: string }).id;

  scope.get('/clients', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const query = request.query as Record<string, unknown>;
    const search =
      typeof query.search === 'string' ? query.search.trim().slice(0, maxLengthOf(ClientListQuery, 'search')) : '';
    const cursor = typeof query.cursor === 'string' ? query.cursor : '';
    const ask = { limit: PAGE_SIZE, ...(search === '' ? {} : { search }) };
    let notice = clientNotice(request);
    let list;
    try {
      list = await clients.list(account.id, cursor === '' ? ask : { ...ask, cursor }, COUNTED);
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'validation_error') || cursor === '') throw err;
      list = await clients.list(account.id, ask, COUNTED);
      notice = { kind: 'info', text: 'That page of the list is no longer available: here is the first page.' };
    }
    const next = list.pagination.next_cursor;
    return sendPage(
      reply,
      clientsPage({
        viewer,
        notice,
        search,
        items: list.data,
        total: list.pagination.total,
        nextUrl: next === null ? null : clientsUrl(search, next),
        paged: cursor !== '',
      }),
    );
  });

  scope.get('/clients/new', { config: MEMBER, schema: PAGE_ROUTE }, (request, reply) => {
    const { viewer } = viewerOf(request);
    return sendPage(reply, newClientPage({ viewer, values: EMPTY_CLIENT, errors: {} }));
  });

  scope.post('/clients', { config: MEMBER, schema: PAGE_ROUTE, bodyLimit: FORM_WITH_TEXT }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const { values, input, errors } = readClient(formFields(request.body));
    if (Object.keys(errors).length > 0) return sendPage(reply, newClientPage({ viewer, values, errors }), 400);
    try {
      const created = await clients.create(account.id, input);
      return await reply.redirect(`/dashboard/clients/${created.id}?notice=client-created`, 303);
    } catch (err) {
      if (!taken(err)) throw err;
      return sendPage(reply, newClientPage({ viewer, values, errors: { email: TAKEN } }), 409);
    }
  });

  /** The studio's galleries without a client, newest first: what the page offers to give. */
  const unassigned = async (accountId: string) =>
    (await listings.list(accountId, { client_id: 'none', limit: GALLERY_CHOICES, sort: '-created_at' })).data;

  scope.get('/clients/:id', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const client = await clients.get(account.id, idOf(request));
    return sendPage(
      reply,
      clientPage({
        viewer,
        notice: clientNotice(request),
        client,
        values: valuesOf(client),
        errors: {},
        unassigned: await unassigned(account.id),
      }),
    );
  });

  /** The client's page again, its "give a gallery" forms showing what was sent and what is wrong. */
  async function refusedGive(
    request: FastifyRequest,
    reply: FastifyReply,
    client: ClientType,
    give: { values: GiveGalleryValues; errors: FieldErrors },
  ) {
    const { viewer, account } = viewerOf(request);
    const body = clientPage({
      viewer,
      notice: null,
      client,
      values: valuesOf(client),
      errors: {},
      unassigned: await unassigned(account.id),
      give,
    });
    return sendPage(reply, body, 400);
  }

  // docs/api.md §27: one of the studio's galleries given to this client, as
  // POST /v1/clients/:id/listings/:listing_id does it (the same service call and schema).
  scope.post('/clients/:id/galleries', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    // Another account's client (or none such): the 404 page, whatever the form says.
    const client = await clients.get(account.id, idOf(request));
    const form = formFields(request.body);
    const listingId = form.get('listing_id').trim();
    const notify = form.get('notify') === '1';
    const errors =
      listingId === ''
        ? { listing_id: 'Choose a gallery' }
        : schemaFieldErrors(ClientListingParams, { id: client.id, listing_id: listingId });
    if (hasErrors(errors)) {
      return refusedGive(request, reply, client, { values: { ...EMPTY_GIVE, listing_id: listingId }, errors });
    }
    // Another account's gallery, or a deleted one: the 404 page.
    const listing = await listings.get(account.id, listingId);
    if (draftEmailUnconfirmed(listing.status, notify, form.get(CONFIRM_DRAFT))) {
      return sendPage(
        reply,
        draftEmailPage({
          viewer,
          address: listing.address,
          clientName: client.name,
          action: `/dashboard/clients/${client.id}/galleries`,
          fields: request.body as FormBody,
          notifyField: 'notify',
          back: `/dashboard/clients/${client.id}#give`,
          section: 'clients',
        }),
      );
    }
    await clients.assign(account.id, client.id, listing.id, { notify });
    return reply.redirect(
      `/dashboard/clients/${client.id}?notice=${notify ? 'gallery-given-emailed' : 'gallery-given'}#client-galleries`,
      303,
    );
  });

  // docs/api.md §27: a new gallery (its address) made for this client and given to them, in one
  // write (POST /v1/listings's schema); the gallery's page is next, for its photos.
  scope.post('/clients/:id/galleries/new', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const client = await clients.get(account.id, idOf(request));
    const form = formFields(request.body);
    const notify = form.get('notify') === '1';
    const values: GiveGalleryValues = {
      ...EMPTY_GIVE,
      address: form.get('address').trim(),
      status: form.get('status') === '' ? 'draft' : form.get('status'),
      notify_new: notify,
    };
    const input = { address: values.address, status: values.status };
    const errors = schemaFieldErrors(ListingCreateBody, input, NEW_GALLERY_WORDS);
    if (hasErrors(errors)) return refusedGive(request, reply, client, { values, errors });
    if (draftEmailUnconfirmed(values.status, notify, form.get(CONFIRM_DRAFT))) {
      return sendPage(
        reply,
        draftEmailPage({
          viewer,
          address: values.address,
          clientName: client.name,
          action: `/dashboard/clients/${client.id}/galleries/new`,
          fields: request.body as FormBody,
          notifyField: 'notify',
          back: `/dashboard/clients/${client.id}#give`,
          section: 'clients',
        }),
      );
    }
    const created = await clients.createListingFor(account.id, client.id, input as ListingCreateInput, { notify });
    const notice = notify ? 'created-for-client-emailed' : 'created-for-client';
    return reply.redirect(`/dashboard/galleries/${created.id}?notice=${notice}`, 303);
  });

  scope.post(
    '/clients/:id',
    { config: MEMBER, schema: PAGE_ROUTE, bodyLimit: FORM_WITH_TEXT },
    async (request, reply) => {
      const { viewer, account } = viewerOf(request);
      const current = await clients.get(account.id, idOf(request));
      const { values, input, errors } = readClient(formFields(request.body));
      const render = async (e: FieldErrors, status: number) =>
        sendPage(
          reply,
          clientPage({
            viewer,
            notice: null,
            client: current,
            values,
            errors: e,
            unassigned: await unassigned(account.id),
          }),
          status,
        );
      if (Object.keys(errors).length > 0) return render(errors, 400);
      const patch: ClientUpdateInput = {};
      for (const name of ['name', 'email', 'phone', 'company', 'notes'] as const) {
        if (input[name] !== current[name]) (patch as Record<string, unknown>)[name] = input[name];
      }
      try {
        if (Object.keys(patch).length > 0) await clients.update(account.id, current.id, patch);
      } catch (err) {
        if (!taken(err)) throw err;
        return render({ email: TAKEN }, 409);
      }
      return reply.redirect(`/dashboard/clients/${current.id}?notice=client-saved`, 303);
    },
  );

  // docs/api.md §28: a new portal link for the client.
  scope.post('/clients/:id/portal/rotate', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const rotated = await clients.rotatePortal(account.id, idOf(request));
    return reply.redirect(`/dashboard/clients/${rotated.id}?notice=portal-rotated#portal`, 303);
  });

  scope.get('/clients/:id/delete', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    return sendPage(reply, deleteClientPage({ viewer, client: await clients.get(account.id, idOf(request)) }));
  });

  scope.post('/clients/:id/delete', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    await clients.remove(account.id, idOf(request));
    return reply.redirect('/dashboard/clients?notice=client-deleted', 303);
  });
}
