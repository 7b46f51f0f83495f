// GET /v1/account (docs/api.md §20): which studio a key belongs to, and which key it is, so a
// connector can label its connection. Any key, any scope.
//
// The account-version ETag of other reads (src/http/conditional.ts) does not fit here: the body
// differs per key under one URL, and the account and key rows are not versioned. So this read tags
// its own body (a hash of it) and answers its own 304.
import { hash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { ifNoneMatch } from '../../http/conditional.ts';
import { Answer, errorResponses } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { ApiKeysService } from '../api-keys/api-keys.service.ts';
import { AccountObject, type AccountObjectType } from './account.schemas.ts';
import type { AccountsService } from './accounts.service.ts';

export function registerAccountRoutes(
  app: App,
  { accounts, apiKeys }: { accounts: AccountsService; apiKeys: ApiKeysService },
): void {
  app.get(
    '/account',
    {
      schema: {
        operationId: 'getAccount',
        summary: 'The studio behind the API key, and the key used',
        description:
          'Any key, any scope. `livemode` is false for a test key. Answers with an `ETag`; a matching ' +
          '`If-None-Match` answers 304.',
        tags: ['Account'],
        response: {
          200: Answer(AccountObject, 'The account and the key used.'),
          304: Type.Null({ description: 'Not modified: the ETag matches.' }),
          ...errorResponses(401),
        },
      },
    },
    async (request, reply) => {
      // A test key answers with its studio, the key's own account (docs/api.md §20).
      const { liveAccountId, keyId, livemode } = request.auth;
      const [account, key] = await Promise.all([accounts.get(liveAccountId), apiKeys.get(liveAccountId, keyId)]);
      const body: AccountObjectType = {
        id: account.id,
        name: account.name,
        email: account.email,
        livemode,
        currency: account.currency,
        key: { id: key.id, name: key.name, prefix: key.prefix, scope: key.scope, expires_at: key.expires_at },
      };
      const json = JSON.stringify(body);
      const etag = `W/"a-${hash('sha256', json, 'base64url').slice(0, 22)}"`;
      void reply.header('etag', etag);
      if (ifNoneMatch(request.headers['if-none-match'], etag) !== 'none') return reply.code(304).send(null);
      return body;
    },
  );
}
