// docs/api.md §32: the listing kit's routes for the cross-cutting suites (security's route table),
// and a kit built now for the suites that show one (the dashboard, the property pages).
import { createJobRunner } from '../../src/mechanisms/queue/queue.runner.ts';
import { kitHandler } from '../../src/modules/kit/kit.job.ts';
import { makeVariantsNow } from './media-helpers.ts';
import type { TestAccount, TestContext } from './test-app.ts';

/** A new gallery has no photo: building its kit is 409, and it has no item to download (404). */
export function kitRouteCases(newListing: (account: TestAccount) => Promise<string>) {
  const at = async (a: TestAccount, tail: string, status: number) => ({
    url: `/v1/listings/${await newListing(a)}/kit${tail}`,
    status,
  });
  return [
    { method: 'GET' as const, path: '/v1/listings/:id/kit', prepare: (a: TestAccount) => at(a, '', 200) },
    { method: 'POST' as const, path: '/v1/listings/:id/kit', prepare: (a: TestAccount) => at(a, '', 409) },
    { method: 'GET' as const, path: '/v1/listings/:id/kit/:name', prepare: (a: TestAccount) => at(a, '/flyer', 404) },
  ];
}

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * Runs every due `listing.kit` job now, as the serve process's runner would, with videos an eighth
 * of their size (a full-size slideshow takes a while on two cores). Set KIT_SECONDS_PER_PHOTO low
 * in the test's context to make them short too. Variants due are made first: a build gives way
 * to them (it would only be postponed).
 */
export async function buildKitNow(ctx: TestContext): Promise<void> {
  await makeVariantsNow(ctx);
  const handler = kitHandler({ ...ctx.deps, writes: ctx.services.writes }, ctx.services.mediaCleanup, quiet, {
    videoScale: 0.125,
    music: (id) => ctx.services.kitMusic.open(id),
  });
  await createJobRunner(ctx.deps, quiet, handler).drain();
}
