import { Type, type Static } from '@sinclair/typebox';
import {
  Id,
  IdParam,
  Int32,
  ListOf,
  NullableId,
  NullableText,
  NullableNumber,
  NullableString,
  PageQuery,
  SinceQuery,
  SortQuery,
  StringEnum,
  TextInput,
  NullableTimestamp,
  Timestamp,
  Int64,
} from '../../http/schemas.ts';
import { LISTING_STATUSES } from '../../db/schema.ts';
import { selectionFields } from '../client-links/share-links.schemas.ts';
import { Tours } from './tours.ts';
import { MlsProfileIdField, NullableProfileId } from '../mls/mls.schemas.ts';

const ListingStatusSchema = StringEnum(LISTING_STATUSES, {
  title: 'ListingStatus',
  description: 'Any transition between the three is allowed.',
});

const fields = {
  address: Type.String({
    minLength: 1,
    maxLength: 500,
    pattern: '^[^\\r\\n\\x00\\uD800-\\uDFFF]*$',
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

export const ListingUpdateBody = Type.Object(
  {
    ...Type.Partial(ListingCreateBody).properties,
    cover_media_id: Type.Optional(
      Type.Unsafe<string | null>({
        type: ['string', 'null'],
        maxLength: 40,
        description:
          'A photo of this gallery (400 otherwise), or null: the client gallery then uses the first visible photo.',
      }),
    ),
    tours: Type.Optional({
      ...Tours,
      description: 'The whole list of tours, replacing the current one ([] for none).',
    }),
    mls_profile_id: MlsProfileIdField,
  },
  { additionalProperties: false, minProperties: 1, title: 'ListingUpdate' },
);
export type ListingUpdateInput = Static<typeof ListingUpdateBody>;

/** Numbers as stored: within the bounds a create or update accepts. */
const out = {
  beds: Type.Union([Type.Number({ minimum: 0, maximum: 1000 }), Type.Null()]),
  baths: Type.Union([Type.Number({ minimum: 0, maximum: 1000 }), Type.Null()]),
  sqft: Type.Union([Type.Number({ minimum: 0, maximum: 10_000_000 }), Type.Null()]),
};

const ClientLink = Type.Object(
  {
    url: Type.String({
      format: 'uri',
      maxLength: 4096,
      description: 'PUBLIC_URL/g/<token>: the gallery as the client sees it (no key needed; a capability).',
    }),
    created_at: Timestamp(),
    views: Int64({ minimum: 0, description: 'Page loads of the link.' }),
    first_viewed_at: NullableTimestamp('The first page load, or null.'),
    last_viewed_at: NullableTimestamp('The latest page load, or null.'),
    downloads: Int64({ minimum: 0, description: 'Downloads of an original or of the ZIP (from byte 0).' }),
    expires_at: NullableTimestamp('When the link stops working (its page then answers 410), or null: never.'),
    password_protected: Type.Boolean({ description: 'The link asks for a password (which is never returned).' }),
    downloads_enabled: Type.Boolean({
      description: 'Originals and the ZIP can be downloaded; when false the page only shows the photos.',
    }),
    favorites_count: Int32({ minimum: 0, description: 'Photos the client marked as favorites.' }),
    selection_min: Type.Union([Int32({ minimum: 1, maximum: 10_000 }), Type.Null()], {
      description: 'The fewest photos the selection must hold to be sent, or null.',
    }),
    selection_max: Type.Union([Int32({ minimum: 1, maximum: 10_000 }), Type.Null()], {
      description: 'The most photos that can be marked, or null.',
    }),
  },
  { title: 'ClientLink', additionalProperties: false },
);

const PropertyPage = Type.Object(
  {
    url: Type.String({
      format: 'uri',
      maxLength: 4096,
      description: "PUBLIC_URL/p/<token>: the public property page, with the studio's name.",
    }),
    unbranded_url: Type.String({
      format: 'uri',
      maxLength: 4096,
      description:
        'PUBLIC_URL/p/<token>: the same property with nothing naming or linking to the studio, and no contact ' +
        'details, for listing services that forbid branding.',
    }),
    published_at: Timestamp(),
    views: Int64({ minimum: 0, description: 'Page loads of either page (its embeddable view included).' }),
  },
  { title: 'PropertyPage', additionalProperties: false },
);

export const ClientLinkUpdateBody = Type.Object(
  {
    expires_at: Type.Optional(
      Type.Union([Type.String({ format: 'date-time', maxLength: 64 }), Type.Null()], {
        description: 'A future time when the link stops working, or null: never.',
      }),
    ),
    password: Type.Optional(
      Type.Union([Type.String({ minLength: 8, maxLength: 200 }), Type.Null()], {
        description:
          'The password the client must give (8..200 characters), or null to remove it. Never returned; ' +
          'changing or removing it makes every browser ask again.',
      }),
    ),
    downloads_enabled: Type.Optional(
      Type.Boolean({ description: 'Whether originals and the ZIP can be downloaded (default true).' }),
    ),
    ...selectionFields,
  },
  { additionalProperties: false, minProperties: 1, title: 'ClientLinkUpdate' },
);
export type ClientLinkUpdateInput = Static<typeof ClientLinkUpdateBody>;

export { Favorites, type FavoritesType } from '../client-links/share-links.schemas.ts';

export const Listing = Type.Object(
  {
    id: Id('lst', '`lst_` followed by an opaque string.'),
    address: Type.String({ maxLength: 500 }),
    beds: out.beds,
    baths: out.baths,
    sqft: out.sqft,
    status: ListingStatusSchema,
    description: NullableText(10_000),
    mls_number: NullableText(50),
    client_id: NullableId('cli', 'The assigned client, or null.'),
    media_count: Int32({ minimum: 0 }),
    cover_media_id: NullableId('med', 'A photo of this gallery chosen as its cover, or null.'),
    client_link: Type.Union([ClientLink, Type.Null()], {
      description: 'The link the assigned client opens, with what they did with it; null when unassigned.',
    }),
    property_page: Type.Union([PropertyPage, Type.Null()], {
      description: 'The public property pages while the gallery is published; null when it is not.',
    }),
    tours: Tours,
    mls_profile_id: NullableProfileId,
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'Listing', additionalProperties: false },
);
export type ListingType = Static<typeof Listing>;

export const ListingItem = Type.Object(
  {
    id: Id('lst'),
    address: Type.String({ maxLength: 500 }),
    beds: out.beds,
    baths: out.baths,
    sqft: out.sqft,
    status: ListingStatusSchema,
    client_id: NullableId('cli'),
    created_at: Timestamp(),
  },
  { title: 'ListingItem', additionalProperties: false },
);
export type ListingItemType = Static<typeof ListingItem>;

export const ListingList = ListOf(ListingItem, 'ListingList');

export const ListingListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(StringEnum(LISTING_STATUSES, { description: 'Only galleries in this status.' })),
  client_id: Type.Optional(
    Type.String({
      maxLength: 40,
      pattern: '^(none|cli_[0-9A-Za-z_-]+)$',
      description: "Only this client's galleries (`cli_...`), or `none` for unassigned galleries.",
    }),
  ),
  mls_number: Type.Optional(
    TextInput({ minLength: 1, maxLength: 50, description: 'Only galleries with this MLS number (case-insensitive).' }),
  ),
  search: Type.Optional(
    TextInput({
      maxLength: 200,
      description: 'Case-insensitive substring of the address or the MLS number; `%` and `_` match themselves.',
    }),
  ),
  created_since: SinceQuery('created_at'),
  updated_since: SinceQuery('updated_at'),
  sort: SortQuery,
});
export type ListingListQueryType = Static<typeof ListingListQuery>;

export const ListingParams = Type.Object({ id: IdParam('Gallery id (`lst_...`).') });
