// docs/api.md §32: GET and POST /v1/listings/:id/kit, and each item's bytes under the key
// (served as variants are: attachment, `nosniff`, sandbox, strong `ETag`/304, one `Range`).
import { Type } from '@sinclair/typebox';
import { sendStoredBytes } from '../../http/send-bytes.ts';
import { Answer, ErrorAnswer, errorResponses, READ_ERRORS } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { MediaContentHeaders } from '../media/media.schemas.ts';
import { Kit, KitItemParams, KitParams } from './kit.schemas.ts';
import type { KitService } from './kit.service.ts';

const tags = ['Galleries'];

/** Every item's bytes: at most the per-file limit (a video); the others are far smaller. */
const ItemBytes = Type.String({ format: 'binary', maxLength: 2 * 1024 ** 3, description: "The item's bytes." });
const itemResponse = (description: string) => ({
  description,
  content: {
    'application/zip': { schema: ItemBytes },
    'application/pdf': { schema: ItemBytes },
    'image/jpeg': { schema: ItemBytes },
    'video/mp4': { schema: ItemBytes },
  },
});

export function registerKitRoutes(app: App, { kit }: { kit: KitService }): void {
  app.get(
    '/listings/:id/kit',
    {
      schema: {
        operationId: 'getKit',
        summary: "A gallery's listing kit",
        description:
          'Its status and items (docs/api.md §32): each null until made, then a URL under the key. `none` until a ' +
          'build is asked for with `POST`.',
        tags,
        params: KitParams,
        response: { 200: Answer(Kit, 'The kit.'), ...errorResponses(...READ_ERRORS) },
      },
    },
    (request) => kit.get(request.auth.accountId, request.params.id),
  );

  app.post(
    '/listings/:id/kit',
    {
      schema: {
        operationId: 'buildKit',
        summary: "Build or rebuild a gallery's listing kit",
        description:
          'Builds it in the background (`building`); `listing.kit_ready` (the kit) is announced when done. Only an ' +
          '`active` gallery with at least one ready photo builds: else 409 `conflict`.',
        tags,
        params: KitParams,
        response: {
          202: Answer(Kit, 'Accepted: the kit, `building`.'),
          ...errorResponses(401, 403, 404, 409),
        },
      },
    },
    async (request, reply) => {
      const body = await kit.build(request.auth.accountId, request.params.id);
      return reply.code(202).send(body);
    },
  );

  app.get(
    '/listings/:id/kit/:name',
    {
      schema: {
        operationId: 'getKitItem',
        summary: "Download one of a gallery's kit items",
        description:
          'Served like media content (attachment, `nosniff`, sandbox, `ETag`/304, one `Range`). 404 until the item ' +
          'is made. The social images are `social_square`, `social_portrait` and `social_story`.',
        tags,
        params: KitItemParams,
        headers: MediaContentHeaders,
        response: {
          200: itemResponse('The item: a ZIP, a PDF, a JPEG or an MP4.'),
          206: itemResponse('The requested byte range of the item (`Content-Range`).'),
          304: Type.Null({ description: 'Not modified: the ETag matches.' }),
          416: ErrorAnswer('Range not satisfiable (`range_not_satisfiable`): the range is outside the file.'),
          ...errorResponses(...READ_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const { id, name } = request.params;
      const file = await kit.file(request.auth.accountId, id, name);
      const sent = await sendStoredBytes(request, reply, file);
      return sent.reply;
    },
  );
}
