// docs/api.md §33: the RESO media feed's query (the OData subset) and its record, a RESO Data
// Dictionary Media record in OData JSON.
import { Type, type Static } from '@sinclair/typebox';
import { Id, Int64, StringEnum, Timestamp } from '../../http/schemas.ts';
import { MAX_FILTER_LENGTH } from './reso.odata.ts';

const MAX_TOP = 1_000;
export const DEFAULT_TOP = 100;
const ORDER_FIELD = 'MediaModificationTimestamp';

export const FeedQuery = Type.Object({
  $filter: Type.Optional(
    Type.String({
      maxLength: MAX_FILTER_LENGTH,
      description:
        "Clauses joined by `and`: `ResourceRecordKey eq '...'`, `ResourceRecordID eq '...'` (a quote inside " +
        'written twice), `MediaModificationTimestamp gt <timestamp>` or `ge <timestamp>` (ISO 8601 with a time ' +
        'zone, unquoted). Any other form is 400 `validation_error`.',
    }),
  ),
  $top: Type.Optional(
    Type.Integer({
      format: 'int32',
      minimum: 1,
      maximum: MAX_TOP,
      description: `Records per page, 1..1,000 (default ${DEFAULT_TOP}).`,
    }),
  ),
  $orderby: Type.Optional(
    StringEnum([ORDER_FIELD, `${ORDER_FIELD} asc`], {
      description: 'The one order (also the default): oldest change first, then MediaKey.',
    }),
  ),
  cursor: Type.Optional(
    Type.String({
      maxLength: 512,
      description: 'Where the previous page ended: only as `@odata.nextLink` gives it, with the same `$filter`.',
    }),
  ),
});
export type FeedQueryType = Static<typeof FeedQuery>;

const ResoMedia = Type.Object(
  {
    MediaKey: Id('med', 'The photo id (`med_...`).'),
    ResourceName: Type.Literal('Property'),
    ResourceRecordKey: Type.String({ maxLength: 100, description: "The gallery's mls_number, else its id." }),
    ResourceRecordID: Id('lst', 'The gallery id (`lst_...`).'),
    Order: Int64({ minimum: 1, description: "The photo's position in its gallery." }),
    MediaURL: Type.String({
      format: 'uri',
      maxLength: 2_000,
      description:
        "The photo's mls variant (JPEG) at a link that works without a key for at least 7 days from this answer " +
        '(then 410); a new answer may give a new link.',
    }),
    MediaCategory: Type.Literal('Photo'),
    ImageOf: Type.Union([Type.String({ maxLength: 100 }), Type.Null()], {
      description: 'The room shown, a RESO ImageOf value (docs/api.md §30), or null until it is read.',
    }),
    ShortDescription: Type.Union([Type.String({ maxLength: 2_000 }), Type.Null()], {
      description: "The photo's caption, else its alt text, else null.",
    }),
    ImageWidth: Int64({ minimum: 1, description: 'Of the mls variant, in pixels.' }),
    ImageHeight: Int64({ minimum: 1, description: 'Of the mls variant, in pixels.' }),
    ImageSizeDescription: Type.Literal('Large'),
    MediaModificationTimestamp: Timestamp(
      'When anything else in this record last changed (the link aside): strictly increasing across the account.',
    ),
    Permission: Type.Array(Type.Literal('Public'), { minItems: 1, maxItems: 1, description: 'Always `["Public"]`.' }),
  },
  { title: 'ResoMedia', additionalProperties: false },
);
export type ResoMediaType = Static<typeof ResoMedia>;

export const ResoMediaFeed = Type.Object(
  {
    '@odata.context': Type.String({
      format: 'uri',
      maxLength: 2_000,
      description: "The OData context: the feed's metadata.",
    }),
    value: Type.Array(ResoMedia, { maxItems: MAX_TOP }),
    '@odata.nextLink': Type.Optional(
      Type.String({
        format: 'uri',
        maxLength: 4_000,
        description: 'The next page, present while records follow this one.',
      }),
    ),
  },
  { title: 'ResoMediaFeed', additionalProperties: false },
);
export type ResoMediaFeedType = Static<typeof ResoMediaFeed>;
