import { Type, type Static } from '@sinclair/typebox';
import {
  Id,
  IdParam,
  INT32_MAX,
  ListOf,
  NullableString,
  NullableText,
  PageQuery,
  SinceQuery,
  SortQuery,
  TextInput,
  Timestamp,
  PagedOrWholeListOf,
} from '../../http/schemas.ts';
import { MAX_EMAIL_LENGTH } from '../../lib/email-address.ts';
import { MAX_PAGE_LIMIT } from '../../lib/pagination.ts';
import { ListingItem } from '../listings/listings.schemas.ts';

const fields = {
  name: TextInput({ minLength: 1, maxLength: 200, description: "Person's name (trimmed)." }),
  email: Type.String({
    minLength: 1,
    maxLength: MAX_EMAIL_LENGTH,
    format: 'email',
    description: 'Unique within the account, compared case-insensitively.',
  }),
  phone: NullableString({ maxLength: 50 }),
  company: NullableString({ maxLength: 200 }),
  notes: NullableString({ maxLength: 10_000 }),
};

export const ClientCreateBody = Type.Object(
  {
    name: fields.name,
    email: fields.email,
    phone: Type.Optional(fields.phone),
    company: Type.Optional(fields.company),
    notes: Type.Optional(fields.notes),
  },
  { additionalProperties: false, title: 'ClientCreate' },
);
export type ClientCreateInput = Static<typeof ClientCreateBody>;

export const ClientUpdateBody = Type.Partial(ClientCreateBody, {
  additionalProperties: false,
  minProperties: 1,
  title: 'ClientUpdate',
});
export type ClientUpdateInput = Static<typeof ClientUpdateBody>;

export const Client = Type.Object(
  {
    id: Id('cli', '`cli_` followed by an opaque string.'),
    name: Type.String({ maxLength: 200 }),
    email: Type.String({ maxLength: MAX_EMAIL_LENGTH, format: 'email' }),
    phone: NullableText(50),
    company: NullableText(200),
    notes: NullableText(10_000),
    portal_url: Type.String({
      format: 'uri',
      maxLength: 4096,
      description:
        "PUBLIC_URL/c/<token>: the client's portal, every gallery assigned to them (no key needed; a " +
        'capability). Replaced by `POST /v1/clients/{id}/portal/rotate`.',
    }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
    listings: Type.Array(ListingItem, {
      maxItems: INT32_MAX,
      description: "The client's galleries, newest first (all of them).",
    }),
  },
  { title: 'Client', additionalProperties: false },
);
export type ClientType = Static<typeof Client>;

const ClientItem = Type.Object(
  {
    id: Id('cli'),
    name: Type.String({ maxLength: 200 }),
    email: Type.String({ maxLength: MAX_EMAIL_LENGTH, format: 'email' }),
    phone: NullableText(50),
    company: NullableText(200),
    created_at: Timestamp(),
  },
  { title: 'ClientItem', additionalProperties: false },
);
export type ClientItemType = Static<typeof ClientItem>;

export const ClientList = ListOf(ClientItem, 'ClientList');
export const ClientListingList = PagedOrWholeListOf(ListingItem, 'ClientListingList');

export const ClientListQuery = Type.Object({
  ...PageQuery,
  search: Type.Optional(
    TextInput({
      maxLength: 200,
      description: 'Case-insensitive substring of the name or email; `%` and `_` match themselves.',
    }),
  ),
  created_since: SinceQuery('created_at'),
  updated_since: SinceQuery('updated_at'),
  sort: SortQuery,
});

/** A client's galleries: the whole list without `page`, `limit` and `cursor` (docs/api.md §7), else a page. */
export const ClientListingsQuery = Type.Object({
  page: PageQuery.page,
  // No default here: without page, limit and cursor the answer is the whole list.
  limit: Type.Optional(
    Type.Integer({
      format: 'int32',
      minimum: 1,
      maximum: MAX_PAGE_LIMIT,
      description: 'Items per page, 1 to 100 (default 20 when paging).',
    }),
  ),
  cursor: PageQuery.cursor,
});
export type ClientListingsQueryType = Static<typeof ClientListingsQuery>;
export type ClientListQueryType = Static<typeof ClientListQuery>;

export const ClientParams = Type.Object({ id: IdParam('Client id (`cli_...`).') });
export const ClientListingParams = Type.Object({
  id: IdParam('Client id (`cli_...`).'),
  listing_id: IdParam('Gallery id (`lst_...`).'),
});

export const AssignQuery = Type.Object({
  notify: Type.Optional(
    Type.Boolean({ default: true, description: 'false assigns without an email (no notification is recorded).' }),
  ),
});
