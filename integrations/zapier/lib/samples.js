'use strict';
// Samples Zapier shows before a real event has happened: the shapes of Lightbox's objects
// (docs/api.md §5-§7, §13-§15, §28, §29, §31, §32), with the event's own fields added by the triggers.

const event = (type) => ({
  event_id: 'evt_01JDZ8Q7C3M0S6Y3W9G2N4B5TK',
  event_type: type,
  event_created_at: '2026-11-22T10:15:30.123Z',
});

const gallery = {
  id: 'lst_01JDZ8Q5E4R8VJ3H2K7P6N1XWA',
  address: '12 Harbour View, Brighton BN1 2AB',
  beds: 3,
  baths: 2,
  sqft: 1450,
  status: 'active',
  description: 'Bright terraced house with a sea view.',
  mls_number: 'BRI-20431',
  client_id: 'cli_01JDZ8Q6A1B2C3D4E5F6G7H8J9',
  media_count: 24,
  cover_media_id: 'med_01JDZ8Q6Z9Y8X7W6V5T4S3R2QP',
  client_link: {
    url: 'https://lightbox.example.com/g/4f9cJm2VqT7xZpR8sLk3Wd',
    created_at: '2026-11-22T10:15:30.123Z',
    views: 3,
    first_viewed_at: '2026-11-22T11:02:10.000Z',
    last_viewed_at: '2026-11-22T18:40:55.000Z',
    downloads: 1,
  },
  created_at: '2026-11-21T09:00:00.000Z',
  updated_at: '2026-11-22T10:15:30.123Z',
};

const client = {
  id: 'cli_01JDZ8Q6A1B2C3D4E5F6G7H8J9',
  name: 'Dana Whitfield',
  email: 'dana@whitfield-homes.example',
  phone: '+44 1273 555 012',
  company: 'Whitfield Homes',
  notes: null,
  created_at: '2026-11-20T15:30:00.000Z',
  updated_at: '2026-11-20T15:30:00.000Z',
};

const media = {
  id: 'med_01JDZ8Q6Z9Y8X7W6V5T4S3R2QP',
  listing_id: gallery.id,
  kind: 'photo',
  filename: 'living-room.jpg',
  content_type: 'image/jpeg',
  size: 4820113,
  sha256: '9f2c0c3b8d8f4f8e6a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071',
  width: 6000,
  height: 4000,
  position: 1,
  caption: null,
  hidden: false,
  virtually_staged: false,
  original_media_id: null,
  variants: {
    status: 'ready',
    thumb: {
      url: 'https://lightbox.example.com/v1/listings/lst_01JDZ8Q5E4R8VJ3H2K7P6N1XWA/media/med_01JDZ8Q6Z9Y8X7W6V5T4S3R2QP/variants/thumb',
      content_type: 'image/webp',
      width: 480,
      height: 320,
      size: 31822,
    },
    large: {
      url: 'https://lightbox.example.com/v1/listings/lst_01JDZ8Q5E4R8VJ3H2K7P6N1XWA/media/med_01JDZ8Q6Z9Y8X7W6V5T4S3R2QP/variants/large',
      content_type: 'image/jpeg',
      width: 2048,
      height: 1365,
      size: 402113,
    },
    mls: {
      url: 'https://lightbox.example.com/v1/listings/lst_01JDZ8Q5E4R8VJ3H2K7P6N1XWA/media/med_01JDZ8Q6Z9Y8X7W6V5T4S3R2QP/variants/mls',
      content_type: 'image/jpeg',
      width: 2048,
      height: 1365,
      size: 402113,
    },
  },
  created_at: '2026-11-22T09:58:00.000Z',
  content_url:
    'https://lightbox.example.com/v1/listings/lst_01JDZ8Q5E4R8VJ3H2K7P6N1XWA/media/med_01JDZ8Q6Z9Y8X7W6V5T4S3R2QP/content',
};

/** docs/api.md §30: the media object once its analysis is ready (the model fields null until read). */
const analyzedMedia = {
  ...media,
  analysis: {
    status: 'ready',
    phash: 'c3a1f0e2d4b59687',
    sharpness: 0.81,
    blurry: false,
    exposure: { mean: 0.52, clipped_highlights: 0.01, clipped_shadows: 0.0 },
    tilt_degrees: 0.4,
    faces: null,
    people: null,
    text: null,
    qr_codes: null,
    objects: null,
    room: null,
    similar_group: null,
    best_in_group: true,
  },
  alt_text: null,
};

const notification = {
  id: 'ntf_01JDZ8Q7A5B6C7D8E9F0G1H2J3',
  client_id: client.id,
  listing_id: gallery.id,
  to: client.email,
  status: 'failed',
  attempts: 1,
  last_error: '550 5.1.1 mailbox unavailable',
  created_at: '2026-11-22T10:15:30.123Z',
  sent_at: null,
};

const shareLink = {
  id: 'shl_01JDZ8Q8B2C3D4E5F6G7H8J9KA',
  listing_id: gallery.id,
  label: 'Seller: Jo Marsh',
  email: 'jo.marsh@example.com',
  url: 'https://lightbox.example.com/g/8Hq2LmR5vN9tXc3WpK7dZs',
  expires_at: '2026-12-22T00:00:00.000Z',
  password_protected: false,
  downloads_enabled: true,
  favorites_enabled: true,
  selection_min: 5,
  selection_max: 20,
  views: 2,
  downloads: 0,
  favorites_count: 12,
  first_viewed_at: '2026-11-22T12:30:00.000Z',
  last_viewed_at: '2026-11-22T19:05:41.000Z',
  created_at: '2026-11-22T10:20:00.000Z',
  updated_at: '2026-11-22T19:06:02.000Z',
};

/** New Selection's item (a selection sent at a share link); the event's fields are added by the trigger. */
const selection = {
  id: event('share_link.selection_submitted').event_id,
  link_kind: 'share_link',
  link_id: shareLink.id,
  link_label: shareLink.label,
  link_url: shareLink.url,
  link_email: shareLink.email,
  favorites_count: shareLink.favorites_count,
  selection_min: shareLink.selection_min,
  selection_max: shareLink.selection_max,
  gallery_id: gallery.id,
  gallery_address: gallery.address,
  client_id: null,
};

/** docs/api.md §29: amounts in the currency's minor unit (cents). */
const invoice = {
  id: 'ivc_01JDZ8Q9C4D5E6F7G8H9J0KABC',
  number: 'INV-0042',
  listing_id: gallery.id,
  client_id: client.id,
  status: 'paid',
  items: [
    {
      product_id: 'prd_01JDZ8Q9A1B2C3D4E5F6G7H8J9',
      description: 'Twilight photos',
      quantity: 1,
      unit_amount: 25000,
      amount: 25000,
    },
    { product_id: null, description: 'Drone film', quantity: 1, unit_amount: 15000, amount: 15000 },
  ],
  subtotal: 40000,
  discount: 2000,
  tax_rate_bps: 825,
  tax: 3135,
  total: 41135,
  amount_paid: 41135,
  amount_due: 0,
  currency: 'USD',
  pay_to_unlock: true,
  due_at: '2026-12-06T00:00:00.000Z',
  note: 'Thank you for your business.',
  issued_at: '2026-11-22T10:30:00.000Z',
  paid_at: '2026-11-23T09:12:45.000Z',
  voided_at: null,
  payment_url: null,
  pdf_url: 'https://lightbox.example.com/v1/invoices/ivc_01JDZ8Q9C4D5E6F7G8H9J0KABC/pdf',
  created_at: '2026-11-22T10:25:00.000Z',
  updated_at: '2026-11-23T09:12:45.000Z',
};

const product = {
  id: 'prd_01JDZ8Q9A1B2C3D4E5F6G7H8J9',
  name: 'Twilight photos',
  description: 'Ten exterior photos at dusk.',
  unit_amount: 25000,
  active: true,
  created_at: '2026-11-01T09:00:00.000Z',
  updated_at: '2026-11-01T09:00:00.000Z',
};

/** docs/api.md §31: a report as `listing.compliance_changed` carries it (the id is the event's). */
const compliance = {
  id: 'evt_01JDZ8Q9D1E2F3G4H5J6K7M8N9',
  listing_id: gallery.id,
  profile_id: 'mlp_01JDZ8Q9B1C2D3E4F5G6H7J8K9',
  status: 'fail',
  checked_at: '2026-11-22T10:40:00.000Z',
  photos: [
    {
      media_id: media.id,
      status: 'fail',
      issues: [
        { code: 'text_in_photo', message: 'The photo shows text (2 words read).', severity: 'fail', fixed_by: null },
      ],
    },
  ],
  issues: [],
};

/** docs/api.md §32: a built kit as GET /v1/listings/:id/kit and `listing.kit_ready` carry it. */
const kitUrl = (name) => `https://lightbox.example.com/v1/listings/${gallery.id}/kit/${name}`;
const kitVideo = (name, width, height, seconds) => ({
  url: kitUrl(name),
  content_type: 'video/mp4',
  size: 18_400_000,
  duration_seconds: seconds,
  width,
  height,
});
const kitSocial = (format, height) => ({
  format,
  url: kitUrl(`social_${format}`),
  content_type: 'image/jpeg',
  size: 412_000,
  width: 1080,
  height,
});
const kit = {
  listing_id: gallery.id,
  status: 'ready',
  built_at: '2026-11-22T10:52:00.000Z',
  mls_zip: { url: kitUrl('mls_zip'), content_type: 'application/zip', size: 38_250_114 },
  slideshow: kitVideo('slideshow', 1920, 1080, 104),
  slideshow_unbranded: kitVideo('slideshow_unbranded', 1920, 1080, 96),
  reel: kitVideo('reel', 1080, 1920, 60),
  teaser: kitVideo('teaser', 1920, 1080, 15),
  flyer: { url: kitUrl('flyer'), content_type: 'application/pdf', size: 1_204_551 },
  social: [kitSocial('square', 1080), kitSocial('portrait', 1350), kitSocial('story', 1920)],
};

module.exports = {
  event,
  gallery,
  client,
  media,
  analyzedMedia,
  notification,
  shareLink,
  selection,
  invoice,
  product,
  compliance,
  kit,
};
