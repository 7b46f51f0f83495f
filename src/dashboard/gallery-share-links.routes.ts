// A gallery's share links from its dashboard page (docs/api.md §28): make one, change its controls,
// email it again, give it a new URL, delete it (after a page that asks). Every write is the share
// links service's, as its /v1 twin's, so events, emails and counts stay right whatever wrote. A
// refused form comes back as typed (400) with what to fix beside each field.
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { App } from '../http/types.ts';
import type { SafeHtml } from '../lib/html.ts';
import {
  MAX_SHARE_LINKS,
  ShareLinkCreateBody,
  ShareLinkUpdateBody,
  type ShareLinkCreateInput,
  type ShareLinkType,
  type ShareLinkUpdateInput,
} from '../modules/client-links/share-links.schemas.ts';
import { fieldErrors, formFields, hasErrors, schemaFieldErrors, type FormFields } from './form.ts';
import { PAGE_ROUTE, sendPage, viewerOf, type DashboardContext } from './page.ts';
import type { Services } from '../services.ts';
import type { FieldErrors, Notice } from './views/layout.ts';
import {
  deleteShareLinkPage,
  valuesOfLink,
  type ShareLinkFormState,
  type ShareLinkFormValues,
  type ShareLinkRow,
} from './views/share-links.ts';

const MEMBER = { dashboard: 'member' } as const;

/** What the share link forms' redirects can say (`?notice=`); each opens the panel. */
export const SHARE_LINK_NOTICES: Record<string, Notice> = {
  'share-link-created': { kind: 'success', text: 'Share link created. Copy its URL below to send it.' },
  'share-link-emailed': {
    kind: 'success',
    text: 'Share link created; the email with its URL is on its way.',
  },
  'share-link-saved': { kind: 'success', text: 'Share link saved.' },
  'share-link-emailed-again': { kind: 'success', text: 'The email with the share link is on its way again.' },
  'share-link-no-email': { kind: 'error', text: 'That share link has no email address to send it to.' },
  'share-link-rotated': { kind: 'success', text: 'The share link has a new URL: the old one no longer works.' },
  'share-link-deleted': { kind: 'success', text: 'Share link deleted: its URL no longer works.' },
  'share-link-limit': {
    kind: 'error',
    text: `Not created: a gallery can have at most ${MAX_SHARE_LINKS} share links. Delete one first.`,
  },
};

/** The gallery's share links (at most 50: one page), each with what was sent at it. */
export async function shareLinkRows(services: Services, accountId: string, id: string): Promise<ShareLinkRow[]> {
  const list = await services.shareLinks.list(accountId, id, { limit: MAX_SHARE_LINKS });
  return Promise.all(
    list.data.map(async (link) => ({ link, favorites: await services.shareLinks.favorites(accountId, id, link.id) })),
  );
}

/** The gallery's page with a share link's form as typed (src/dashboard/galleries.routes.ts draws it). */
type RenderGallery = (request: FastifyRequest, id: string, form: ShareLinkFormState) => Promise<SafeHtml>;

const back = (id: string, notice: string, linkId?: string): string =>
  `/dashboard/galleries/${id}?notice=${notice}#${linkId ?? 'share-links'}`;

/** A number as typed: '' is none, "1,000" is 1000, and text that is no number stays text for the schema. */
function bound(raw: string): number | string | null {
  if (raw === '') return null;
  const n = Number(raw.replace(/,/g, ''));
  return Number.isFinite(n) ? n : raw;
}

/** The form as typed. */
function valuesOf(form: FormFields): ShareLinkFormValues {
  return {
    label: form.get('label').trim(),
    email: form.get('email').trim(),
    expires_on: form.get('expires_on').trim(),
    remove_password: form.get('remove_password') === '1',
    downloads_enabled: form.get('downloads_enabled') === '1',
    favorites_enabled: form.get('favorites_enabled') === '1',
    selection_min: form.get('selection_min').trim(),
    selection_max: form.get('selection_max').trim(),
  };
}

/** Where the schema's keyword says too little. */
const WORDS = { label: { empty: 'Give the link a label' } };
const EMAIL = 'Enter an email address like name@example.com';
const BOUND = 'Enter a whole number from 1 to 10,000, or leave it empty';

/** The schema's refusals in the form's words (a bound is a union with null: its own words say more). */
function schemaErrors(schema: typeof ShareLinkCreateBody | typeof ShareLinkUpdateBody, body: Record<string, unknown>) {
  const errors = schemaFieldErrors(schema, body, WORDS);
  for (const name of ['selection_min', 'selection_max'] as const) if (errors[name] !== undefined) errors[name] = BOUND;
  // An email is a union with null too: anything but too long is not an address.
  if (errors.email !== undefined && !errors.email.startsWith('Use at most')) errors.email = EMAIL;
  return errors;
}

/** The controls as the API takes them (a day as the end of it, UTC), with what is wrong by field. */
function controlsOf(v: ShareLinkFormValues, password: string): { body: Record<string, unknown>; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const body: Record<string, unknown> = {
    label: v.label,
    downloads_enabled: v.downloads_enabled,
    favorites_enabled: v.favorites_enabled,
    selection_min: bound(v.selection_min),
    selection_max: bound(v.selection_max),
  };
  if (v.expires_on === '') body.expires_at = null;
  else if (/^\d{4}-\d{2}-\d{2}$/.test(v.expires_on) && !Number.isNaN(Date.parse(v.expires_on)))
    body.expires_at = `${v.expires_on}T23:59:59.999Z`;
  else errors.expires_on = 'Enter a day, like 2027-03-31';
  // Said with the other refusals at once (the service checks it too, against the link as stored).
  const [min, max] = [body.selection_min, body.selection_max];
  if (typeof min === 'number' && typeof max === 'number' && min > max) {
    errors.selection_min = 'The fewest must not be more than the most';
  }
  if (v.remove_password) body.password = null;
  else if (password !== '') body.password = password;
  return { body, errors };
}

/** The service's refusals in the form's words, by field. */
function refusedFields(err: unknown): FieldErrors | null {
  const refused = fieldErrors(err);
  if (refused === null) return null;
  const errors: FieldErrors = {};
  for (const [field, message] of Object.entries(refused)) {
    if (field === 'expires_at') errors.expires_on = 'Choose a day after today, or leave it empty';
    else if (field === 'selection_min' || field === 'selection_max')
      errors.selection_min = 'The fewest must not be more than the most';
    else errors[field] = message ?? 'Check this value';
  }
  return errors;
}

/** Only what changed: saving an untouched form writes nothing (no event, no new updated_at). */
function changesOf(current: ShareLinkType, body: Record<string, unknown>): ShareLinkUpdateInput {
  const patch: Record<string, unknown> = {};
  const now = valuesOfLink(current);
  if (body.label !== current.label) patch.label = body.label;
  if (body.downloads_enabled !== current.downloads_enabled) patch.downloads_enabled = body.downloads_enabled;
  if (body.favorites_enabled !== current.favorites_enabled) patch.favorites_enabled = body.favorites_enabled;
  if (body.selection_min !== current.selection_min) patch.selection_min = body.selection_min;
  if (body.selection_max !== current.selection_max) patch.selection_max = body.selection_max;
  // The same day is no change (an expiry set through the API keeps its own time of day).
  const day = typeof body.expires_at === 'string' ? body.expires_at.slice(0, 10) : '';
  if (day !== now.expires_on) patch.expires_at = body.expires_at;
  if (body.password !== undefined && !(body.password === null && !current.password_protected))
    patch.password = body.password;
  return patch;
}

export function registerGalleryShareLinkRoutes(
  scope: App,
  { services }: DashboardContext,
  render: RenderGallery,
): void {
  const shareLinks = services.shareLinks;
  const params = (request: FastifyRequest) => request.params as { id: string; share_link_id: string };

  scope.post('/galleries/:id/share-links', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const { id } = params(request);
    const form = formFields(request.body);
    const values = valuesOf(form);
    const { body, errors } = controlsOf(values, form.get('password'));
    if (values.email !== '') body.email = values.email;
    // The gallery first: another account's is the 404 page, whatever the form says.
    await services.listings.get(account.id, id);
    const refuse = async (errs: FieldErrors) =>
      sendPage(reply, await render(request, id, { id: null, values, errors: errs }), 400);
    const all = { ...schemaErrors(ShareLinkCreateBody, body), ...errors };
    if (hasErrors(all)) return refuse(all);
    let created: ShareLinkType;
    try {
      created = await shareLinks.create(account.id, id, body as ShareLinkCreateInput);
    } catch (err) {
      if (err instanceof AppError && err.code === 'conflict') return reply.redirect(back(id, 'share-link-limit'), 303);
      const refused = refusedFields(err);
      if (refused === null) throw err;
      return refuse(refused);
    }
    return reply.redirect(
      back(id, created.email === null ? 'share-link-created' : 'share-link-emailed', created.id),
      303,
    );
  });

  scope.post(
    '/galleries/:id/share-links/:share_link_id',
    { config: MEMBER, schema: PAGE_ROUTE },
    async (request, reply) => {
      const { account } = viewerOf(request);
      const { id, share_link_id: linkId } = params(request);
      const form = formFields(request.body);
      const current = await shareLinks.get(account.id, id, linkId);
      const values = { ...valuesOf(form), email: current.email ?? '' };
      const { body, errors } = controlsOf(values, form.get('password'));
      const refuse = async (errs: FieldErrors) =>
        sendPage(reply, await render(request, id, { id: linkId, values, errors: errs }), 400);
      const all = { ...schemaErrors(ShareLinkUpdateBody, body), ...errors };
      if (hasErrors(all)) return refuse(all);
      const patch = changesOf(current, body);
      if (Object.keys(patch).length > 0) {
        try {
          await shareLinks.update(account.id, id, linkId, patch);
        } catch (err) {
          const refused = refusedFields(err);
          if (refused === null) throw err;
          return refuse(refused);
        }
      }
      return reply.redirect(back(id, 'share-link-saved', linkId), 303);
    },
  );

  scope.post(
    '/galleries/:id/share-links/:share_link_id/notify',
    { config: MEMBER, schema: PAGE_ROUTE },
    async (request, reply) => {
      const { account } = viewerOf(request);
      const { id, share_link_id: linkId } = params(request);
      try {
        await shareLinks.notify(account.id, id, linkId);
      } catch (err) {
        // A link without an email (the button is not shown for one): say so rather than fail.
        if (err instanceof AppError && err.code === 'conflict') {
          return reply.redirect(back(id, 'share-link-no-email', linkId), 303);
        }
        throw err;
      }
      return reply.redirect(back(id, 'share-link-emailed-again', linkId), 303);
    },
  );

  scope.post(
    '/galleries/:id/share-links/:share_link_id/rotate',
    { config: MEMBER, schema: PAGE_ROUTE },
    async (request, reply) => {
      const { account } = viewerOf(request);
      const { id, share_link_id: linkId } = params(request);
      await shareLinks.rotate(account.id, id, linkId);
      return reply.redirect(back(id, 'share-link-rotated', linkId), 303);
    },
  );

  scope.get(
    '/galleries/:id/share-links/:share_link_id/delete',
    { config: MEMBER, schema: PAGE_ROUTE },
    async (request, reply) => {
      const { viewer, account } = viewerOf(request);
      const { id, share_link_id: linkId } = params(request);
      const [listing, link] = await Promise.all([
        services.listings.get(account.id, id),
        shareLinks.get(account.id, id, linkId),
      ]);
      return sendPage(reply, deleteShareLinkPage({ viewer, listing, link }));
    },
  );

  scope.post(
    '/galleries/:id/share-links/:share_link_id/delete',
    { config: MEMBER, schema: PAGE_ROUTE },
    async (request, reply) => {
      const { account } = viewerOf(request);
      const { id, share_link_id: linkId } = params(request);
      await shareLinks.delete(account.id, id, linkId);
      return reply.redirect(back(id, 'share-link-deleted'), 303);
    },
  );
}
