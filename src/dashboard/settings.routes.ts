// Settings > API (keys) and Settings > Studio (names, password).
import multipart from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { continueBody } from '../http/connections.ts';
import { STREAMED_BODY } from '../http/validation.ts';
import { asClientFault } from '../modules/media/media.service.ts';
import { LOGO_MAX_BYTES } from '../modules/variants/variants.logo.ts';
import { registerKitMusicRoutes } from './kit-music.routes.ts';
import { checkToken } from './gallery-media.routes.ts';
import type { KeyScope } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import type { App } from '../http/types.ts';
import { hasIdShape } from '../lib/ids.ts';
import { MIN_PASSWORD_LENGTH } from '../modules/accounts/accounts.service.ts';
import type { ApiKey } from '../modules/api-keys/api-keys.service.ts';
import { ApiKeyCreateBody } from '../modules/api-keys/api-keys.schemas.ts';
import { STUDIO_NAME_MAX_LENGTH } from '../modules/accounts/account.schemas.ts';
import { schemaFieldErrors, type FieldWords, fieldErrors, formFields } from './form.ts';
import { KEY_CREATED, KEY_SHOWN_ONCE, noticeOf } from './notices.ts';
import { PAGE_ROUTE, sendPage, viewerOf, type DashboardContext } from './page.ts';
import { tooManyAttempts } from './session.ts';
import { setSessionCookie } from './security.ts';
import {
  deleteTestDataPage,
  EXPIRY_CHOICES,
  keysPage,
  keysPath,
  revokePage,
  type KeyFormValues,
  type KeyMode,
} from './views/keys.ts';
import type { FieldErrors } from './views/layout.ts';
import { studioPage } from './views/studio.ts';
import { DEFAULT_ROOM_ORDER } from '../modules/analysis/analysis.room-order.ts';

/** The settings page's view of the logo: its key's tail versions the preview's URL. */
const logoView = (key: string | null): { version: string } | null =>
  key === null ? null : { version: key.slice(key.lastIndexOf('-') + 1) };
/** The same for the kit's music track (docs/api.md §32). */
const musicView = logoView;
import { youPage } from './views/you.ts';

/** docs/api.md §27: keys, test data and the studio's settings are the owner's. */
const OWNER = { dashboard: 'owner' } as const;
/** Anyone signed in changes their own password. */
const MEMBER = { dashboard: 'member' } as const;

/** Where the schema's own keyword says too little. */
const KEY_WORDS: Record<string, FieldWords> = {
  name: { empty: 'Give the key a name' },
  scope: { choice: 'Choose full access or read only' },
};

/** The keys page's Test mode switch (docs/api.md §20): `?mode=test`, else live. */
const modeOf = (request: FastifyRequest): KeyMode =>
  (request.query as Record<string, unknown> | undefined)?.mode === 'test' ? 'test' : 'live';

/** The keys of one mode: the switch shows test keys apart from live ones. */
const ofMode = (keys: ApiKey[], mode: KeyMode): ApiKey[] => keys.filter((k) => k.test === (mode === 'test'));

export function registerSettingsRoutes(scope: App, ctx: DashboardContext): void {
  const { services, cookies } = ctx;
  const now = (): number => ctx.clock.now();
  const teamOf = async (accountId: string) => (await services.team.list(accountId)).users;
  /** docs/api.md §32: the kit's settings on the studio page, its music track and its flyer's paper. */
  const kitSettings = async (accountId: string) => ({
    music: musicView(await services.kitMusic.key(accountId)),
    paper: { chosen: await services.kit.paper(accountId), fallback: ctx.config.kit.paper },
  });

  /** One of the holder's own keys; another account's key is simply not found. */
  async function ownKey(request: FastifyRequest, accountId: string): Promise<ApiKey> {
    const { id } = request.params as { id: string };
    const key = hasIdShape('key', id) ? (await services.apiKeys.list(accountId)).find((k) => k.id === id) : undefined;
    if (key === undefined) throw new AppError('not_found', 'No such key');
    return key;
  }

  /** The key held for this session's next keys page, or undefined (none, or already shown). */
  async function takeNewKey(token: string | undefined): Promise<{ id: string; key: string } | undefined> {
    const held = await services.sessions.takeOnce(token);
    if (held === null) return undefined;
    const value = JSON.parse(held) as { id?: unknown; key?: unknown };
    return typeof value.id === 'string' && typeof value.key === 'string' ? { id: value.id, key: value.key } : undefined;
  }

  scope.get('/settings', { config: OWNER, schema: PAGE_ROUTE }, (_request, reply) =>
    reply.redirect('/dashboard/settings/api', 303),
  );

  scope.get('/settings/api', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const mode = modeOf(request);
    const keys = ofMode(await services.apiKeys.list(account.id), mode);
    let notice = noticeOf(request);
    let created: { key: string; apiKey: ApiKey } | undefined;
    if (notice === KEY_CREATED) {
      // The page after a new key's redirect shows it, once: taken from this session as it is read.
      const held = await takeNewKey(request.dashboard.token);
      const apiKey = keys.find((k) => k.id === held?.id);
      created = held === undefined || apiKey === undefined ? undefined : { key: held.key, apiKey };
      notice = created === undefined ? KEY_SHOWN_ONCE : null;
    }
    return sendPage(reply, keysPage({ viewer, keys, mode, now: now(), notice, created }));
  });

  scope.post('/settings/api', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const mode = modeOf(request);
    const form = formFields(request.body);
    const values: KeyFormValues = {
      name: form.get('name').trim(),
      scope: form.get('scope') || 'full',
      expires: form.get('expires'),
    };
    const errors = schemaFieldErrors(ApiKeyCreateBody, { name: values.name, scope: values.scope }, KEY_WORDS);
    if (!EXPIRY_CHOICES.some((c) => c.value === values.expires)) errors.expires = 'Choose one of the options';
    const render = async (e: FieldErrors) =>
      sendPage(
        reply,
        keysPage({
          viewer,
          keys: ofMode(await services.apiKeys.list(account.id), mode),
          mode,
          now: now(),
          values,
          errors: e,
        }),
        400,
      );
    if (Object.keys(errors).length > 0) return render(errors);
    let created;
    try {
      created = await services.apiKeys.create(account.id, {
        name: values.name,
        scope: values.scope as KeyScope,
        ...(values.expires === '' ? {} : { expiresInDays: Number(values.expires) }),
        test: mode === 'test',
      });
    } catch (err) {
      const refused = fieldErrors(err, { expires_in_days: 'expires' });
      if (refused !== null) return render(refused);
      throw err;
    }
    // Post-redirect-get: the key waits, sealed, in this session for the one page after the
    // redirect (no-store). A reload, Back or Forward asks for that page again, never for the form.
    await services.sessions.holdOnce(
      request.dashboard.token,
      JSON.stringify({ id: created.apiKey.id, key: created.key }),
    );
    return reply.redirect(keysPath(mode, 'notice=key-created'), 303);
  });

  scope.get('/settings/api/:id/revoke', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    return sendPage(reply, revokePage({ viewer, key: await ownKey(request, account.id) }));
  });

  scope.post('/settings/api/:id/revoke', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const key = await ownKey(request, account.id);
    // Refused from the next request on this node at once, and on every other within seconds.
    await services.apiKeys.revoke(key.id, account.id);
    return reply.redirect(keysPath(key.test ? 'test' : 'live', 'notice=key-revoked'), 303);
  });

  // docs/api.md §20: "Delete all test data", after a confirmation page (a form: no script needed).
  scope.get('/settings/api/test-data/delete', { config: OWNER, schema: PAGE_ROUTE }, (request, reply) =>
    sendPage(reply, deleteTestDataPage({ viewer: viewerOf(request).viewer })),
  );

  scope.post('/settings/api/test-data/delete', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    await services.testData.removeAll(account.id, request.log);
    return reply.redirect(keysPath('test', 'notice=test-data-deleted'), 303);
  });

  scope.get('/settings/studio', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const values = { name: account.name, sender_name: account.sender_name ?? '', currency: account.currency };
    return sendPage(
      reply,
      studioPage({
        team: await teamOf(account.id),
        roomOrder: await services.accounts.roomOrder(account.id),
        viewer,
        email: account.email,
        values,
        notice: noticeOf(request),
        minPassword: MIN_PASSWORD_LENGTH,
        stripe: { status: await services.stripe.status(account.id) },
        logo: logoView(await services.logos.key(account.id)),
        ...(await kitSettings(account.id)),
      }),
    );
  });

  // docs/api.md §29: the watermark logo. Its preview on the page, the owner's only.
  scope.get('/settings/studio/logo', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const logo = await services.logos.open(account.id);
    if (logo === undefined) throw new AppError('not_found', 'No logo');
    return reply
      .headers({ 'content-type': logo.contentType, 'cache-control': 'private, max-age=3600' })
      .send(logo.body);
  });

  scope.post('/settings/studio/logo/delete', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    await services.logos.remove(account.id, request.log);
    return reply.redirect('/dashboard/settings/studio?notice=logo-removed#watermark', 303);
  });

  // The upload: multipart in a scope of its own (the dashboard parses only small forms), the
  // form's token checked before the file is read, the file read to at most 2 MB and one byte.
  void scope.register(async (child: App) => {
    await child.register(multipart, {
      throwFileSizeLimit: false,
      limits: { fileSize: LOGO_MAX_BYTES + 1, files: 1, fields: 2, fieldSize: 1024, parts: 3, headerPairs: 200 },
    });
    child.post(
      '/settings/studio/logo',
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
        const { viewer, account, session } = viewerOf(request);
        if (!request.isMultipart()) throw new AppError('unsupported_media_type', 'Send the logo form');
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
            if (part.fieldname !== 'logo' || bytes !== undefined) {
              part.file.resume();
              continue;
            }
            const chunks: Buffer[] = [];
            for await (const chunk of part.file) chunks.push(chunk as Buffer);
            bytes = Buffer.concat(chunks);
            tooLarge = part.file.truncated || bytes.length > LOGO_MAX_BYTES;
          }
        } catch (err) {
          throw asClientFault(err);
        }
        try {
          if (tooLarge)
            throw new AppError('validation_error', 'logo is larger than 2 MB', [
              { field: 'logo', message: 'is larger than 2 MB' },
            ]);
          await services.logos.set(account.id, bytes ?? Buffer.alloc(0), request.log);
        } catch (err) {
          const refused = fieldErrors(err);
          if (refused?.logo === undefined) throw err;
          return sendPage(
            reply,
            studioPage({
              team: await teamOf(account.id),
              roomOrder: await services.accounts.roomOrder(account.id),
              stripe: { status: await services.stripe.status(account.id) },
              viewer,
              email: account.email,
              values: { name: account.name, sender_name: account.sender_name ?? '', currency: account.currency },
              minPassword: MIN_PASSWORD_LENGTH,
              logo: logoView(await services.logos.key(account.id)),
              ...(await kitSettings(account.id)),
              logoError: `Not saved: the logo ${refused.logo}.`,
            }),
            400,
          );
        }
        return reply.redirect('/dashboard/settings/studio?notice=logo-saved#watermark', 303);
      },
    );
  });

  // docs/api.md §32: the kit's music track and the flyer's paper; a refused one shows this page with the reason.
  registerKitMusicRoutes(scope, ctx, async (request, refused) => {
    const { viewer, account } = viewerOf(request);
    return studioPage({
      team: await teamOf(account.id),
      roomOrder: await services.accounts.roomOrder(account.id),
      stripe: { status: await services.stripe.status(account.id) },
      viewer,
      email: account.email,
      values: { name: account.name, sender_name: account.sender_name ?? '', currency: account.currency },
      minPassword: MIN_PASSWORD_LENGTH,
      logo: logoView(await services.logos.key(account.id)),
      ...(await kitSettings(account.id)),
      ...(refused.music === undefined ? {} : { musicError: refused.music }),
      ...(refused.paper === undefined ? {} : { paperError: refused.paper }),
    });
  });

  scope.post('/settings/studio', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const form = formFields(request.body);
    const values = {
      name: form.get('name').trim(),
      sender_name: form.get('sender_name').trim(),
      currency: form.get('currency').trim().toUpperCase(),
    };
    try {
      await services.accounts.updateStudio(account.id, {
        name: values.name,
        senderName: values.sender_name,
        // A form without the field (an older page) keeps the currency.
        ...(values.currency === '' ? {} : { currency: values.currency }),
      });
    } catch (err) {
      const refused = fieldErrors(err);
      if (refused === null) throw err;
      if (refused.name !== undefined) refused.name = `Enter a studio name of 1 to ${STUDIO_NAME_MAX_LENGTH} characters`;
      return sendPage(
        reply,
        studioPage({
          team: await teamOf(account.id),
          roomOrder: await services.accounts.roomOrder(account.id),
          stripe: { status: await services.stripe.status(account.id) },
          logo: logoView(await services.logos.key(account.id)),
          ...(await kitSettings(account.id)),
          viewer,
          email: account.email,
          values,
          studioErrors: refused,
          minPassword: MIN_PASSWORD_LENGTH,
        }),
        400,
      );
    }
    return reply.redirect('/dashboard/settings/studio?notice=studio-saved', 303);
  });

  // docs/api.md §30: the room order. Each up or down button sends the whole order and its move,
  // saved at once through the accounts service (which refuses anything but the 14 rooms, each once).
  scope.post('/settings/rooms', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const form = formFields(request.body);
    const move = form.get('move');
    const order = move === 'reset' ? [...DEFAULT_ROOM_ORDER] : [...form.all('room')];
    const step = /^(up|down):(\d{1,2})$/.exec(move);
    if (step !== null) {
      const from = Number(step[2]);
      const to = step[1] === 'up' ? from - 1 : from + 1;
      const [a, b] = [order[from], order[to]];
      if (a !== undefined && b !== undefined) [order[from], order[to]] = [b, a];
    }
    try {
      await services.accounts.setRoomOrder(account.id, order);
    } catch (err) {
      const refused = fieldErrors(err);
      if (refused === null) throw err;
      return sendPage(
        reply,
        studioPage({
          team: await teamOf(account.id),
          roomOrder: await services.accounts.roomOrder(account.id),
          stripe: { status: await services.stripe.status(account.id) },
          logo: logoView(await services.logos.key(account.id)),
          ...(await kitSettings(account.id)),
          roomError: `Not saved: the room order names each of the ${DEFAULT_ROOM_ORDER.length} rooms once (${refused.room_order ?? 'it did not'}).`,
          viewer,
          email: account.email,
          values: { name: account.name, sender_name: account.sender_name ?? '', currency: account.currency },
          minPassword: MIN_PASSWORD_LENGTH,
        }),
        400,
      );
    }
    return reply.redirect('/dashboard/settings/studio?notice=rooms-saved#rooms', 303);
  });

  scope.post('/settings/password', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account, user } = viewerOf(request);
    const form = formFields(request.body);
    const next = form.get('new_password');
    const values = { name: account.name, sender_name: account.sender_name ?? '', currency: account.currency };
    // The owner changes it on the studio page; a member on their own sign-in page.
    const render = async (passwordErrors: FieldErrors, status = 400) =>
      sendPage(
        reply,
        user.role === 'owner'
          ? studioPage({
              team: await teamOf(account.id),
              roomOrder: await services.accounts.roomOrder(account.id),
              stripe: { status: await services.stripe.status(account.id) },
              logo: logoView(await services.logos.key(account.id)),
              ...(await kitSettings(account.id)),
              viewer,
              email: account.email,
              values,
              passwordErrors,
              minPassword: MIN_PASSWORD_LENGTH,
            })
          : youPage({ viewer, status: await services.twoFactor.status(user.id), passwordErrors }),
        status,
      );
    if (form.get('new_password_confirm') !== next) {
      return render({ new_password_confirm: 'The two new passwords are not the same' });
    }
    try {
      // Ends every session of the account, this one included, in one transaction.
      await services.accounts.changePassword(user.id, {
        current: form.get('current_password'),
        next,
        address: request.ip,
      });
    } catch (err) {
      // Past the sign-in limits (this account or this address): the sign-in form's 429 and words.
      if (err instanceof AppError && err.code === 'rate_limited') {
        const retryAfter = err.headers['retry-after'] ?? '60';
        void reply.header('retry-after', retryAfter);
        return render({ current_password: tooManyAttempts(Number(retryAfter)) }, 429);
      }
      const refused = fieldErrors(err);
      if (refused === null) throw err;
      return render(refused);
    }
    // Whoever changed it stays signed in, on a fresh session.
    const { token } = await services.sessions.create(account.id, user.id);
    setSessionCookie(reply, cookies, token);
    const back = user.role === 'owner' ? '/dashboard/settings/studio' : '/dashboard/account';
    return reply.redirect(`${back}?notice=password-changed`, 303);
  });
}
