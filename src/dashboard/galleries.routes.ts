// Galleries in the dashboard (docs/api.md §27): the list, a new gallery, and one gallery's page
// with everything done to it. Every action is a call to the same service as its /v1 twin, scoped
// by the signed-in account, so counts, events, webhooks and ETags stay right whatever wrote.
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { App } from '../http/types.ts';
import { ClientCreateBody } from '../modules/clients/clients.schemas.ts';
import {
  ListingCreateBody,
  ListingListQuery,
  type ListingCreateInput,
  type ListingType,
  type ListingUpdateInput,
} from '../modules/listings/listings.schemas.ts';
import { MediaUpdateBody } from '../modules/media/media.schemas.ts';
import { noticeOf } from './notices.ts';
import { PAGE_ROUTE, sendPage, viewerOf, type DashboardContext } from './page.ts';
import { maxLengthOf, schemaFieldErrors, type FieldWords, type FormFields, formFields } from './form.ts';
import type { ToursFormState } from './views/tours.ts';
import type { FieldErrors, Notice } from './views/layout.ts';
import { count } from './views/format.ts';
import {
  EMPTY_GALLERY,
  GALLERY_SORTS,
  GALLERY_STATUSES,
  galleriesPage,
  galleriesUrl,
  newGalleryPage,
  type GalleryFilters,
  type GalleryFormValues,
  type GallerySort,
} from './views/galleries.ts';
import { deleteGalleryPage, galleryPage } from './views/gallery.ts';
import {
  itemPatch,
  MEDIA_BULK_MAX,
  registerGalleryMediaRoutes,
  SUGGESTED_ORDER_NOTICES,
} from './gallery-media.routes.ts';
import { registerGalleryToursRoutes } from './gallery-tours.routes.ts';
import { registerGalleryShareLinkRoutes, SHARE_LINK_NOTICES, shareLinkRows } from './gallery-share-links.routes.ts';
import type { ShareLinkFormState } from './views/share-links.ts';
import { galleryInvoices, registerInvoicesRoutes, type GalleryInvoiceForm } from './invoices.routes.ts';
import { KIT_NOTICES, registerGalleryKitRoutes } from './gallery-kit.routes.ts';
import {
  COMPLIANCE_NOTICES,
  galleryCompliance,
  galleryStatuses,
  registerGalleryComplianceRoutes,
} from './gallery-compliance.routes.ts';

const MEMBER = { dashboard: 'member' } as const;
/** Galleries a list page shows. */
const PAGE_SIZE = 25;
/** The list says how many galleries a search found (capped), not just how many it has shown. */
const COUNTED = { countMatches: true };
/** Clients offered when assigning: the newest this many (the client's own page assigns any). */
const CLIENT_CHOICES = 100;
/** Emails listed under a gallery's activity. */
const RECENT_EMAILS = 20;
/** A form with a description of 10,000 characters, each up to a few bytes encoded. */
const FORM_WITH_TEXT = 96 * 1024;

/** What the gallery pages' redirects can say (`?notice=`), from a fixed list: a URL cannot inject text. */
const NOTICES: Record<string, Notice> = {
  'gallery-created': { kind: 'success', text: 'Gallery created. Upload its photos, videos and documents below.' },
  'created-for-client': {
    kind: 'success',
    text: 'Gallery created and assigned to the client. Upload its photos, videos and documents below.',
  },
  'created-for-client-emailed': {
    kind: 'success',
    text: 'Gallery created and assigned; the email with its link is on its way to the client. Upload its photos below.',
  },
  'gallery-saved': { kind: 'success', text: 'Details saved.' },
  'tours-saved': { kind: 'success', text: 'Tours saved.' },
  'gallery-deleted': { kind: 'success', text: 'The gallery and its media were deleted.' },
  uploaded: { kind: 'success', text: 'Uploaded.' },
  'upload-empty': { kind: 'error', text: 'Choose one or more files to upload.' },
  'upload-refused': {
    kind: 'error',
    text: 'Nothing was uploaded: one of the files is not a photo (JPEG, PNG, WebP, GIF, TIFF, HEIC, AVIF), a video (MP4, MOV, WebM) or a PDF.',
  },
  'upload-too-large': {
    kind: 'error',
    text: 'Nothing was uploaded: a file, or the number of files, is over the limit.',
  },
  'media-saved': { kind: 'success', text: 'Saved.' },
  'media-refused': {
    kind: 'error',
    text: `Not saved: a caption has at most ${count(maxLengthOf(MediaUpdateBody, 'caption'))} characters, a position is 1 to the number of items.`,
  },
  'media-deleted': { kind: 'success', text: 'Deleted.' },
  'media-hidden': { kind: 'success', text: 'Hidden: the client no longer sees the ticked items.' },
  'media-shown': { kind: 'success', text: 'Shown: the client sees the ticked items again.' },
  'media-none-ticked': { kind: 'error', text: 'Nothing was changed: tick one or more items first.' },
  'media-bulk-refused': {
    kind: 'error',
    text: `Nothing was changed: choose Hide, Show or Delete, for at most ${count(MEDIA_BULK_MAX)} items at a time.`,
  },
  'cover-set': { kind: 'success', text: 'Cover set: the client gallery and property pages open with this photo.' },
  'order-saved': { kind: 'success', text: 'Order saved.' },
  ...SUGGESTED_ORDER_NOTICES,
  assigned: { kind: 'success', text: 'Gallery assigned. The client can open it with the link below.' },
  'assigned-emailed': {
    kind: 'success',
    text: 'Gallery assigned. The email with its link is on its way to the client.',
  },
  'assign-refused': {
    kind: 'error',
    text: `Not assigned: choose a client, or give a new client a name (up to ${count(maxLengthOf(ClientCreateBody, 'name'))} characters) and a valid email.`,
  },
  'assigned-existing': {
    kind: 'success',
    text: 'A client with that email already existed: the gallery is assigned to them.',
  },
  'assign-email-taken': {
    kind: 'error',
    text: 'Not assigned: a client with that email exists already. Choose them in the list instead.',
  },
  unassigned: { kind: 'success', text: 'Unassigned: the client link no longer works.' },
  published: { kind: 'success', text: 'Published: the property pages are public at the addresses below.' },
  'publish-refused': {
    kind: 'error',
    text: 'Only an active gallery can be published: set its status to active first.',
  },
  unpublished: { kind: 'success', text: 'Unpublished: both property page addresses stopped working.' },
  ...SHARE_LINK_NOTICES,
  ...KIT_NOTICES,
  ...COMPLIANCE_NOTICES,
};

/** Share link notices open the share links panel. */
const isShareLinkNotice = (request: FastifyRequest): boolean => {
  const code = (request.query as Record<string, unknown> | undefined)?.notice;
  return typeof code === 'string' && Object.hasOwn(SHARE_LINK_NOTICES, code);
};

const galleryNotice = (request: FastifyRequest): Notice | null => {
  const code = (request.query as Record<string, unknown> | undefined)?.notice;
  return (typeof code === 'string' ? NOTICES[code] : undefined) ?? noticeOf(request);
};

const galleryPath = (id: string, notice?: string, anchor?: string): string =>
  `/dashboard/galleries/${id}${notice === undefined ? '' : `?notice=${notice}`}${anchor === undefined ? '' : `#${anchor}`}`;

const one = (value: unknown): string => (typeof value === 'string' ? value : '');

function filtersOf(query: Record<string, unknown>): GalleryFilters {
  const status = one(query.status);
  const sort = one(query.sort);
  return {
    search: one(query.search).trim().slice(0, maxLengthOf(ListingListQuery, 'search')),
    status: (GALLERY_STATUSES as readonly string[]).includes(status) ? (status as GalleryFilters['status']) : '',
    sort: sort in GALLERY_SORTS ? (sort as GallerySort) : '-created_at',
  };
}

/** The form's text as a number for the schema: '' is none, "1,250" is 1250, and text that is no number stays text. */
function numberOf(raw: string): number | string | null {
  if (raw === '') return null;
  const n = Number(raw.replace(/,/g, ''));
  return Number.isFinite(n) ? n : raw;
}

/** Where the schema's own keyword says too little. */
const GALLERY_WORDS: Record<string, FieldWords> = {
  address: { empty: 'Enter the address', invalid: 'Use one line' },
  status: { choice: 'Choose draft, active or archived' },
};

/** The form's gallery, checked by the API's schema (docs/api.md §5), with what is wrong by field. */
function readGallery(form: FormFields): { values: GalleryFormValues; input: ListingCreateInput; errors: FieldErrors } {
  const values: GalleryFormValues = {
    address: form.get('address').trim(),
    status: form.get('status'),
    beds: form.get('beds').trim(),
    baths: form.get('baths').trim(),
    sqft: form.get('sqft').trim(),
    mls_number: form.get('mls_number').trim(),
    description: form.get('description').trim(),
  };
  const body = {
    address: values.address,
    status: values.status,
    beds: numberOf(values.beds),
    baths: numberOf(values.baths),
    sqft: numberOf(values.sqft),
    mls_number: values.mls_number === '' ? null : values.mls_number,
    description: values.description === '' ? null : values.description,
  };
  const errors = schemaFieldErrors(ListingCreateBody, body, GALLERY_WORDS);
  return { values, input: body as ListingCreateInput, errors };
}

const valuesOf = (l: ListingType): GalleryFormValues => ({
  address: l.address,
  status: l.status,
  beds: l.beds === null ? '' : String(l.beds),
  baths: l.baths === null ? '' : String(l.baths),
  sqft: l.sqft === null ? '' : String(l.sqft),
  mls_number: l.mls_number ?? '',
  description: l.description ?? '',
});

/** Only what changed: saving an untouched form writes nothing (no event, no new updated_at). */
function changesOf(l: ListingType, input: ListingCreateInput): ListingUpdateInput {
  const patch: ListingUpdateInput = {};
  if (input.address !== l.address) patch.address = input.address;
  if (input.status !== undefined && input.status !== l.status) patch.status = input.status;
  for (const name of ['beds', 'baths', 'sqft', 'mls_number', 'description'] as const) {
    if (input[name] !== undefined && input[name] !== l[name]) (patch as Record<string, unknown>)[name] = input[name];
  }
  return patch;
}

export function registerGalleriesRoutes(scope: App, ctx: DashboardContext): void {
  const { services } = ctx;
  const params = (request: FastifyRequest) => request.params as { id: string; media_id?: string };

  async function renderGallery(
    request: FastifyRequest,
    id: string,
    form?: { values: GalleryFormValues; errors: FieldErrors },
    tours?: ToursFormState,
    shareLink?: ShareLinkFormState,
    invoice?: GalleryInvoiceForm,
  ) {
    const { viewer, account } = viewerOf(request);
    const listing = await services.listings.get(account.id, id);
    const [media, clients, favorites, emails, client, shareLinks, invoices, kit, compliance] = await Promise.all([
      services.media.list(account.id, id),
      services.clients.list(account.id, { limit: CLIENT_CHOICES }),
      services.listings.favorites(account.id, id),
      services.notifications.ofListing(account.id, id, RECENT_EMAILS),
      listing.client_id === null ? null : services.clients.get(account.id, listing.client_id).catch(() => null),
      shareLinkRows(services, account.id, id),
      galleryInvoices(services, viewer, account, id, invoice),
      services.kit.get(account.id, id),
      galleryCompliance(services, account.id, listing),
    ]);
    const refused = form !== undefined || tours !== undefined || shareLink !== undefined || invoice !== undefined;
    return galleryPage({
      viewer,
      notice: refused ? null : galleryNotice(request),
      listing,
      media: media.data,
      client: client === null ? null : { id: client.id, name: client.name, email: client.email },
      clients: clients.data,
      favorites,
      emails,
      values: form?.values ?? valuesOf(listing),
      errors: form?.errors ?? {},
      limits: ctx.config.media,
      ...(tours === undefined ? {} : { tours }),
      shareLinks: {
        links: shareLinks,
        open: !refused && isShareLinkNotice(request),
        ...(shareLink === undefined ? {} : { form: shareLink }),
      },
      invoices,
      kit,
      compliance,
    });
  }

  scope.get('/galleries', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const query = request.query as Record<string, unknown>;
    const filters = filtersOf(query);
    const cursor = one(query.cursor);
    const ask = {
      limit: PAGE_SIZE,
      sort: filters.sort,
      ...(filters.search === '' ? {} : { search: filters.search }),
      ...(filters.status === '' ? {} : { status: filters.status }),
    };
    let list;
    let notice = galleryNotice(request);
    try {
      list = await services.listings.list(account.id, cursor === '' ? ask : { ...ask, cursor }, COUNTED);
    } catch (err) {
      // A stale or edited cursor: the first page again, saying so.
      if (!(err instanceof AppError && err.code === 'validation_error') || cursor === '') throw err;
      list = await services.listings.list(account.id, ask, COUNTED);
      notice = { kind: 'info', text: 'That page of the list is no longer available: here is the first page.' };
    }
    const clientIds = [...new Set(list.data.map((g) => g.client_id).filter((c): c is string => c !== null))];
    const found = await Promise.all(clientIds.map((c) => services.clients.get(account.id, c).catch(() => null)));
    const clients = new Map(found.filter((c) => c !== null).map((c) => [c.id, c.name]));
    const compliance = await galleryStatuses(services, account.id, list.data);
    const next = list.pagination.next_cursor;
    return sendPage(
      reply,
      galleriesPage({
        viewer,
        notice,
        filters,
        items: list.data,
        total: list.pagination.total,
        totalExact: list.pagination.total_exact,
        clients,
        compliance,
        nextUrl: next === null ? null : galleriesUrl(filters, next),
        paged: cursor !== '',
      }),
    );
  });

  scope.get('/galleries/new', { config: MEMBER, schema: PAGE_ROUTE }, (request, reply) => {
    const { viewer } = viewerOf(request);
    return sendPage(reply, newGalleryPage({ viewer, values: EMPTY_GALLERY, errors: {} }));
  });

  scope.post(
    '/galleries',
    { config: MEMBER, schema: PAGE_ROUTE, bodyLimit: FORM_WITH_TEXT },
    async (request, reply) => {
      const { viewer, account } = viewerOf(request);
      const { values, input, errors } = readGallery(formFields(request.body));
      if (Object.keys(errors).length > 0) return sendPage(reply, newGalleryPage({ viewer, values, errors }), 400);
      const created = await services.listings.create(account.id, input);
      return reply.redirect(galleryPath(created.id, 'gallery-created'), 303);
    },
  );

  scope.get('/galleries/:id', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) =>
    sendPage(reply, await renderGallery(request, params(request).id)),
  );

  scope.post(
    '/galleries/:id',
    { config: MEMBER, schema: PAGE_ROUTE, bodyLimit: FORM_WITH_TEXT },
    async (request, reply) => {
      const { account } = viewerOf(request);
      const { id } = params(request);
      const { values, input, errors } = readGallery(formFields(request.body));
      if (Object.keys(errors).length > 0) {
        return sendPage(reply, await renderGallery(request, id, { values, errors }), 400);
      }
      const current = await services.listings.get(account.id, id);
      const patch = changesOf(current, input);
      if (Object.keys(patch).length > 0) await services.listings.update(account.id, id, patch);
      return reply.redirect(galleryPath(id, 'gallery-saved', 'details'), 303);
    },
  );

  scope.get('/galleries/:id/delete', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const listing = await services.listings.get(account.id, params(request).id);
    return sendPage(reply, deleteGalleryPage({ viewer, listing }));
  });

  scope.post('/galleries/:id/delete', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    await services.listings.remove(account.id, params(request).id, request.log);
    return reply.redirect('/dashboard/galleries?notice=gallery-deleted', 303);
  });

  scope.post('/galleries/:id/property-page', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const { id } = params(request);
    try {
      await services.listings.publishPropertyPage(account.id, id);
    } catch (err) {
      if (err instanceof AppError && err.code === 'conflict') {
        return reply.redirect(galleryPath(id, 'publish-refused', 'property'), 303);
      }
      throw err;
    }
    return reply.redirect(galleryPath(id, 'published', 'property'), 303);
  });

  scope.post('/galleries/:id/property-page/delete', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const { id } = params(request);
    await services.listings.unpublishPropertyPage(account.id, id);
    return reply.redirect(galleryPath(id, 'unpublished', 'property'), 303);
  });

  /** Where an item's form goes back to: its own page (`back=photo`), else its place in the gallery's grid. */
  const itemPath = (form: FormFields, id: string, mediaId: string, notice: string): string =>
    form.get('back') === 'photo'
      ? `/dashboard/galleries/${id}/media/${mediaId}?notice=${notice}`
      : galleryPath(id, notice, `m-${mediaId}`);

  // One media item: caption, hidden, position (the no-JavaScript way to reorder), staging (§31).
  scope.post('/galleries/:id/media/:media_id', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const { id, media_id: mediaId = '' } = params(request);
    const form = formFields(request.body);
    const current = await services.media.get(account.id, id, mediaId);
    // What the form sent, as PATCH .../media/:media_id would take it; undefined when its schema refuses it.
    const patch = itemPatch(form, current);
    if (patch === undefined) return reply.redirect(itemPath(form, id, mediaId, 'media-refused'), 303);
    if (Object.keys(patch).length > 0) {
      try {
        await services.media.update(account.id, id, mediaId, patch);
      } catch (err) {
        if (err instanceof AppError && err.code === 'validation_error') {
          return reply.redirect(itemPath(form, id, mediaId, 'media-refused'), 303);
        }
        throw err;
      }
    }
    return reply.redirect(itemPath(form, id, mediaId, 'media-saved'), 303);
  });

  scope.post('/galleries/:id/media/:media_id/cover', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const { id, media_id: mediaId = '' } = params(request);
    try {
      await services.listings.update(account.id, id, { cover_media_id: mediaId });
    } catch (err) {
      // Not a photo of this gallery (deleted meanwhile, another account's): nothing to set.
      if (err instanceof AppError && err.code === 'validation_error') throw new AppError('not_found', 'No such photo');
      throw err;
    }
    return reply.redirect(itemPath(formFields(request.body), id, mediaId, 'cover-set'), 303);
  });

  scope.post(
    '/galleries/:id/media/:media_id/delete',
    { config: MEMBER, schema: PAGE_ROUTE },
    async (request, reply) => {
      const { account } = viewerOf(request);
      const { id, media_id: mediaId = '' } = params(request);
      await services.media.remove(account.id, id, mediaId, request.log);
      return reply.redirect(galleryPath(id, 'media-deleted', 'media'), 303);
    },
  );

  // The whole order at once (drag and drop): the media ids, comma-separated, as PUT .../media/order takes them.
  scope.post('/galleries/:id/order', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const { id } = params(request);
    const ids = formFields(request.body)
      .get('media_ids')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    await services.media.reorder(account.id, id, ids);
    if ((request.headers.accept ?? '').includes('application/json')) return reply.send({ saved: ids.length });
    return reply.redirect(galleryPath(id, 'order-saved', 'media'), 303);
  });

  registerGalleryMediaRoutes(scope, ctx, { notice: galleryNotice, galleryPath });
  registerGalleryToursRoutes(scope, ctx, (request, id, tours) => renderGallery(request, id, undefined, tours));
  registerGalleryShareLinkRoutes(scope, ctx, (r, id, s) => renderGallery(r, id, undefined, undefined, s));
  registerInvoicesRoutes(scope, ctx, (r, id, f) => renderGallery(r, id, undefined, undefined, undefined, f));
  registerGalleryKitRoutes(scope, ctx);
  registerGalleryComplianceRoutes(scope, ctx, galleryPath);
}
