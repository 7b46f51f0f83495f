import { Type, type Static } from '@sinclair/typebox';
import {
  Id,
  IdParam,
  Int32,
  Int64,
  NullableId,
  NullableString,
  NullableText,
  StringEnum,
  Timestamp,
  WholeListOf,
} from '../../http/schemas.ts';
import { ACCEPTED_TYPES, FILENAME_MAX } from './media.ingest.ts';
import { Analysis } from '../analysis/analysis.schemas.ts';

import type { MediaConfig } from '../../config.ts';
import { MAX_WEBHOOK_URL_LENGTH } from '../../outbound/address.ts';

/**
 * The limits the media schemas document: the configured ones (MEDIA_MAX_FILE_BYTES, MEDIA_MAX_FILES,
 * and VARIANT_MLS_SIZE, which bounds the variants' bytes).
 */
export type UploadLimits = Pick<MediaConfig, 'maxFileBytes' | 'maxFiles' | 'variants'>;
/** A conditional or range header longer than this is refused (400) rather than parsed. */
const HEADER_MAX = 1024;

const CAPTION_MAX = 2000;

export const VARIANT_NAMES = ['thumb', 'large', 'mls', 'poster', 'web'] as const;

const Variant = Type.Object(
  {
    url: Type.String({ format: 'uri', maxLength: 4096, description: 'Absolute URL of the bytes (needs the API key).' }),
    content_type: StringEnum(['image/webp', 'image/jpeg', 'video/mp4'] as const),
    width: Int32({ minimum: 1 }),
    height: Int32({ minimum: 1 }),
    size: Int64({ minimum: 0, description: 'Bytes.' }),
  },
  { title: 'MediaVariant', additionalProperties: false },
);
const NullableVariant = (description: string) => Type.Union([Variant, Type.Null()], { description });

const Variants = Type.Object(
  {
    status: StringEnum(['pending', 'ready', 'failed'] as const, {
      description: 'Made in the background after upload; `failed` when the photo cannot be decoded.',
    }),
    thumb: NullableVariant('WebP within 480x480; null until ready.'),
    large: NullableVariant('JPEG within 2048x2048; null until ready.'),
    mls: NullableVariant('JPEG within VARIANT_MLS_SIZE (2048x1536 by default); null until ready.'),
  },
  { title: 'MediaVariants', additionalProperties: false },
);

/** A video's variants (docs/api.md §25). */
const VideoVariants = Type.Object(
  {
    status: StringEnum(['pending', 'ready', 'failed'] as const, {
      description: 'Made in the background after upload; `failed` when the video cannot be decoded.',
    }),
    poster: NullableVariant('A JPEG frame within 1280x1280; null until ready.'),
    web: NullableVariant(
      'H.264/AAC MP4, index at the front, within 1920x1080; null until ready, and null when ready if the original already is such a file.',
    ),
  },
  { title: 'MediaVideoVariants', additionalProperties: false },
);

export const Media = Type.Object(
  {
    id: Id('med', '`med_` followed by an opaque string.'),
    listing_id: Id('lst'),
    kind: StringEnum(['photo', 'video', 'document'] as const, {
      title: 'MediaKind',
      description: 'Decided by sniffing the bytes, never by the declared type or name.',
    }),
    filename: Type.String({
      minLength: 1,
      maxLength: FILENAME_MAX,
      description: 'The uploaded name without path parts or control characters (at most 255 characters).',
    }),
    content_type: StringEnum(ACCEPTED_TYPES, { description: 'The sniffed type, e.g. `image/jpeg`.' }),
    size: Int64({ minimum: 0, description: 'Bytes.' }),
    sha256: Type.String({
      minLength: 64,
      maxLength: 64,
      pattern: '^[0-9a-f]{64}$',
      description: 'Hex SHA-256 of the bytes.',
    }),
    width: Type.Union([Int32({ minimum: 1 }), Type.Null()], { description: 'Pixels, for photos; null otherwise.' }),
    height: Type.Union([Int32({ minimum: 1 }), Type.Null()], { description: 'Pixels, for photos; null otherwise.' }),
    position: Int32({
      minimum: 1,
      description:
        'Order within the gallery, 1..n without gaps: an upload appends, a move shifts, a deletion closes the gap.',
    }),
    caption: NullableText(CAPTION_MAX, 'Shown under the photo in the client gallery; null when unset.'),
    hidden: Type.Boolean({ description: 'Hidden media are never shown to the client.' }),
    virtually_staged: Type.Boolean({
      description:
        'A virtually staged photo (docs/api.md §31): its `large` and `mls` variants carry a visible "Virtually staged" label, and property pages show its original beside it.',
    }),
    original_media_id: NullableId(
      'med',
      'The unstaged photo of this gallery this one was staged from; null when unset, and once that photo is deleted.',
    ),
    variants: Type.Union([Variants, VideoVariants, Type.Null()], {
      description: "A photo's derived sizes, a video's poster and web rendition; null for documents.",
    }),
    analysis: Type.Union([Analysis, Type.Null()], {
      description: 'What the photo shows (docs/api.md §30); null for videos, documents and with ANALYSIS=off.',
    }),
    alt_text: NullableText(
      1000,
      'One sentence describing the photo, from its room and the things seen (docs/api.md §30); null until analysed, or when nothing was recognised.',
    ),
    created_at: Timestamp(),
    content_url: Type.String({ format: 'uri', maxLength: 4096, description: 'Absolute URL of the bytes.' }),
  },
  { title: 'Media', additionalProperties: false },
);
export type MediaType = Static<typeof Media>;

export const MediaList = WholeListOf(Media, 'MediaList');
/** The upload operation's schemas, built from the configured limits so the document states them. */
export function uploadSchemas({ maxFileBytes, maxFiles }: UploadLimits) {
  return {
    MediaUploaded: Type.Object(
      { data: Type.Array(Media, { minItems: 1, maxItems: maxFiles }) },
      { title: 'MediaUploaded', additionalProperties: false },
    ),
    /** Documents the multipart body; the parts are streamed by the handler, not validated here. */
    MediaUploadBody: Type.Object({
      files: Type.Array(Type.String({ format: 'binary', maxLength: maxFileBytes }), {
        minItems: 1,
        maxItems: maxFiles,
        description:
          `One or more files (any field name works; \`files\` is conventional). At most ${maxFiles} files ` +
          `of at most ${maxFileBytes} bytes each (MEDIA_MAX_FILES, MEDIA_MAX_FILE_BYTES); over a limit is 413.`,
      }),
    }),
    /** Documents media from a URL (docs/api.md §21); checked by the handler, as the form is. */
    MediaFromUrlBody: Type.Object(
      {
        url: Type.String({
          minLength: 1,
          maxLength: MAX_WEBHOOK_URL_LENGTH,
          format: 'uri',
          description: 'An http or https URL the service fetches the file from (the webhook address rules apply).',
        }),
        filename: Type.Optional(
          Type.String({ maxLength: FILENAME_MAX, description: "The stored file's name; by default the URL's." }),
        ),
      },
      { title: 'MediaFromUrl', additionalProperties: false },
    ),
    Binary: Type.String({
      format: 'binary',
      maxLength: maxFileBytes,
      description: `The stored bytes (at most the per-file limit, ${maxFileBytes} bytes).`,
    }),
  };
}

export const MediaUpdateBody = Type.Object(
  {
    caption: Type.Optional(NullableString({ maxLength: CAPTION_MAX, description: 'null removes it.' })),
    hidden: Type.Optional(Type.Boolean()),
    position: Type.Optional(
      Int32({ minimum: 1, description: 'The new position, 1..n; the media between shift to make room.' }),
    ),
    virtually_staged: Type.Optional(
      Type.Boolean({
        description:
          "Photos only. A change makes the photo's `large` and `mls` variants again, with or without the label.",
      }),
    ),
    original_media_id: Type.Optional(
      Type.Unsafe<string | null>({
        type: ['string', 'null'],
        maxLength: 40,
        description:
          'The unstaged photo (docs/api.md §31): a photo of this gallery, not this one nor one staged from it (400 otherwise); null removes it.',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1, title: 'MediaUpdate' },
);
export type MediaUpdateInput = Static<typeof MediaUpdateBody>;

export const MediaOrderBody = Type.Object(
  {
    media_ids: Type.Array(Type.String({ minLength: 1, maxLength: 64, pattern: '^[0-9A-Za-z_-]+$' }), {
      maxItems: 100_000,
      description: 'Every media id of the gallery, each once, in the new order.',
    }),
  },
  { additionalProperties: false, title: 'MediaOrder' },
);

export const VariantParams = Type.Object({
  id: IdParam('Gallery id (`lst_...`).'),
  media_id: IdParam('Media id (`med_...`).'),
  name: StringEnum(VARIANT_NAMES, {
    description: 'Which variant: `thumb`, `large` or `mls` of a photo, `poster` or `web` of a video.',
  }),
});

export const ListingMediaParams = Type.Object({ id: IdParam('Gallery id (`lst_...`).') });
export const MediaParams = Type.Object({
  id: IdParam('Gallery id (`lst_...`).'),
  media_id: IdParam('Media id (`med_...`).'),
});

export const MediaContentHeaders = Type.Object({
  range: Type.Optional(
    Type.String({ maxLength: HEADER_MAX, description: 'One byte range, e.g. `bytes=0-1023` (answers 206).' }),
  ),
  'if-none-match': Type.Optional(
    Type.String({ maxLength: HEADER_MAX, description: 'An ETag from an earlier response (answers 304).' }),
  ),
  'if-range': Type.Optional(
    Type.String({ maxLength: HEADER_MAX, description: 'Serve the range only if the ETag still matches.' }),
  ),
});
