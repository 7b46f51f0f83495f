// The tours editor's form on a gallery's page (docs/api.md §28): the whole list, saved through the
// API's service; a refused list is shown again as typed, with what to fix by row.
import type { FastifyRequest } from 'fastify';
import type { App } from '../http/types.ts';
import type { SafeHtml } from '../lib/html.ts';
import { MAX_TOURS } from '../modules/listings/tours.ts';
import { fieldErrors, formFields } from './form.ts';
import { PAGE_ROUTE, sendPage, viewerOf, type DashboardContext } from './page.ts';
import type { ToursFormState, TourRow } from './views/tours.ts';

const MEMBER = { dashboard: 'member' } as const;

/** The gallery's page with the tours editor as given (src/dashboard/galleries.routes.ts draws it). */
type RenderGallery = (request: FastifyRequest, id: string, tours: ToursFormState) => Promise<SafeHtml>;

export function registerGalleryToursRoutes(scope: App, { services }: DashboardContext, render: RenderGallery): void {
  // docs/api.md §28: the tours, saved as the whole list (rows left empty are none).
  scope.post('/galleries/:id/tours', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const { id } = request.params as { id: string };
    const form = formFields(request.body);
    const rows: TourRow[] = [];
    for (let i = 0; i < MAX_TOURS + 2; i++) {
      rows.push({
        url: form.get(`tour_url_${i}`).trim(),
        label: form.get(`tour_label_${i}`).trim(),
        unbranded: form.get(`tour_unbranded_${i}`) === '1',
      });
    }
    const kept = rows.filter((r) => r.url !== '' || r.label !== '');
    const errors = new Map<number, string>();
    kept.forEach((r, i) => {
      if (r.url === '') errors.set(i, 'Give the tour its URL, or clear its label to remove it.');
      else if (r.label === '') errors.set(i, 'Give the tour a label (what the pages call it).');
    });
    if (kept.length > MAX_TOURS) errors.set(-1, `At most ${MAX_TOURS} tours: clear the rows you do not need.`);
    if (errors.size === 0) {
      const saved = await services.listings.update(account.id, id, { tours: kept }).then(
        () => true,
        (err: unknown) => {
          const refused = fieldErrors(err);
          if (refused === null) throw err;
          for (const [field, message] of Object.entries(refused)) {
            const index = /^tours\.(\d+)\./.exec(field)?.[1];
            const what = field.endsWith('.url') ? 'The URL' : field.endsWith('.label') ? 'The label' : 'This tour';
            const text = field.endsWith('.url') ? 'must be a full https:// address' : (message ?? 'is not valid');
            errors.set(index === undefined ? -1 : Number(index), `${what} ${text}.`);
          }
          return false;
        },
      );
      if (saved) return reply.redirect(`/dashboard/galleries/${id}?notice=tours-saved#tours`, 303);
    }
    return sendPage(reply, await render(request, id, { rows: kept, errors }), 400);
  });
}
