'use strict';
// The actions of docs/api.md §24 (Create Share Link: §28; Create Invoice: §29; Build Listing Kit: §32), each on one Lightbox endpoint (named in README.md).
const { apiUrl, pickFilled, numbersIn, integersIn, percentToBps, booleansIn } = require('../lib/api');
const f = require('../lib/fields');
const samples = require('../lib/samples');

const galleryField = {
  key: 'gallery_id',
  label: 'Gallery',
  required: true,
  dynamic: 'gallery_list.id.address',
  helpText: 'Choose a gallery, or map a Gallery ID from an earlier step.',
};
const clientField = {
  key: 'client_id',
  label: 'Client',
  required: true,
  dynamic: 'client_list.id.label',
  helpText: 'Choose a client, or map a Client ID from an earlier step (for example from Find Client).',
};
const galleryPath = (bundle) => `/v1/listings/${encodeURIComponent(bundle.inputData.gallery_id)}`;

const createGallery = {
  key: 'create_gallery',
  noun: 'Gallery',
  display: {
    label: 'Create Gallery',
    description: 'Creates a gallery for a property shoot, ready for photos.',
  },
  operation: {
    inputFields: f.galleryInput(true),
    perform: async (z, bundle) => {
      const body = numbersIn(z, pickFilled(bundle.inputData, f.GALLERY_FIELDS), f.GALLERY_NUMBERS);
      const response = await z.request({ url: apiUrl(bundle, '/v1/listings'), method: 'POST', body });
      return response.data;
    },
    sample: samples.gallery,
    outputFields: f.galleryOutput,
  },
};

const updateGallery = {
  key: 'update_gallery',
  noun: 'Gallery',
  display: {
    label: 'Update Gallery',
    description: "Changes a gallery's details or status. Fields you leave empty stay as they are.",
  },
  operation: {
    inputFields: [galleryField, ...f.galleryInput(false)],
    perform: async (z, bundle) => {
      const body = numbersIn(z, pickFilled(bundle.inputData, f.GALLERY_FIELDS), f.GALLERY_NUMBERS);
      if (Object.keys(body).length === 0) {
        throw new z.errors.Error('Fill in at least one field to change.', 'validation_error', 400);
      }
      const response = await z.request({ url: apiUrl(bundle, galleryPath(bundle)), method: 'PATCH', body });
      return response.data;
    },
    sample: samples.gallery,
    outputFields: f.galleryOutput,
  },
};

const createClient = {
  key: 'create_client',
  noun: 'Client',
  display: {
    label: 'Create Client',
    description: 'Adds a client (a homeowner, agent or agency) you deliver galleries to.',
  },
  operation: {
    inputFields: [
      { key: 'name', label: 'Name', required: true },
      {
        key: 'email',
        label: 'Email',
        required: true,
        helpText: 'Gallery links are emailed here. Each client in Lightbox has a different email address.',
      },
      { key: 'phone', label: 'Phone' },
      { key: 'company', label: 'Company', helpText: 'The agency or brokerage, if any.' },
      { key: 'notes', label: 'Notes', type: 'text', helpText: 'For you only: your client never sees these.' },
    ],
    perform: async (z, bundle) => {
      const body = pickFilled(bundle.inputData, ['name', 'email', 'phone', 'company', 'notes']);
      const response = await z.request({ url: apiUrl(bundle, '/v1/clients'), method: 'POST', body });
      return response.data;
    },
    sample: { ...samples.client, listings: [] },
    outputFields: f.clientOutput,
  },
};

const assignGallery = {
  key: 'assign_gallery',
  noun: 'Gallery',
  display: {
    label: 'Assign Gallery to Client',
    description: 'Gives a client their gallery link and, unless you say otherwise, emails it to them.',
  },
  operation: {
    inputFields: [
      galleryField,
      clientField,
      {
        key: 'send_email',
        label: 'Email the Gallery Link to the Client?',
        type: 'boolean',
        default: 'yes',
        helpText: 'Choose No to assign quietly, for example when you send the link yourself.',
      },
    ],
    perform: async (z, bundle) => {
      const notify = !['false', 'no', '0', 'off'].includes(String(bundle.inputData.send_email).toLowerCase());
      const path = `/v1/clients/${encodeURIComponent(bundle.inputData.client_id)}/listings/${encodeURIComponent(bundle.inputData.gallery_id)}`;
      const response = await z.request({
        url: apiUrl(bundle, path),
        method: 'POST',
        params: notify ? {} : { notify: 'false' },
      });
      return response.data;
    },
    sample: samples.gallery,
    outputFields: f.galleryOutput,
  },
};

const addMediaFromUrl = {
  key: 'add_media_from_url',
  noun: 'Media',
  display: {
    label: 'Add Media from URL',
    description:
      'Adds a photo, video or PDF to a gallery from a web address (Dropbox, Google Drive or any public link).',
  },
  operation: {
    inputFields: [
      galleryField,
      {
        key: 'url',
        label: 'File URL',
        required: true,
        helpText:
          'A link Lightbox can download the file from directly. Photos (JPEG, PNG, HEIC, WebP...), videos (MP4, MOV) and PDFs.',
      },
      {
        key: 'filename',
        label: 'File Name',
        helpText: 'Optional: the name your client sees. Lightbox otherwise uses the name the link gives.',
      },
    ],
    perform: async (z, bundle) => {
      const body = pickFilled(bundle.inputData, ['url', 'filename']);
      const response = await z.request({ url: apiUrl(bundle, `${galleryPath(bundle)}/media`), method: 'POST', body });
      return response.data.data[0];
    },
    sample: samples.media,
    outputFields: f.mediaOutput,
  },
};

const resendGalleryEmail = {
  key: 'resend_gallery_email',
  noun: 'Email',
  display: {
    label: 'Resend Gallery Email',
    description: 'Emails the gallery link again to the client the gallery is assigned to.',
  },
  operation: {
    inputFields: [galleryField],
    perform: async (z, bundle) => {
      const gallery = (await z.request({ url: apiUrl(bundle, galleryPath(bundle)) })).data;
      if (!gallery.client_id) {
        throw new z.errors.Error(
          'This gallery is not assigned to a client yet: use Assign Gallery to Client first.',
          'not_assigned',
          409,
        );
      }
      const path = `/v1/clients/${encodeURIComponent(gallery.client_id)}/listings/${encodeURIComponent(gallery.id)}/notify`;
      const response = await z.request({ url: apiUrl(bundle, path), method: 'POST' });
      return response.data;
    },
    sample: { ...samples.notification, status: 'queued', last_error: null, attempts: 0 },
    outputFields: f.notificationOutput,
  },
};

const SHARE_LINK_FIELDS = [
  'label',
  'email',
  'expires_at',
  'password',
  'downloads_enabled',
  'favorites_enabled',
  'selection_min',
  'selection_max',
];

const createShareLink = {
  key: 'create_share_link',
  noun: 'Share Link',
  display: {
    label: 'Create Share Link',
    description:
      "Makes another link to a gallery besides the client's (for a seller, a co-agent or a stager), and emails it if you give an address.",
  },
  operation: {
    inputFields: [
      galleryField,
      {
        key: 'label',
        label: 'Label',
        required: true,
        helpText: 'What you call this link, for example "Seller: Jo Marsh". Only you see it.',
      },
      {
        key: 'email',
        label: 'Email the Link To',
        helpText: 'Lightbox emails the link to this address. Leave empty to send it yourself (use the link below).',
      },
      { key: 'expires_at', label: 'Expires', type: 'datetime', helpText: 'The link stops working then. Empty: never.' },
      {
        key: 'password',
        label: 'Password',
        type: 'password',
        helpText: 'At least 8 characters; whoever opens the link must give it. Empty: no password.',
      },
      {
        key: 'downloads_enabled',
        label: 'Allow Downloads?',
        type: 'boolean',
        helpText: 'Originals and the ZIP can be downloaded (Yes unless you choose No).',
      },
      {
        key: 'favorites_enabled',
        label: 'Allow Favorites?',
        type: 'boolean',
        helpText: 'The page offers hearts, comments and sending a selection (Yes unless you choose No).',
      },
      {
        key: 'selection_min',
        label: 'Fewest Photos to Choose',
        type: 'integer',
        helpText: 'A selection with fewer photos cannot be sent. Empty: no minimum.',
      },
      {
        key: 'selection_max',
        label: 'Most Photos to Choose',
        type: 'integer',
        helpText: 'No more photos can be marked. Empty: no maximum.',
      },
    ],
    perform: async (z, bundle) => {
      const body = pickFilled(bundle.inputData, SHARE_LINK_FIELDS);
      numbersIn(z, body, ['selection_min', 'selection_max']);
      booleansIn(z, body, ['downloads_enabled', 'favorites_enabled']);
      const response = await z.request({
        url: apiUrl(bundle, `${galleryPath(bundle)}/share_links`),
        method: 'POST',
        body,
      });
      return response.data;
    },
    sample: samples.shareLink,
    outputFields: f.shareLinkOutput,
  },
};

const CENTS = 'a whole number of cents, like 2500 for 25.00';

/** One invoice item from a line of the Items field: a product, or a description and a price. */
const invoiceItem = (z, line, index) => {
  const item = pickFilled(line || {}, ['product_id', 'description', 'unit_amount', 'quantity']);
  const where = `items.${index}`;
  integersIn(z, item, ['unit_amount'], CENTS);
  integersIn(z, item, ['quantity']);
  if (item.product_id === undefined && (item.description === undefined || item.unit_amount === undefined)) {
    throw new z.errors.Error(
      `Item ${index + 1}: choose a product, or give a description and a price (${where}).`,
      'validation_error',
      400,
    );
  }
  return item;
};

const createInvoice = {
  key: 'create_invoice',
  noun: 'Invoice',
  display: {
    label: 'Create Invoice',
    description:
      "Creates a draft invoice for a gallery's client from your products or your own items; issue it from Lightbox.",
  },
  operation: {
    inputFields: [
      { ...galleryField, helpText: 'The gallery invoiced. Its client is the one invoiced: assign one first.' },
      {
        key: 'items',
        label: 'Items',
        required: true,
        children: [
          {
            key: 'product_id',
            label: 'Product',
            dynamic: 'product_list.id.name',
            helpText: 'One of your products: its name and price are copied. Or leave empty and fill the two below.',
          },
          { key: 'description', label: 'Description', helpText: 'What this item is, without a product.' },
          {
            key: 'unit_amount',
            label: 'Price (cents)',
            type: 'integer',
            helpText: 'The price of one, without a product, in cents: 2500 is 25.00.',
          },
          { key: 'quantity', label: 'Quantity', type: 'integer', helpText: 'Default 1.' },
        ],
      },
      {
        key: 'discount',
        label: 'Discount (cents)',
        type: 'integer',
        helpText: 'Taken off the subtotal, in cents: 1000 is 10.00. At most the subtotal.',
      },
      {
        key: 'tax_rate',
        label: 'Tax Rate (%)',
        helpText: 'For example 8.25; at most two decimals. Empty: no tax.',
      },
      {
        key: 'pay_to_unlock',
        label: 'Lock the Gallery Until Paid?',
        type: 'boolean',
        helpText:
          'While the invoice is open the client sees watermarked previews and cannot download (Yes unless you choose No).',
      },
      { key: 'due_at', label: 'Due Date', type: 'datetime' },
      { key: 'note', label: 'Note', type: 'text', helpText: 'Printed on the invoice for your client.' },
    ],
    perform: async (z, bundle) => {
      const input = bundle.inputData;
      const lines = Array.isArray(input.items) ? input.items : [];
      if (lines.length === 0) {
        throw new z.errors.Error('Add at least one item (items).', 'validation_error', 400);
      }
      const body = {
        listing_id: input.gallery_id,
        items: lines.map((line, i) => invoiceItem(z, line, i)),
        ...pickFilled(input, ['discount', 'pay_to_unlock', 'due_at', 'note']),
      };
      integersIn(z, body, ['discount'], CENTS);
      booleansIn(z, body, ['pay_to_unlock']);
      if (input.tax_rate !== undefined && input.tax_rate !== null && input.tax_rate !== '') {
        body.tax_rate_bps = percentToBps(z, input.tax_rate, 'tax_rate');
      }
      const response = await z.request({ url: apiUrl(bundle, '/v1/invoices'), method: 'POST', body });
      return response.data;
    },
    sample: {
      ...samples.invoice,
      number: null,
      status: 'draft',
      amount_paid: 0,
      amount_due: 41135,
      issued_at: null,
      paid_at: null,
    },
    outputFields: f.invoiceOutput,
  },
};

const buildListingKit = {
  key: 'build_listing_kit',
  noun: 'Listing Kit',
  display: {
    label: 'Build Listing Kit',
    description:
      "Builds (or rebuilds) a gallery's listing kit in the background: the MLS pack, slideshows, reel, teaser, flyer and social images.",
  },
  operation: {
    inputFields: [
      {
        ...galleryField,
        helpText:
          'An active gallery with at least one ready photo. Use the Kit Ready trigger to act when the kit is built.',
      },
    ],
    perform: async (z, bundle) => {
      const response = await z.request({ url: apiUrl(bundle, `${galleryPath(bundle)}/kit`), method: 'POST' });
      return response.data;
    },
    sample: { ...samples.kit, status: 'building' },
    outputFields: f.kitOutput,
  },
};

module.exports = [
  createGallery,
  updateGallery,
  createClient,
  assignGallery,
  addMediaFromUrl,
  resendGalleryEmail,
  createShareLink,
  createInvoice,
  buildListingKit,
];
