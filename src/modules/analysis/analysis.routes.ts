// GET /v1/listings/:id/media/suggested_order (docs/api.md §30): the gallery's visible photos in
// the studio's room order, similar photos together with the best first, and why each is where it
// is. Applied with docs/api.md §13's PUT .../media/order.
//
// It tags its own body (as GET /v1/account does): it depends on the studio's room order, an
// account setting that the account versions behind other reads' ETags do not follow.
import { hash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { ifNoneMatch } from '../../http/conditional.ts';
import { Answer, errorResponses, READ_ERRORS } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { ListingMediaParams } from '../media/media.schemas.ts';
import { SuggestedOrder } from './analysis.schemas.ts';
import type { SuggestedOrderService } from './analysis.service.ts';

export function registerAnalysisRoutes(app: App, { suggestedOrder }: { suggestedOrder: SuggestedOrderService }): void {
  app.get(
    '/listings/:id/media/suggested_order',
    {
      schema: {
        operationId: 'getSuggestedMediaOrder',
        summary: "A suggested order of a gallery's photos",
        description:
          "Every visible photo, in the studio's room order (Settings) by `analysis.room`; a photo whose room " +
          'is not read yet goes with `Other`, after those read as `Other`, in its current order. Similar photos ' +
          'stay together at the place of the first of them, the best first. `reasons` says why, photo by photo. ' +
          'Apply it with `PUT .../media/order` (the suggested ids first, then the media it leaves out). ' +
          'Answers with an `ETag`; a matching `If-None-Match` answers 304.',
        tags: ['Media'],
        params: ListingMediaParams,
        response: {
          200: Answer(SuggestedOrder, 'The suggested order and its reasons.'),
          304: Type.Null({ description: 'Not modified: the ETag matches.' }),
          ...errorResponses(...READ_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const { accountId, liveAccountId } = request.auth;
      const body = await suggestedOrder.suggest(accountId, liveAccountId, request.params.id);
      const etag = `W/"so-${hash('sha256', JSON.stringify(body), 'base64url').slice(0, 22)}"`;
      void reply.header('etag', etag);
      if (ifNoneMatch(request.headers['if-none-match'], etag) !== 'none') return reply.code(304).send(null);
      return body;
    },
  );
}
