// DELETE /v1/test_data (docs/api.md §20): a full test key deletes every test object of its studio.
import type { App } from '../../http/types.ts';
import { AppError } from '../../errors.ts';
import { Answer, errorResponses } from '../../http/schemas.ts';
import { TestDataDeletion } from './test-data.schemas.ts';
import type { TestDataService } from './test-data.service.ts';

export function registerTestDataRoutes(app: App, { testData }: { testData: TestDataService }): void {
  app.delete(
    '/test_data',
    {
      schema: {
        operationId: 'deleteTestData',
        summary: 'Delete all test data',
        description:
          'A full test key only: removes every test object of the account (galleries, media and their ' +
          'bytes, clients, notifications, client links, webhook endpoints, deliveries, events, uploads). ' +
          'Live data is never touched. A live key answers 403.',
        tags: ['Account'],
        response: {
          202: Answer(TestDataDeletion, 'Accepted: the test data is deleted; its stored bytes follow shortly.'),
          ...errorResponses(401, 403),
        },
      },
    },
    async (request, reply) => {
      // A live key is refused, not answered with an empty success (docs/api.md §20).
      if (request.auth.livemode) throw new AppError('forbidden', 'Only a test key (lbx_test_...) can delete test data');
      await testData.removeAll(request.auth.liveAccountId, request.log);
      return reply.code(202).send({ deleted: true as const });
    },
  );
}
