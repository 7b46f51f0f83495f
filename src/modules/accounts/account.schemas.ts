// GET /v1/account (docs/api.md §20): the studio behind a key, and the key itself.
import { Type, type Static } from '@sinclair/typebox';
import { Id, NullableString, NullableTimestamp, TextInput } from '../../http/schemas.ts';
import { MAX_EMAIL_LENGTH } from '../../lib/email-address.ts';

/** A studio's name (and an email's From name): at most this many characters. */
export const STUDIO_NAME_MAX_LENGTH = 200;

/**
 * A studio as the dashboard's forms give it (the first-run setup, Settings > Studio): no /v1 route
 * writes it, so this is where its limits are written, for the forms and the service alike.
 */
export const StudioBody = Type.Object(
  {
    name: TextInput({ minLength: 1, maxLength: STUDIO_NAME_MAX_LENGTH }),
    email: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_EMAIL_LENGTH, format: 'email' })),
    sender_name: Type.Optional(NullableString({ maxLength: STUDIO_NAME_MAX_LENGTH })),
    currency: Type.Optional(Type.String({ minLength: 3, maxLength: 3 })),
  },
  { additionalProperties: false, title: 'Studio' },
);

const AccountKey = Type.Object(
  {
    id: Id('key', 'The key used for this request.'),
    name: Type.String({ maxLength: 200 }),
    prefix: Type.String({ maxLength: 20, description: 'The non-secret start of the key, as lists show it.' }),
    scope: Type.Union([Type.Literal('full'), Type.Literal('read_only')]),
    expires_at: NullableTimestamp('When the key stops working; null: never.'),
  },
  { title: 'AccountKey', additionalProperties: false },
);

export const AccountObject = Type.Object(
  {
    id: Id('acc', 'The studio (`acc_`).'),
    name: Type.String({ maxLength: 200, description: "The studio's name, as emails show it." }),
    email: Type.String({ maxLength: 254, description: "The owner's email address." }),
    livemode: Type.Boolean({ description: 'false when the key is a test key (its data is test data).' }),
    currency: Type.String({
      pattern: '^[A-Z]{3}$',
      minLength: 3,
      maxLength: 3,
      description: "ISO 4217: every amount of the account is an integer in this currency's minor unit.",
    }),
    key: AccountKey,
  },
  { title: 'Account', additionalProperties: false },
);
export type AccountObjectType = Static<typeof AccountObject>;
