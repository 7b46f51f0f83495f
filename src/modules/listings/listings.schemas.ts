import { Type, type Static } from '@sinclair/typebox';
import {
  IdParam,
  ListOf,
  NullableNumber,
  NullableString,
  PageQuery,
  StringEnum,
  Timestamp,
} from '../../http/schemas.ts';

export const LISTING_STATUSES = ['draft', 'active', 'archived'] as const;

export const ListingStatusSchema = StringEnum(LISTING_STATUSES, {
  description: 'Any transition between the three is allowed.',
});

const fields = {
  address: Type.String({
    minLength: 1,
    maxLength: 500,
    pattern: '^[^\\r\\n]*$',
    description: 'Single-line postal address (trimmed; no line breaks).',
  }),
  beds: NullableNumber({ minimum: 0, maximum: 1000 }),
  baths: NullableNumber({ minimum: 0, maximum: 1000 }),
  sqft: NullableNumber({ minimum: 0, maximum: 10_000_000 }),
  description: NullableString({ maxLength: 10_000 }),
  mls_number: NullableString({ maxLength: 50 }),
  status: ListingStatusSchema,
};

export const ListingCreateBody = Type.Object(
  {
    address: fields.address,
    beds: Type.Optional(fields.beds),
    baths: Type.Optional(fields.baths),
    sqft: Type.Optional(fields.sqft),
    description: Type.Optional(fields.description),
    mls_number: Type.Optional(fields.mls_number),
    status: Type.Optional(fields.status),
  },
  { additionalProperties: false, title: 'ListingCreate' },
);
export type ListingCreateInput = Static<typeof ListingCreateBody>;

export const ListingUpdateBody = Type.Partial(ListingCreateBody, {
  additionalProperties: false,
  minProperties: 1,
  title: 'ListingUpdate',
});
export type ListingUpdateInput = Static<typeof ListingUpdateBody>;

export const Listing = Type.Object(
  {
    id: Type.String({ description: '`lst_` followed by an opaque string.' }),
    address: Type.String(),
    beds: Type.Union([Type.Number(), Type.Null()]),
    baths: Type.Union([Type.Number(), Type.Null()]),
    sqft: Type.Union([Type.Number(), Type.Null()]),
    status: ListingStatusSchema,
    description: Type.Union([Type.String(), Type.Null()]),
    mls_number: Type.Union([Type.String(), Type.Null()]),
    client_id: Type.Union([Type.String(), Type.Null()], { description: 'The assigned client, or null.' }),
    media_count: Type.Integer({ minimum: 0 }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'Listing' },
);
export type ListingType = Static<typeof Listing>;

export const ListingItem = Type.Object(
  {
    id: Type.String(),
    address: Type.String(),
    beds: Type.Union([Type.Number(), Type.Null()]),
    baths: Type.Union([Type.Number(), Type.Null()]),
    sqft: Type.Union([Type.Number(), Type.Null()]),
    status: ListingStatusSchema,
    client_id: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp(),
  },
  { title: 'ListingItem' },
);
export type ListingItemType = Static<typeof ListingItem>;

export const ListingList = ListOf(ListingItem, 'ListingList');

export const ListingListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(StringEnum(LISTING_STATUSES, { description: 'Only galleries in this status.' })),
});
export type ListingListQueryType = Static<typeof ListingListQuery>;

export const ListingParams = Type.Object({ id: IdParam('Gallery id (`lst_...`).') });
