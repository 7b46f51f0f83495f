// docs/api.md §33: GET /v1/reso/Media, the RESO media feed (any key). Its ETag is the account's
// version (docs/api.md §17) and the day: a page's MediaURLs are the day's links (reso.service.ts),
// so an answer is never reused past the day it was made on, even while nothing else changes.
import { hash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, onSendHookHandler } from 'fastify';
import { gzipWhenAsked } from '../../http/compress.ts';
import { ifNoneMatch } from '../../http/conditional.ts';
import type { App } from '../../http/types.ts';
import { Answer, errorResponses } from '../../http/schemas.ts';
import type { Clock } from '../../lib/clock.ts';
import type { VersionsService } from '../../mechanisms/versions/versions.service.ts';
import { FeedQuery, ResoMediaFeed } from './reso.schemas.ts';
import { feedDay, type ResoService } from './reso.service.ts';

/** A 304 states no length (as src/http/conditional.ts's): it has no body, for GET and HEAD alike. */
const noLengthOn304: onSendHookHandler = (_request, reply, payload, done) => {
  if (reply.statusCode !== 304) {
    done(null, payload);
    return;
  }
  void reply.removeHeader('content-length').removeHeader('content-type');
  done(null, payload);
};

export function registerResoRoutes(
  app: App,
  { reso, versions }: { reso: ResoService; versions: VersionsService },
  clock: Clock,
): void {
  // After every other onSend of the route, the one Fastify gives its HEAD twin (which states 0) included.
  app.addHook('onRoute', (route) => {
    if (route.config?.noLengthOn304 !== true) return;
    const own = route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend];
    route.onSend = [...own, noLengthOn304];
  });
  app.get(
    '/reso/Media',
    {
      schema: {
        operationId: 'resoMedia',
        summary: "The account's shown photos as RESO Media records (OData)",
        description:
          'RESO Data Dictionary Media records in OData JSON, oldest change first (`MediaModificationTimestamp`, ' +
          'then `MediaKey`), paged by `@odata.nextLink`. A photo is listed once its variants are ready, unless ' +
          'hidden. `MediaModificationTimestamp` moves whenever anything else in the record changes; a photo ' +
          'changed while a client pages comes again on a later page. A `$` option other than `$filter`, `$top` and ' +
          '`$orderby`, or another filter form, is 400 `validation_error` naming it. Gzip-compressed when ' +
          '`Accept-Encoding` asks. `ETag`/`If-None-Match` (304) as other reads, and a new tag each day (UTC).',
        tags: ['RESO'],
        querystring: FeedQuery,
        response: {
          200: Answer(ResoMediaFeed, 'A page of RESO Media records.'),
          304: Type.Null({ description: 'Not modified: the ETag matches.' }),
          ...errorResponses(400, 401, 429),
        },
      },
      onSend: gzipWhenAsked,
      config: { noLengthOn304: true },
    },
    async (request, reply) => {
      const { accountId } = request.auth;
      const { version } = await versions.current(accountId);
      const day = feedDay(clock.now());
      const etag = `W/"${version}-${hash('sha256', `${accountId}\n${day}\n${request.url}`, 'base64url').slice(0, 16)}"`;
      void reply.header('etag', etag);
      if (ifNoneMatch(request.headers['if-none-match'], etag) !== 'none')
        return (reply as FastifyReply).code(304).send();
      return reso.media(accountId, request.query);
    },
  );
}
