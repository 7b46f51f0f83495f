// The `analysis` field of the media object (docs/api.md §30). Every field is null until the photo's
// analysis is ready; the fields the models read (faces, people, text, qr_codes, objects, room) are
// also null when they were not read (a photo analysed before the model stage; text while
// ANALYSIS_OCR=off): null says "not read", never "none found" (that is a zero or an empty list).
import { Type } from '@sinclair/typebox';
import { Id, NullableNumber, StringEnum } from '../../http/schemas.ts';

const UNIT = { minimum: 0, maximum: 1 } as const;
const NOT_READ = 'Null until ready, or when not read (docs/api.md §30); none found is 0 or [].';

const Confidence = Type.Number({ ...UNIT, description: '0..1.' });

const Exposure = Type.Object(
  {
    mean: Type.Number({ ...UNIT, description: 'Mean brightness of the grey copy, 0 black .. 1 white.' }),
    clipped_highlights: Type.Number({ ...UNIT, description: 'Fraction of pixels at or above 250 of 255.' }),
    clipped_shadows: Type.Number({ ...UNIT, description: 'Fraction of pixels at or below 5 of 255.' }),
  },
  { title: 'MediaAnalysisExposure', additionalProperties: false },
);

export const Analysis = Type.Object(
  {
    status: StringEnum(['pending', 'ready', 'failed'] as const, {
      title: 'MediaAnalysisStatus',
      description: 'A photo that cannot be analysed ends `failed`.',
    }),
    phash: Type.Union([Type.String({ minLength: 16, maxLength: 16, pattern: '^[0-9a-f]{16}$' }), Type.Null()], {
      description: '64-bit DCT perceptual hash, 16 hex digits; null until ready.',
    }),
    sharpness: NullableNumber({
      ...UNIT,
      description: 'Variance of the Laplacian of a 512-pixel grey copy, mapped to 0..1; null until ready.',
    }),
    blurry: Type.Union([Type.Boolean(), Type.Null()], { description: 'sharpness below 0.45; null until ready.' }),
    exposure: Type.Union([Exposure, Type.Null()], { description: 'Null until ready.' }),
    tilt_degrees: NullableNumber({
      minimum: -45,
      maximum: 45,
      description: 'How far vertical lines lean, positive clockwise; null until ready or with too few vertical lines.',
    }),
    faces: Type.Union([Type.Integer({ format: 'int32', minimum: 0, maximum: 100_000 }), Type.Null()], {
      description: `Faces seen (BlazeFace). ${NOT_READ}`,
    }),
    people: Type.Union([Type.Integer({ format: 'int32', minimum: 0, maximum: 100_000 }), Type.Null()], {
      description: `People seen (the object detector's persons). ${NOT_READ}`,
    }),
    text: Type.Union(
      [
        Type.Array(
          Type.Object(
            { text: Type.String({ maxLength: 1000 }), confidence: Confidence },
            { title: 'MediaAnalysisText', additionalProperties: false },
          ),
          { maxItems: 1000 },
        ),
        Type.Null(),
      ],
      {
        description: `Words read in the photo (tesseract.js), at least 0.6 confident; null while ANALYSIS_OCR=off. ${NOT_READ}`,
      },
    ),
    qr_codes: Type.Union(
      [
        Type.Array(
          Type.Object(
            { data: Type.String({ maxLength: 4096 }) },
            { title: 'MediaAnalysisQrCode', additionalProperties: false },
          ),
          { maxItems: 100 },
        ),
        Type.Null(),
      ],
      { description: `QR codes read in the photo. ${NOT_READ}` },
    ),
    objects: Type.Union(
      [
        Type.Array(
          Type.Object(
            { label: Type.String({ maxLength: 100 }), confidence: Confidence },
            { title: 'MediaAnalysisObject', additionalProperties: false },
          ),
          { maxItems: 1000 },
        ),
        Type.Null(),
      ],
      { description: `Things seen in the photo (COCO labels), most confident first. ${NOT_READ}` },
    ),
    room: Type.Union(
      [
        Type.Object(
          { label: Type.String({ maxLength: 100 }), confidence: Confidence },
          { title: 'MediaAnalysisRoom', additionalProperties: false },
        ),
        Type.Null(),
      ],
      { description: `The room shown (a RESO ImageOf value), inferred from the things seen. ${NOT_READ}` },
    ),
    similar_group: Type.Union([Type.String({ maxLength: 64 }), Type.Null()], {
      description:
        "Shared by the gallery's photos whose hashes differ in at most 10 of 64 bits; null when none is that near, or until ready.",
    }),
    best_in_group: Type.Union([Type.Boolean(), Type.Null()], {
      description:
        'The sharpest (then the largest) of its similar group; true for a photo with no similar one; null until ready.',
    }),
  },
  { title: 'MediaAnalysis', additionalProperties: false },
);

/** GET /v1/listings/:id/media/suggested_order (docs/api.md §30). */
export const SuggestedOrder = Type.Object(
  {
    media_ids: Type.Array(Id('med'), {
      maxItems: 100_000,
      description: 'Every visible photo of the gallery, in the suggested order.',
    }),
    reasons: Type.Array(
      Type.Object(
        {
          media_id: Id('med'),
          room: Type.Union([Type.String({ maxLength: 100 }), Type.Null()], {
            description: "The photo's `analysis.room.label`; null while not read.",
          }),
          note: Type.String({ maxLength: 500, description: 'Why the photo is where it is, in words.' }),
        },
        { title: 'SuggestedOrderReason', additionalProperties: false },
      ),
      { maxItems: 100_000, description: 'One for each photo, in the same order as `media_ids`.' },
    ),
  },
  { title: 'SuggestedOrder', additionalProperties: false },
);
