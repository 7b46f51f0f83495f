// docs/api.md §32: the listing kit's routes for the cross-cutting suites (security's route table).
import type { TestAccount } from './test-app.ts';

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
