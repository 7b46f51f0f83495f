// MLS profiles in the dashboard (docs/api.md §31), under Settings: the list, a new profile, one
// profile's form, its deletion after a page that asks. Through the same MLS service as
// /v1/mls_profiles; the form is checked by the API's body schema, and the service's own rule
// (min_long_edge at most max_long_edge) comes back beside its field.
import type { FastifyRequest } from 'fastify';
import type { App } from '../http/types.ts';
import {
  MlsProfileCreateBody,
  type MlsProfileCreateInput,
  type MlsProfileType,
  type MlsProfileUpdateInput,
} from '../modules/mls/mls.schemas.ts';
import { fieldErrors, formFields, hasErrors, schemaFieldErrors, type FormFields } from './form.ts';
import { noticeOf } from './notices.ts';
import { PAGE_ROUTE, sendPage, viewerOf, type DashboardContext } from './page.ts';
import { count } from './views/format.ts';
import type { FieldErrors, Notice } from './views/layout.ts';
import {
  deleteMlsProfilePage,
  mlsProfilePage,
  mlsProfilesPage,
  newMlsProfilePage,
  NEW_PROFILE,
  NUMBER_FIELDS,
  profileValues,
  RULE_FIELDS,
  type MlsProfileFormValues,
} from './views/mls-profiles.ts';

/** docs/api.md §27: the studio's settings are the owner's; a member chooses a gallery's profile only. */
const OWNER = { dashboard: 'owner' } as const;

const NOTICES: Record<string, Notice> = {
  'mls-created': { kind: 'success', text: 'Profile added. Choose it on a gallery’s page to check the gallery.' },
  'mls-saved': { kind: 'success', text: 'Profile saved.' },
  'mls-deleted': {
    kind: 'success',
    text: 'The profile was deleted. Galleries that used it have none now.',
  },
};

const mlsNotice = (request: FastifyRequest): Notice | null => {
  const code = (request.query as Record<string, unknown> | undefined)?.notice;
  return (typeof code === 'string' ? NOTICES[code] : undefined) ?? noticeOf(request);
};

/** The form's text as a number for the schema: "10,000,000" is 10000000; text that is no number stays text. */
function numberOf(raw: string): number | string {
  const n = Number(raw.replace(/[,\s_]/g, ''));
  return raw !== '' && Number.isFinite(n) ? n : raw;
}

/** The form's profile in the API's terms, checked by the API's schema, with what is wrong by field. */
function readProfile(form: FormFields): {
  values: MlsProfileFormValues;
  input: MlsProfileCreateInput;
  errors: FieldErrors;
} {
  const values: MlsProfileFormValues = {
    name: form.get('name').trim(),
    max_long_edge: form.get('max_long_edge').trim(),
    min_long_edge: form.get('min_long_edge').trim(),
    max_bytes: form.get('max_bytes').trim(),
    max_photos: form.get('max_photos').trim(),
    forbid_text: form.get('forbid_text') === '1',
    forbid_qr_codes: form.get('forbid_qr_codes') === '1',
    forbid_people: form.get('forbid_people') === '1',
    first_photo_exterior: form.get('first_photo_exterior') === '1',
    disclose_staging: form.get('disclose_staging') === '1',
  };
  const body: Record<string, unknown> = { name: values.name };
  for (const n of NUMBER_FIELDS) body[n] = numberOf(values[n]);
  for (const r of RULE_FIELDS) body[r] = values[r];
  const errors = schemaFieldErrors(MlsProfileCreateBody, body, {
    name: { empty: 'Enter the name of the listing service' },
  });
  return { values, input: body as MlsProfileCreateInput, errors };
}

/** The service's own refusal (min_long_edge over max_long_edge), in the form's words. */
function refusalOf(err: unknown, input: MlsProfileCreateInput): FieldErrors | null {
  const refused = fieldErrors(err);
  if (refused?.min_long_edge !== undefined && input.max_long_edge !== undefined) {
    refused.min_long_edge = `Enter at most ${count(input.max_long_edge)}, the largest long edge`;
  }
  return refused;
}

/** Only what changed: saving an untouched form writes nothing (no event, no remade variants). */
function changesOf(p: MlsProfileType, input: MlsProfileCreateInput): MlsProfileUpdateInput {
  const patch: MlsProfileUpdateInput = {};
  for (const [name, value] of Object.entries(input)) {
    if (value !== p[name as keyof MlsProfileType]) Object.assign(patch, { [name]: value });
  }
  return patch;
}

export function registerMlsProfilesRoutes(scope: App, ctx: DashboardContext): void {
  const { mls } = ctx.services;
  const idOf = (request: FastifyRequest): string => (request.params as { id: string }).id;

  scope.get('/settings/mls', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const items = await mls.all(account.id);
    return sendPage(reply, mlsProfilesPage({ viewer, notice: mlsNotice(request), items }));
  });

  scope.get('/settings/mls/new', { config: OWNER, schema: PAGE_ROUTE }, (request, reply) => {
    const { viewer } = viewerOf(request);
    return sendPage(reply, newMlsProfilePage({ viewer, values: NEW_PROFILE, errors: {} }));
  });

  scope.post('/settings/mls', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const { values, input, errors } = readProfile(formFields(request.body));
    if (hasErrors(errors)) return sendPage(reply, newMlsProfilePage({ viewer, values, errors }), 400);
    let created: MlsProfileType;
    try {
      created = await mls.create(account.id, input);
    } catch (err) {
      const refused = refusalOf(err, input);
      if (refused === null) throw err;
      return sendPage(reply, newMlsProfilePage({ viewer, values, errors: refused }), 400);
    }
    return reply.redirect(`/dashboard/settings/mls/${created.id}?notice=mls-created`, 303);
  });

  scope.get('/settings/mls/:id', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const profile = await mls.get(account.id, idOf(request));
    return sendPage(
      reply,
      mlsProfilePage({ viewer, notice: mlsNotice(request), profile, values: profileValues(profile), errors: {} }),
    );
  });

  scope.post('/settings/mls/:id', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const profile = await mls.get(account.id, idOf(request));
    const { values, input, errors } = readProfile(formFields(request.body));
    const refuse = (e: FieldErrors) =>
      sendPage(reply, mlsProfilePage({ viewer, notice: null, profile, values, errors: e }), 400);
    if (hasErrors(errors)) return refuse(errors);
    const patch = changesOf(profile, input);
    if (Object.keys(patch).length > 0) {
      try {
        await mls.update(account.id, profile.id, patch);
      } catch (err) {
        const refused = refusalOf(err, input);
        if (refused === null) throw err;
        return refuse(refused);
      }
    }
    return reply.redirect(`/dashboard/settings/mls/${profile.id}?notice=mls-saved`, 303);
  });

  scope.get('/settings/mls/:id/delete', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const profile = await mls.get(account.id, idOf(request));
    return sendPage(reply, deleteMlsProfilePage({ viewer, profile }));
  });

  scope.post('/settings/mls/:id/delete', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    await mls.remove(account.id, idOf(request));
    return reply.redirect('/dashboard/settings/mls?notice=mls-deleted', 303);
  });
}
