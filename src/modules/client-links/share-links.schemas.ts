// docs/api.md §28: share links, a gallery's links besides its client's, and the proofing fields both
// kinds take (selection_min, selection_max). These schemas validate, serialise and document.
import { Type, type Static } from '@sinclair/typebox';
import {
  Id,
  IdParam,
  Int32,
  Int64,
  ListOf,
  NullableText,
  NullableTimestamp,
  PageQuery,
  SinceQuery,
  SortQuery,
  TextInput,
  Timestamp,
} from '../../http/schemas.ts';
import { MAX_EMAIL_LENGTH } from '../../lib/email-address.ts';

/** docs/api.md §28: at most this many share links per gallery. */
export const MAX_SHARE_LINKS = 50;
/** docs/api.md §28: a selection bound's range. */
const SELECTION_LIMIT_MAX = 10_000;
/** docs/api.md §28: a comment's length. */
export const COMMENT_MAX = 1000;

const SelectionBound = (which: 'min' | 'max') =>
  Type.Union([Type.Integer({ format: 'int32', minimum: 1, maximum: SELECTION_LIMIT_MAX }), Type.Null()], {
    description:
      which === 'min'
        ? 'The fewest photos the selection must hold to be sent (1..10,000), or null: no minimum. At most selection_max.'
        : 'The most photos that can be marked (1..10,000), or null: no maximum. At least selection_min.',
  });

/** The proofing fields of docs/api.md §28, on a client link's PATCH and a share link's create and PATCH. */
export const selectionFields = {
  selection_min: Type.Optional(SelectionBound('min')),
  selection_max: Type.Optional(SelectionBound('max')),
};

const controls = {
  expires_at: Type.Optional(
    Type.Union([Type.String({ format: 'date-time', maxLength: 64 }), Type.Null()], {
      description: 'A future time when the link stops working (its page then answers 410), or null: never.',
    }),
  ),
  password: Type.Optional(
    Type.Union([Type.String({ minLength: 8, maxLength: 200 }), Type.Null()], {
      description:
        'The password the visitor must give (8..200 characters), or null for none. Never returned; changing or ' +
        'removing it makes every browser ask again.',
    }),
  ),
  downloads_enabled: Type.Optional(
    Type.Boolean({ description: 'Whether originals and the ZIP can be downloaded (default true).' }),
  ),
  favorites_enabled: Type.Optional(
    Type.Boolean({
      description: 'Whether the page offers favorites, comments and sending a selection (default true).',
    }),
  ),
  ...selectionFields,
};

const label = TextInput({ minLength: 1, maxLength: 100, description: 'What the studio calls the link (trimmed).' });

export const ShareLinkCreateBody = Type.Object(
  {
    label,
    email: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: MAX_EMAIL_LENGTH, format: 'email' }), Type.Null()], {
        description:
          'Whom to email the link (a notification, `share_link_id` set), or null: no email. Cannot be changed.',
      }),
    ),
    ...controls,
  },
  { additionalProperties: false, title: 'ShareLinkCreate' },
);
export type ShareLinkCreateInput = Static<typeof ShareLinkCreateBody>;

export const ShareLinkUpdateBody = Type.Object(
  { label: Type.Optional(label), ...controls },
  { additionalProperties: false, minProperties: 1, title: 'ShareLinkUpdate' },
);
export type ShareLinkUpdateInput = Static<typeof ShareLinkUpdateBody>;

export const ShareLink = Type.Object(
  {
    id: Id('shl', '`shl_` followed by an opaque string.'),
    listing_id: Id('lst'),
    label: Type.String({ maxLength: 100 }),
    email: Type.Union([Type.String({ maxLength: MAX_EMAIL_LENGTH, format: 'email' }), Type.Null()], {
      description: 'Whom the link was emailed to, or null.',
    }),
    url: Type.String({
      format: 'uri',
      maxLength: 4096,
      description: 'PUBLIC_URL/g/<token>: the gallery as this link shows it (no key needed; a capability).',
    }),
    expires_at: NullableTimestamp('When the link stops working (its page then answers 410), or null: never.'),
    password_protected: Type.Boolean({ description: 'The link asks for a password (which is never returned).' }),
    downloads_enabled: Type.Boolean({ description: 'Originals and the ZIP can be downloaded.' }),
    favorites_enabled: Type.Boolean({ description: 'The page offers favorites, comments and sending a selection.' }),
    selection_min: Type.Union([Int32({ minimum: 1, maximum: SELECTION_LIMIT_MAX }), Type.Null()]),
    selection_max: Type.Union([Int32({ minimum: 1, maximum: SELECTION_LIMIT_MAX }), Type.Null()]),
    views: Int64({ minimum: 0, description: 'Page loads of this link.' }),
    downloads: Int64({ minimum: 0, description: 'Downloads of an original or of a ZIP at this link (from byte 0).' }),
    favorites_count: Int32({ minimum: 0, description: 'Photos marked as favorites at this link.' }),
    first_viewed_at: NullableTimestamp('The first page load, or null.'),
    last_viewed_at: NullableTimestamp('The latest page load, or null.'),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'ShareLink', additionalProperties: false },
);
export type ShareLinkType = Static<typeof ShareLink>;

export const ShareLinkList = ListOf(ShareLink, 'ShareLinkList');

export const ShareLinkListQuery = Type.Object({
  ...PageQuery,
  sort: SortQuery,
  updated_since: SinceQuery('updated_at'),
});
export type ShareLinkListQueryType = Static<typeof ShareLinkListQuery>;

export const ShareLinkParams = Type.Object({
  id: IdParam('Gallery id (`lst_...`).'),
  share_link_id: IdParam('Share link id (`shl_...`).'),
});

/** A comment on a photo (docs/api.md §28). */
const Comment = Type.Object(
  {
    media_id: Id('med'),
    text: Type.String({ maxLength: COMMENT_MAX }),
    updated_at: Timestamp(),
  },
  { title: 'Comment', additionalProperties: false },
);

/** What was marked, written and sent at a link (docs/api.md §25, §28). */
export const Favorites = Type.Object(
  {
    media_ids: Type.Array(Id('med'), {
      maxItems: 100_000,
      description: 'The photos marked at the link, in position order.',
    }),
    note: NullableText(2000),
    comments: Type.Array(Comment, {
      maxItems: 100_000,
      description: 'The comments written on photos at the link, in position order.',
    }),
    submitted_at: NullableTimestamp('When the selection was last sent, or null.'),
    updated_at: NullableTimestamp('When the selection (marks, comments, note) last changed, or null.'),
  },
  { title: 'Favorites', additionalProperties: false },
);
export type FavoritesType = Static<typeof Favorites>;
