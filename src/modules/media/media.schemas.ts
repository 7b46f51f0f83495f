import { Type, type Static } from '@sinclair/typebox';
import { Id, IdParam, Int32, Int64, StringEnum, Timestamp, WholeListOf } from '../../http/schemas.ts';
import { ACCEPTED_TYPES, FILENAME_MAX } from './media.ingest.ts';

import type { MediaConfig } from '../../config.ts';

/** The upload limits the schemas document: the configured ones (MEDIA_MAX_FILE_BYTES, MEDIA_MAX_FILES). */
export type UploadLimits = Pick<MediaConfig, 'maxFileBytes' | 'maxFiles'>;
/** A conditional or range header longer than this is refused (400) rather than parsed. */
const HEADER_MAX = 1024;

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
    position: Int32({ minimum: 1, description: 'Order within the gallery: upload order.' }),
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
    MediaUploadBody: Type.Object(
      {
        files: Type.Array(Type.String({ format: 'binary', maxLength: maxFileBytes }), {
          minItems: 1,
          maxItems: maxFiles,
          description:
            `One or more files (any field name works; \`files\` is conventional). At most ${maxFiles} files ` +
            `of at most ${maxFileBytes} bytes each (MEDIA_MAX_FILES, MEDIA_MAX_FILE_BYTES); over a limit is 413.`,
        }),
      },
      { 'x-multipart': true },
    ),
    Binary: Type.String({
      format: 'binary',
      maxLength: maxFileBytes,
      description: `The stored bytes (at most the per-file limit, ${maxFileBytes} bytes).`,
    }),
  };
}

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
