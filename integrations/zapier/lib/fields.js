'use strict';
// Output field labels, so Zap steps read "Gallery Address" rather than "address".

const galleryOutput = [
  { key: 'id', label: 'Gallery ID' },
  { key: 'address', label: 'Address' },
  { key: 'status', label: 'Status' },
  { key: 'beds', label: 'Bedrooms', type: 'number' },
  { key: 'baths', label: 'Bathrooms', type: 'number' },
  { key: 'sqft', label: 'Square Feet', type: 'number' },
  { key: 'mls_number', label: 'MLS Number' },
  { key: 'description', label: 'Description' },
  { key: 'client_id', label: 'Client ID' },
  { key: 'media_count', label: 'Number of Photos, Videos and Documents', type: 'integer' },
  { key: 'client_link__url', label: 'Client Gallery Link' },
  { key: 'client_link__views', label: 'Times Viewed', type: 'integer' },
  { key: 'client_link__downloads', label: 'Times Downloaded', type: 'integer' },
  { key: 'client_link__last_viewed_at', label: 'Last Viewed', type: 'datetime' },
  { key: 'created_at', label: 'Created', type: 'datetime' },
  { key: 'updated_at', label: 'Updated', type: 'datetime' },
];

const clientOutput = [
  { key: 'id', label: 'Client ID' },
  { key: 'name', label: 'Name' },
  { key: 'email', label: 'Email' },
  { key: 'phone', label: 'Phone' },
  { key: 'company', label: 'Company' },
  { key: 'notes', label: 'Notes' },
  { key: 'created_at', label: 'Created', type: 'datetime' },
];

const mediaOutput = [
  { key: 'id', label: 'Media ID' },
  { key: 'listing_id', label: 'Gallery ID' },
  { key: 'kind', label: 'Kind (photo, video or document)' },
  { key: 'filename', label: 'File Name' },
  { key: 'content_type', label: 'File Type' },
  { key: 'size', label: 'Size (bytes)', type: 'integer' },
  { key: 'width', label: 'Width (pixels)', type: 'integer' },
  { key: 'height', label: 'Height (pixels)', type: 'integer' },
  { key: 'position', label: 'Position in Gallery', type: 'integer' },
  // docs/api.md §31.
  { key: 'virtually_staged', label: 'Virtually Staged', type: 'boolean' },
  { key: 'original_media_id', label: 'Original Photo ID (before virtual staging)' },
  { key: 'variants__large__url', label: 'Large Version URL' },
  { key: 'variants__mls__url', label: 'MLS Version URL' },
  { key: 'variants__thumb__url', label: 'Thumbnail URL' },
  { key: 'content_url', label: 'Original File URL' },
];

/** docs/api.md §30: a photo and what its analysis found. */
const analyzedMediaOutput = [
  ...mediaOutput,
  { key: 'analysis__status', label: 'Analysis Status (pending, ready or failed)' },
  { key: 'analysis__blurry', label: 'Blurry', type: 'boolean' },
  { key: 'analysis__sharpness', label: 'Sharpness (0 to 1)', type: 'number' },
  { key: 'analysis__tilt_degrees', label: 'Tilt (degrees, positive clockwise)', type: 'number' },
  { key: 'analysis__exposure__mean', label: 'Brightness (0 to 1)', type: 'number' },
  { key: 'analysis__similar_group', label: 'Similar Photos Group' },
  { key: 'analysis__best_in_group', label: 'Best of Its Similar Photos', type: 'boolean' },
  { key: 'analysis__room__label', label: 'Room' },
  { key: 'alt_text', label: 'Alt Text' },
];

const notificationOutput = [
  { key: 'id', label: 'Email ID' },
  { key: 'to', label: 'Sent To' },
  { key: 'client_id', label: 'Client ID' },
  { key: 'listing_id', label: 'Gallery ID' },
  { key: 'status', label: 'Status' },
  { key: 'attempts', label: 'Attempts', type: 'integer' },
  { key: 'last_error', label: 'Why It Failed' },
];

const shareLinkOutput = [
  { key: 'id', label: 'Share Link ID' },
  { key: 'listing_id', label: 'Gallery ID' },
  { key: 'label', label: 'Label' },
  { key: 'url', label: 'Share Link' },
  { key: 'email', label: 'Emailed To' },
  { key: 'expires_at', label: 'Expires', type: 'datetime' },
  { key: 'password_protected', label: 'Password Protected', type: 'boolean' },
  { key: 'downloads_enabled', label: 'Downloads Allowed', type: 'boolean' },
  { key: 'favorites_enabled', label: 'Favorites Allowed', type: 'boolean' },
  { key: 'selection_min', label: 'Fewest Photos to Choose', type: 'integer' },
  { key: 'selection_max', label: 'Most Photos to Choose', type: 'integer' },
  { key: 'views', label: 'Times Viewed', type: 'integer' },
  { key: 'downloads', label: 'Times Downloaded', type: 'integer' },
  { key: 'favorites_count', label: 'Number of Favorites', type: 'integer' },
  { key: 'created_at', label: 'Created', type: 'datetime' },
];

/** New Selection's item, one shape for the client's link and share links. */
const selectionOutput = [
  { key: 'id', label: 'Selection ID' },
  { key: 'link_kind', label: 'Kind of Link (client_link or share_link)' },
  { key: 'link_id', label: 'Share Link ID (empty for the client link)' },
  { key: 'link_label', label: 'Link Label' },
  { key: 'link_url', label: 'Link' },
  { key: 'link_email', label: 'Share Link Emailed To' },
  { key: 'favorites_count', label: 'Number of Photos Chosen', type: 'integer' },
  { key: 'selection_min', label: 'Fewest Photos to Choose', type: 'integer' },
  { key: 'selection_max', label: 'Most Photos to Choose', type: 'integer' },
  { key: 'gallery_id', label: 'Gallery ID' },
  { key: 'gallery_address', label: 'Gallery Address' },
  { key: 'client_id', label: 'Client ID (the client link only)' },
];

/** docs/api.md §29: every amount an integer in the currency's minor unit (cents: 2500 is 25.00). */
const invoiceOutput = [
  { key: 'id', label: 'Invoice ID' },
  { key: 'number', label: 'Invoice Number' },
  { key: 'status', label: 'Status (draft, open, paid or void)' },
  { key: 'listing_id', label: 'Gallery ID' },
  { key: 'client_id', label: 'Client ID' },
  { key: 'currency', label: 'Currency' },
  { key: 'subtotal', label: 'Subtotal (cents)', type: 'integer' },
  { key: 'discount', label: 'Discount (cents)', type: 'integer' },
  { key: 'tax_rate_bps', label: 'Tax Rate (hundredths of a percent)', type: 'integer' },
  { key: 'tax', label: 'Tax (cents)', type: 'integer' },
  { key: 'total', label: 'Total (cents)', type: 'integer' },
  { key: 'amount_paid', label: 'Amount Paid (cents)', type: 'integer' },
  { key: 'amount_due', label: 'Amount Due (cents)', type: 'integer' },
  { key: 'pay_to_unlock', label: 'Photos Locked Until Paid', type: 'boolean' },
  { key: 'due_at', label: 'Due', type: 'datetime' },
  { key: 'note', label: 'Note' },
  { key: 'payment_url', label: 'Payment Link' },
  { key: 'pdf_url', label: 'PDF URL' },
  { key: 'items[]description', label: 'Item Descriptions' },
  { key: 'items[]quantity', label: 'Item Quantities', type: 'integer' },
  { key: 'items[]amount', label: 'Item Amounts (cents)', type: 'integer' },
  { key: 'issued_at', label: 'Issued', type: 'datetime' },
  { key: 'paid_at', label: 'Paid', type: 'datetime' },
  { key: 'created_at', label: 'Created', type: 'datetime' },
];

/** docs/api.md §31: a gallery's compliance report (the id is the event's: one item per change). */
const complianceOutput = [
  { key: 'id', label: 'Change ID' },
  { key: 'listing_id', label: 'Gallery ID' },
  { key: 'profile_id', label: 'MLS Profile ID' },
  { key: 'status', label: 'Status (pass, warn, fail or pending)' },
  { key: 'checked_at', label: 'Checked', type: 'datetime' },
  { key: 'issues[]code', label: 'Gallery Issue Codes' },
  { key: 'issues[]message', label: 'Gallery Issues' },
  { key: 'photos[]media_id', label: 'Photo IDs' },
  { key: 'photos[]status', label: 'Photo Statuses' },
];

/**
 * docs/api.md §32: a gallery's listing kit. Each item's URL answers under the API key (`Authorization:
 * Bearer ...`), so a later step fetches it with the key, as Webhooks by Zapier can.
 */
const kitOutput = [
  { key: 'listing_id', label: 'Gallery ID' },
  { key: 'status', label: 'Kit Status (building, ready, failed or stale)' },
  { key: 'built_at', label: 'Built', type: 'datetime' },
  { key: 'mls_zip__url', label: 'MLS Pack (ZIP) URL' },
  { key: 'mls_zip__size', label: 'MLS Pack Size (bytes)', type: 'integer' },
  { key: 'flyer__url', label: 'Flyer (PDF) URL' },
  { key: 'slideshow__url', label: 'Slideshow (MP4) URL' },
  { key: 'slideshow__duration_seconds', label: 'Slideshow Length (seconds)', type: 'number' },
  { key: 'slideshow_unbranded__url', label: 'Unbranded Slideshow (MP4) URL' },
  { key: 'reel__url', label: 'Reel (vertical MP4) URL' },
  { key: 'teaser__url', label: 'Teaser (MP4) URL' },
  { key: 'social[]format', label: 'Social Image Formats (square, portrait, story)' },
  { key: 'social[]url', label: 'Social Image URLs' },
];

const eventOutput = [
  { key: 'event_id', label: 'Event ID' },
  { key: 'event_type', label: 'Event Type' },
  { key: 'event_created_at', label: 'Happened At', type: 'datetime' },
];

/** Gallery fields a studio fills in on Create Gallery and Update Gallery. */
const galleryInput = (addressRequired) =>
  [
    {
      key: 'address',
      label: 'Property Address',
      required: addressRequired,
      helpText: 'The address of the property, as you want your client to see it.',
    },
    {
      key: 'status',
      label: 'Status',
      choices: { draft: 'Draft (not shared yet)', active: 'Active', archived: 'Archived' },
      helpText: addressRequired ? 'New galleries start as Draft unless you choose otherwise.' : undefined,
    },
    { key: 'beds', label: 'Bedrooms', type: 'number' },
    { key: 'baths', label: 'Bathrooms', type: 'number', helpText: 'Half baths are fine: 2.5.' },
    { key: 'sqft', label: 'Square Feet', type: 'number' },
    { key: 'mls_number', label: 'MLS Number', helpText: 'The listing number on the MLS, if the property has one.' },
    { key: 'description', label: 'Description', type: 'text', helpText: 'Shown to your client on the gallery page.' },
  ].map((field) => (field.helpText === undefined ? (delete field.helpText, field) : field));

const GALLERY_FIELDS = ['address', 'status', 'beds', 'baths', 'sqft', 'mls_number', 'description'];
const GALLERY_NUMBERS = ['beds', 'baths', 'sqft'];

module.exports = {
  galleryOutput,
  clientOutput,
  mediaOutput,
  analyzedMediaOutput,
  notificationOutput,
  shareLinkOutput,
  selectionOutput,
  invoiceOutput,
  complianceOutput,
  kitOutput,
  eventOutput,
  galleryInput,
  GALLERY_FIELDS,
  GALLERY_NUMBERS,
};
