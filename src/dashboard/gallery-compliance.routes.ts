// A gallery's MLS profile and compliance on its dashboard page (docs/api.md §31): what the page's
// panel reads (the studio's profiles, and the report against the gallery's profile, computed by the
// same service as GET /v1/listings/:id/compliance), the form that chooses the profile (through
// the listings service, as PATCH /v1/listings/:id's `mls_profile_id`), and the statuses of the
// list's galleries in one query.
import { AppError } from '../errors.ts';
import type { App } from '../http/types.ts';
import type { ComplianceStatus } from '../db/schema-mls.ts';
import { ListingUpdateBody, type ListingItemType, type ListingType } from '../modules/listings/listings.schemas.ts';
import type { Services } from '../services.ts';
import { formFields, hasErrors, schemaFieldErrors } from './form.ts';
import { PAGE_ROUTE, viewerOf, type DashboardContext } from './page.ts';
import type { ComplianceState } from './views/compliance.ts';
import type { Notice } from './views/layout.ts';

const MEMBER = { dashboard: 'member' } as const;

export const COMPLIANCE_NOTICES: Record<string, Notice> = {
  'mls-profile-set': {
    kind: 'success',
    text: 'MLS profile saved: the gallery is checked against it, and its MLS photos are made to its sizes.',
  },
  'mls-profile-cleared': { kind: 'success', text: 'No MLS profile: its MLS photos are made at the standard size.' },
  'mls-profile-refused': { kind: 'error', text: 'Not saved: choose one of the studio’s MLS profiles, or None.' },
};

/** The gallery page's panel: the studio's profiles, and the report against the gallery's own. */
export async function galleryCompliance(
  services: Services,
  accountId: string,
  listing: ListingType,
): Promise<ComplianceState> {
  const profiles = await services.mls.all(accountId);
  const profile = profiles.find((p) => p.id === listing.mls_profile_id);
  if (profile === undefined) return { profiles, checked: null };
  const report = await services.mls.compliance(accountId, listing.id, profile.id);
  return { profiles, checked: { profile, report } };
}

/**
 * The list's galleries that have a profile, with their last status against it: one query for the
 * page (a gallery with none, or never checked against its own, has no entry).
 */
export function galleryStatuses(
  services: Services,
  accountId: string,
  items: readonly ListingItemType[],
): Promise<Map<string, ComplianceStatus>> {
  return services.mls.statuses(
    accountId,
    items.map((g) => g.id),
  );
}

export function registerGalleryComplianceRoutes(
  scope: App,
  ctx: DashboardContext,
  galleryPath: (id: string, notice?: string, anchor?: string) => string,
): void {
  const { listings } = ctx.services;

  scope.post('/galleries/:id/mls-profile', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const { id } = request.params as { id: string };
    const chosen = formFields(request.body).get('mls_profile_id');
    const profileId = chosen === '' ? null : chosen;
    if (hasErrors(schemaFieldErrors(ListingUpdateBody, { mls_profile_id: profileId }))) {
      return reply.redirect(galleryPath(id, 'mls-profile-refused', 'mls'), 303);
    }
    const current = await listings.get(account.id, id);
    if (current.mls_profile_id !== profileId) {
      try {
        await listings.update(account.id, id, { mls_profile_id: profileId });
      } catch (err) {
        // Not one of the studio's profiles (deleted meanwhile, another studio's): said, nothing changed.
        if (err instanceof AppError && err.code === 'validation_error') {
          return reply.redirect(galleryPath(id, 'mls-profile-refused', 'mls'), 303);
        }
        throw err;
      }
    }
    return reply.redirect(galleryPath(id, profileId === null ? 'mls-profile-cleared' : 'mls-profile-set', 'mls'), 303);
  });
}
