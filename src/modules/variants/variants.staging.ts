// docs/api.md §31: a virtually staged photo's `large` and `mls` variants (and `medium`, the public
// pages' stand-in for `large` on small screens) carry a visible "Virtually staged" label, drawn
// here into the pixels by the one variant pipeline (variants.images.ts `makeVariants`, run by the
// `media.variants` job), never per request. The text is set as the watermark's is
// (variants.text.ts `setText`, as variants.watermark.ts does: DejaVu Sans Bold from the installation, not the host's
// fonts), white on a dark box in the bottom-left corner, large enough to read on a listing
// portal's thumbnail of the mls photo.
import sharp from 'sharp';
import type { MediaRow } from '../media/media.repository.ts';
import { setText } from './variants.text.ts';

/** The label's words (docs/api.md §31). */
export const STAGING_LABEL = 'Virtually staged';

/** The variants that carry the label; `thumb` is too small to read one. */
export const LABELLED_VARIANTS: readonly string[] = ['medium', 'large', 'mls'];

/** What a labelled variant's row records in `mark`: a row without it was drawn without the label. */
export const STAGED_MARK = 'staged';

/**
 * What decides the label (docs/api.md §31, "With disclose_staging"): the only place that does.
 * `profile` is the gallery's MLS profile, or null when it has none; a profile's
 * `disclose_staging` defaults to true. The variants job passes the gallery's profile; so do the
 * property pages, to pair a staged photo with its original.
 */
export function stagingLabelWanted(
  photo: Pick<MediaRow, 'kind' | 'virtually_staged'>,
  profile: { disclose_staging: boolean } | null,
): boolean {
  return photo.kind === 'photo' && photo.virtually_staged === 1 && (profile === null || profile.disclose_staging);
}

/**
 * The label for an image of `width` x `height`, as a PNG with alpha the size of the image: the
 * words about a twentieth of the shorter side high (at least 14 px), white on a box of 72% black
 * with a margin, in the bottom-left corner.
 */
export async function stagingLabelOverlay(width: number, height: number): Promise<Buffer> {
  const px = Math.max(14, Math.round(Math.min(width, height) / 20));
  const text = await setText(STAGING_LABEL, px, 'white', 100);
  const pad = Math.round(px / 2);
  const margin = Math.round(px / 2);
  const boxW = Math.min(width, text.info.width + 2 * pad);
  const boxH = Math.min(height, text.info.height + 2 * pad);
  const words =
    text.info.width + pad > boxW || text.info.height + pad > boxH
      ? await sharp(text.data)
          .resize(boxW - pad, boxH - pad, { fit: 'inside' })
          .png()
          .toBuffer()
      : text.data;
  const box = await sharp({
    create: { width: boxW, height: boxH, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0.72 } },
  })
    .composite([{ input: words, gravity: 'center' }])
    .png()
    .toBuffer();
  return sharp({ create: { width, height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .composite([
      {
        input: box,
        left: Math.max(0, Math.min(margin, width - boxW)),
        top: Math.max(0, height - boxH - Math.min(margin, height - boxH)),
      },
    ])
    .png()
    .toBuffer();
}
