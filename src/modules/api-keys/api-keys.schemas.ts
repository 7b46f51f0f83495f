// A new API key, as the dashboard's Settings > API form gives it (keys have no /v1 route: a key
// cannot make keys). The service and the form both hold to this one statement of the limits.
import { Type, type Static } from '@sinclair/typebox';
import { Int32, StringEnum, TextInput } from '../../http/schemas.ts';

export const KEY_NAME_MAX_LENGTH = 100;
export const KEY_MAX_DAYS = 3650;

export const ApiKeyCreateBody = Type.Object(
  {
    name: TextInput({ minLength: 1, maxLength: KEY_NAME_MAX_LENGTH, description: 'For your own reference.' }),
    scope: Type.Optional(StringEnum(['full', 'read_only'] as const)),
    expires_in_days: Type.Optional(Int32({ minimum: 1, maximum: KEY_MAX_DAYS })),
  },
  { additionalProperties: false, title: 'ApiKeyCreate' },
);
type ApiKeyCreateInput = Static<typeof ApiKeyCreateBody>;
