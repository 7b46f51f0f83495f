// docs/api.md §31: /v1/mls_profiles and GET /v1/listings/:id/compliance.
import type { App } from '../../http/types.ts';
import { Answer, errorResponses, NoContent, READ_ERRORS, WRITE_ERRORS } from '../../http/schemas.ts';
import {
  ComplianceParams,
  ComplianceQuery,
  ComplianceReport,
  MlsProfile,
  MlsProfileCreateBody,
  MlsProfileList,
  MlsProfileListQuery,
  MlsProfileParams,
  MlsProfileUpdateBody,
} from './mls.schemas.ts';
import type { MlsService } from './mls.service.ts';

const tags = ['MLS'];

export function registerMlsRoutes(app: App, { mls }: { mls: MlsService }): void {
  app.get(
    '/mls_profiles',
    {
      schema: {
        operationId: 'listMlsProfiles',
        summary: "List the studio's MLS profiles, newest first",
        tags,
        querystring: MlsProfileListQuery,
        response: { 200: Answer(MlsProfileList, 'A page of MLS profiles, newest first.'), ...errorResponses(400, 401) },
      },
    },
    (request) => mls.list(request.auth.accountId, request.query),
  );

  app.post(
    '/mls_profiles',
    {
      schema: {
        operationId: 'createMlsProfile',
        summary: 'Create an MLS profile',
        description: 'Fields left out take their defaults. `min_long_edge` must not be more than `max_long_edge`.',
        tags,
        body: MlsProfileCreateBody,
        response: {
          201: Answer(MlsProfile, 'Created: the new MLS profile.'),
          ...errorResponses(400, 401, 403, 409, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const profile = await mls.create(request.auth.accountId, request.body);
      return reply.code(201).header('location', `/v1/mls_profiles/${profile.id}`).send(profile);
    },
  );

  app.get(
    '/mls_profiles/:id',
    {
      schema: {
        operationId: 'getMlsProfile',
        summary: 'Get an MLS profile',
        tags,
        params: MlsProfileParams,
        response: { 200: Answer(MlsProfile, 'The MLS profile.'), ...errorResponses(...READ_ERRORS) },
      },
    },
    (request) => mls.get(request.auth.accountId, request.params.id),
  );

  app.patch(
    '/mls_profiles/:id',
    {
      schema: {
        operationId: 'updateMlsProfile',
        summary: 'Change some fields of an MLS profile',
        description:
          'A change of `max_long_edge`, `min_long_edge` or `max_bytes` makes the `mls` variants of the galleries ' +
          'that use it again, in the background; the old ones are served until then.',
        tags,
        params: MlsProfileParams,
        body: MlsProfileUpdateBody,
        response: { 200: Answer(MlsProfile, 'The MLS profile, as changed.'), ...errorResponses(...WRITE_ERRORS) },
      },
    },
    (request) => mls.update(request.auth.accountId, request.params.id, request.body),
  );

  app.delete(
    '/mls_profiles/:id',
    {
      schema: {
        operationId: 'deleteMlsProfile',
        summary: 'Delete an MLS profile; the galleries that use it are left with none',
        description:
          'Each gallery that used it gets `mls_profile_id` null (and `listing.updated`); its `mls` variants are ' +
          'made again at the configured size.',
        tags,
        params: MlsProfileParams,
        response: {
          204: NoContent('No content: the MLS profile is deleted.'),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      await mls.remove(request.auth.accountId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/listings/:id/compliance',
    {
      schema: {
        operationId: 'getListingCompliance',
        summary: "A gallery's compliance with an MLS profile",
        description:
          "Against the gallery's profile, or the one `profile_id` names (400 when neither is there). Every visible " +
          'photo, in order, with what it breaks; `pending` while any of them is being analysed.',
        tags,
        params: ComplianceParams,
        querystring: ComplianceQuery,
        response: { 200: Answer(ComplianceReport, 'The compliance report.'), ...errorResponses(...READ_ERRORS) },
      },
    },
    (request) => mls.compliance(request.auth.accountId, request.params.id, request.query.profile_id),
  );
}
