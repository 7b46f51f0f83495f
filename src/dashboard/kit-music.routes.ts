// Settings > Studio > Listing kit music (docs/api.md §32): the track the kit's slideshows and reel
// carry, uploaded, played back and removed by the owner; kept as the watermark logo is
// (settings.routes.ts, kit.music.ts). Beside it, the paper the kit's flyer is laid out for.
import multipart from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import { continueBody } from '../http/connections.ts';
import type { App } from '../http/types.ts';
import { STREAMED_BODY } from '../http/validation.ts';
import type { SafeHtml } from '../lib/html.ts';
import { MUSIC_MAX_BYTES } from '../modules/kit/kit.music.ts';
import { asClientFault } from '../modules/media/media.service.ts';
import { fieldErrors, formFields } from './form.ts';
import { checkToken } from './gallery-media.routes.ts';
import { PAGE_ROUTE, sendPage, viewerOf, type DashboardContext } from './page.ts';

const OWNER = { dashboard: 'owner' } as const;

export function registerKitMusicRoutes(
  scope: App,
  { services }: DashboardContext,
  refusedPage: (request: FastifyRequest, refused: { music?: string; paper?: string }) => Promise<SafeHtml>,
): void {
  // docs/api.md §32: the flyer's paper (letter or A4), saved through the kit's service.
  scope.post('/settings/studio/paper', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const paper = formFields(request.body).get('paper');
    if (paper !== 'letter' && paper !== 'a4') {
      return sendPage(reply, await refusedPage(request, { paper: 'Not saved: choose Letter or A4.' }), 400);
    }
    await services.kit.setPaper(account.id, paper);
    return reply.redirect('/dashboard/settings/studio?notice=paper-saved#paper', 303);
  });

  // docs/api.md §32: the music track of the listing kit's videos, kept as the logo is. Its player
  // on the page, the owner's only.
  scope.get('/settings/studio/music', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const music = await services.kitMusic.open(account.id);
    if (music === undefined) throw new AppError('not_found', 'No music');
    return reply
      .headers({ 'content-type': music.contentType, 'cache-control': 'private, max-age=3600' })
      .send(music.body);
  });

  scope.post('/settings/studio/music/delete', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    await services.kitMusic.remove(account.id, request.log);
    return reply.redirect('/dashboard/settings/studio?notice=music-removed#music', 303);
  });

  // The upload, as the logo's: multipart in a scope of its own, the token checked before the file
  // is read, the file read to at most 20 MB and one byte.
  void scope.register(async (child: App) => {
    await child.register(multipart, {
      throwFileSizeLimit: false,
      limits: { fileSize: MUSIC_MAX_BYTES + 1, files: 1, fields: 2, fieldSize: 1024, parts: 3, headerPairs: 200 },
    });
    child.post(
      '/settings/studio/music',
      {
        ...STREAMED_BODY,
        config: { ...STREAMED_BODY.config, ...OWNER },
        schema: PAGE_ROUTE,
        onError: (_request: FastifyRequest, reply: FastifyReply, _error: unknown, done: () => void) => {
          void reply.header('connection', 'close');
          done();
        },
      },
      async (request, reply) => {
        const { account, session } = viewerOf(request);
        if (!request.isMultipart()) throw new AppError('unsupported_media_type', 'Send the music form');
        continueBody(request, reply);
        const parts = request.parts()[Symbol.asyncIterator]();
        await checkToken(request, session.csrfToken, parts);
        let bytes: Buffer | undefined;
        let tooLarge = false;
        try {
          for (;;) {
            const next = await parts.next();
            if (next.done === true) break;
            const part = next.value;
            if (part.type !== 'file') continue;
            if (part.fieldname !== 'music' || bytes !== undefined) {
              part.file.resume();
              continue;
            }
            const chunks: Buffer[] = [];
            for await (const chunk of part.file) chunks.push(chunk as Buffer);
            bytes = Buffer.concat(chunks);
            tooLarge = part.file.truncated || bytes.length > MUSIC_MAX_BYTES;
          }
        } catch (err) {
          throw asClientFault(err);
        }
        try {
          if (tooLarge)
            throw new AppError('validation_error', 'music is larger than 20 MB', [
              { field: 'music', message: 'is larger than 20 MB' },
            ]);
          await services.kitMusic.set(account.id, bytes ?? Buffer.alloc(0), request.log);
        } catch (err) {
          const refused = fieldErrors(err);
          if (refused?.music === undefined) throw err;
          return sendPage(reply, await refusedPage(request, { music: `Not saved: the music ${refused.music}.` }), 400);
        }
        return reply.redirect('/dashboard/settings/studio?notice=music-saved#music', 303);
      },
    );
  });
}
