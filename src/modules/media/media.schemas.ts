import { Type, type Static } from '@sinclair/typebox';
import { IdParam, ListOf, StringEnum, Timestamp } from '../../http/schemas.ts';

export const Media = Type.Object(
  {
    id: Type.String({ description: '`med_` followed by an opaque string.' }),
    listing_id: Type.String(),
    kind: StringEnum(['photo', 'video', 'document'] as const, {
      description: 'Decided by sniffing the bytes, never by the declared type or name.',
    }),
    filename: Type.String({ description: 'The uploaded name without path parts or control characters.' }),
    content_type: Type.String({ description: 'The sniffed type, e.g. `image/jpeg`.' }),
    size: Type.Integer({ minimum: 0, description: 'Bytes.' }),
    sha256: Type.String({ description: 'Hex SHA-256 of the bytes.' }),
    width: Type.Union([Type.Integer(), Type.Null()], { description: 'Pixels, for photos; null otherwise.' }),
    height: Type.Union([Type.Integer(), Type.Null()], { description: 'Pixels, for photos; null otherwise.' }),
    position: Type.Integer({ minimum: 1, description: 'Order within the gallery: upload order.' }),
    created_at: Timestamp(),
    content_url: Type.String({ format: 'uri', description: 'Absolute URL of the bytes.' }),
  },
  { title: 'Media' },
);
export type MediaType = Static<typeof Media>;

export const MediaList = ListOf(Media, 'MediaList');
export const MediaUploaded = Type.Object({ data: Type.Array(Media) }, { title: 'MediaUploaded' });

/** Documents the multipart body; the parts are streamed by the handler, not validated here. */
export const MediaUploadBody = Type.Object(
  {
    files: Type.Array(Type.String({ format: 'binary' }), {
      description: 'One or more files (any field name works; `files` is conventional).',
    }),
  },
  { 'x-multipart': true },
);

export const ListingMediaParams = Type.Object({ id: IdParam('Gallery id (`lst_...`).') });
export const MediaParams = Type.Object({
  id: IdParam('Gallery id (`lst_...`).'),
  media_id: IdParam('Media id (`med_...`).'),
});

export const MediaContentHeaders = Type.Object({
  range: Type.Optional(Type.String({ description: 'One byte range, e.g. `bytes=0-1023` (answers 206).' })),
  'if-none-match': Type.Optional(Type.String({ description: 'An ETag from an earlier response (answers 304).' })),
  'if-range': Type.Optional(Type.String({ description: 'Serve the range only if the ETag still matches.' })),
});

export const Binary = Type.String({ format: 'binary', description: 'The stored bytes.' });
