// docs/api.md §32: the listing kit, GET and POST /v1/listings/:id/kit, and its items' bytes.
import { Type, type Static } from '@sinclair/typebox';
import { Id, IdParam, Int32, Int64, NullableTimestamp, StringEnum } from '../../http/schemas.ts';
import { KIT_ITEM_NAMES } from '../../db/schema-kit.ts';

/** The kit's status: `none` before a build is asked for (no row). */
const KIT_STATES = ['none', 'building', 'ready', 'failed', 'stale'] as const;

const url = Type.String({
  format: 'uri',
  maxLength: 2048,
  description: 'The bytes, under the API key (`ETag`, `Range`).',
});
const size = Int64({ minimum: 0, description: 'Bytes.' });
const pixels = (description: string) => Int32({ minimum: 1, maximum: 16_384, description });

const FileItem = (title: string, contentType: string, description: string) =>
  Type.Union(
    [
      Type.Object({ url, content_type: Type.Literal(contentType), size }, { additionalProperties: false, title }),
      Type.Null(),
    ],
    { description },
  );

const VideoItem = (description: string) =>
  Type.Union(
    [
      Type.Object(
        {
          url,
          content_type: Type.Literal('video/mp4'),
          size,
          duration_seconds: Type.Number({ minimum: 0, maximum: 86_400, description: 'Its length in seconds.' }),
          width: pixels('Frame width.'),
          height: pixels('Frame height.'),
        },
        { additionalProperties: false, title: 'KitVideo' },
      ),
      Type.Null(),
    ],
    { description },
  );

const SOCIAL_FORMATS = ['square', 'portrait', 'story'] as const;
export type SocialFormat = (typeof SOCIAL_FORMATS)[number];

const SocialImage = Type.Object(
  {
    format: StringEnum(SOCIAL_FORMATS, { description: '`square` 1080x1080, `portrait` 1080x1350, `story` 1080x1920.' }),
    url,
    content_type: Type.Literal('image/jpeg'),
    size,
    width: pixels('Width (1080).'),
    height: pixels('Height.'),
  },
  { additionalProperties: false, title: 'KitSocialImage' },
);

export const Kit = Type.Object(
  {
    listing_id: Id('lst', 'The gallery.'),
    status: StringEnum(KIT_STATES, {
      description:
        '`none` (never built), `building`, `ready`, `failed`, or `stale` (built, and the gallery changed since: ' +
        'it is rebuilt within a minute, and the items served meanwhile are the last build’s).',
    }),
    built_at: NullableTimestamp('When the items served were made; null before the first build.'),
    mls_zip: FileItem(
      'KitZip',
      'application/zip',
      'The MLS pack: the `mls` variants of the visible photos in order, `photos.csv` and `compliance.txt`.',
    ),
    slideshow: VideoItem('1920x1080 H.264 slideshow opening and closing on a card; null until made.'),
    slideshow_unbranded: VideoItem('The slideshow with no text at all; null until made.'),
    reel: VideoItem('1080x1920, at most 60 s; null until made.'),
    teaser: VideoItem('1920x1080, at most 15 s: the cover and the best photos; null until made.'),
    flyer: FileItem('KitPdf', 'application/pdf', 'A one-page PDF flyer (the studio’s paper).'),
    social: Type.Union([Type.Array(SocialImage, { maxItems: 3 }), Type.Null()], {
      description: 'JPEGs of the cover with the address and facts: square, portrait and story; null until made.',
    }),
  },
  { additionalProperties: false, title: 'Kit' },
);
export type KitType = Static<typeof Kit>;

export const KitParams = Type.Object({ id: IdParam('Gallery id (`lst_...`).') });
export const KitItemParams = Type.Object({
  id: IdParam('Gallery id (`lst_...`).'),
  name: StringEnum(KIT_ITEM_NAMES, { description: 'The item: `mls_zip`, `flyer`, `social_square`, ... .' }),
});
