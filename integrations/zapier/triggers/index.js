'use strict';
const { hookTrigger } = require('../lib/hook-trigger');
const { apiUrl } = require('../lib/api');
const f = require('../lib/fields');
const samples = require('../lib/samples');
const { newSelection } = require('./selection');

const gallery = { outputFields: f.galleryOutput, sample: samples.gallery };

/** The instant triggers of docs/api.md §24, each with the Lightbox event behind it. */
const instant = [
  hookTrigger({
    key: 'new_gallery',
    noun: 'Gallery',
    label: 'New Gallery',
    description: 'Triggers when a gallery is created in Lightbox.',
    events: ['listing.created'],
    ...gallery,
  }),
  hookTrigger({
    key: 'gallery_updated',
    noun: 'Gallery',
    label: 'Gallery Updated',
    description: 'Triggers when any detail of a gallery changes: its address, status, cover, photos or client.',
    events: ['listing.updated'],
    ...gallery,
  }),
  hookTrigger({
    key: 'gallery_sent',
    noun: 'Gallery',
    label: 'Gallery Sent to Client',
    description: 'Triggers when a gallery is assigned to a client, which gives the client their gallery link.',
    events: ['listing.assigned'],
    ...gallery,
  }),
  hookTrigger({
    key: 'new_client',
    noun: 'Client',
    label: 'New Client',
    description: 'Triggers when a client is added to Lightbox.',
    events: ['client.created'],
    outputFields: f.clientOutput,
    sample: { ...samples.client, listings: [] },
  }),
  hookTrigger({
    key: 'gallery_viewed',
    noun: 'Gallery',
    label: 'Gallery Viewed',
    description: 'Triggers each time a client opens their gallery link.',
    events: ['client_link.viewed'],
    ...gallery,
  }),
  hookTrigger({
    key: 'gallery_downloaded',
    noun: 'Gallery',
    label: 'Gallery Downloaded',
    description: 'Triggers when a client downloads a photo or the whole gallery from their link.',
    events: ['client_link.downloaded'],
    ...gallery,
  }),
  hookTrigger({
    key: 'photos_ready',
    noun: 'Photo',
    label: 'Photos Ready',
    description: 'Triggers when an uploaded photo has its web, thumbnail and MLS-sized versions ready to use.',
    events: ['media.variants_ready'],
    outputFields: f.mediaOutput,
    sample: samples.media,
  }),
  hookTrigger({
    key: 'photos_analyzed',
    noun: 'Photo',
    label: 'Photos Analyzed',
    description:
      'Triggers when an uploaded photo has been analyzed: whether it is blurry or tilted, its exposure, and which photos of the gallery are near copies of it.',
    events: ['media.analyzed'],
    outputFields: f.analyzedMediaOutput,
    sample: samples.analyzedMedia,
  }),
  newSelection,
  // Superseded by New Selection (./selection.js says why): hidden, kept for the Zaps that use it.
  hookTrigger({
    key: 'selection_submitted',
    noun: 'Selection',
    label: 'Selection Submitted',
    description: "Triggers when a client sends you their favorite photos from a gallery (the client's link only).",
    events: ['client_link.selection_submitted'],
    hidden: true,
    ...gallery,
  }),
  // docs/api.md §29: the invoice as of the event.
  hookTrigger({
    key: 'invoice_issued',
    noun: 'Invoice',
    label: 'Invoice Issued',
    description: 'Triggers when an invoice is issued: numbered and emailed to the client.',
    events: ['invoice.issued'],
    outputFields: f.invoiceOutput,
    sample: { ...samples.invoice, status: 'open', amount_paid: 0, amount_due: samples.invoice.total, paid_at: null },
  }),
  hookTrigger({
    key: 'invoice_paid',
    noun: 'Invoice',
    label: 'Invoice Paid',
    description: 'Triggers when an invoice is paid in full (online, or payments you recorded).',
    events: ['invoice.paid'],
    outputFields: f.invoiceOutput,
    sample: samples.invoice,
  }),
  hookTrigger({
    key: 'compliance_changed',
    noun: 'Compliance Report',
    label: 'Compliance Changed',
    description:
      "Triggers when a gallery's compliance with its MLS profile changes: pass, warn, fail, or pending while photos are analyzed.",
    events: ['listing.compliance_changed'],
    outputFields: f.complianceOutput,
    sample: samples.compliance,
    // The report has no id of its own: each change is its event.
    item: async (z, bundle, event) => ({
      id: event.id,
      ...event.data.object,
      event_id: event.id,
      event_type: event.type,
      event_created_at: event.created_at,
    }),
  }),
  hookTrigger({
    key: 'kit_ready',
    noun: 'Listing Kit',
    label: 'Kit Ready',
    description:
      "Triggers when a gallery's listing kit is built: the MLS pack, slideshows, reel, teaser, flyer and social images.",
    events: ['listing.kit_ready'],
    outputFields: [{ key: 'id', label: 'Build ID' }, ...f.kitOutput],
    sample: { id: 'evt_01JDZ8QA1B2C3D4E5F6G7H8J9K', ...samples.kit },
    // docs/api.md §32: the kit has no id of its own, and a rebuild is news again: each build is its event.
    item: async (z, bundle, event) => ({
      id: event.id,
      ...event.data.object,
      event_id: event.id,
      event_type: event.type,
      event_created_at: event.created_at,
    }),
  }),
  hookTrigger({
    key: 'email_failed',
    noun: 'Email',
    label: 'Email Failed',
    description: "Triggers when Lightbox could not deliver a gallery email to a client's address.",
    events: ['notification.failed'],
    outputFields: f.notificationOutput,
    sample: samples.notification,
  }),
];

/** Hidden polling triggers that fill the "Gallery" and "Client" dropdowns of the actions. */
const galleryList = {
  key: 'gallery_list',
  noun: 'Gallery',
  display: { label: 'List Galleries', description: 'Fills the gallery dropdowns.', hidden: true },
  operation: {
    canPaginate: true,
    perform: async (z, bundle) => {
      const response = await z.request({
        url: apiUrl(bundle, '/v1/listings'),
        params: { page: (bundle.meta.page || 0) + 1, limit: 100 },
      });
      return response.data.data;
    },
    sample: {
      id: samples.gallery.id,
      address: samples.gallery.address,
      status: 'active',
      client_id: null,
      created_at: samples.gallery.created_at,
    },
    outputFields: [
      { key: 'id', label: 'Gallery ID' },
      { key: 'address', label: 'Address' },
    ],
  },
};

const clientList = {
  key: 'client_list',
  noun: 'Client',
  display: { label: 'List Clients', description: 'Fills the client dropdowns.', hidden: true },
  operation: {
    canPaginate: true,
    perform: async (z, bundle) => {
      const response = await z.request({
        url: apiUrl(bundle, '/v1/clients'),
        params: { page: (bundle.meta.page || 0) + 1, limit: 100 },
      });
      return response.data.data.map((c) => ({ ...c, label: `${c.name} <${c.email}>` }));
    },
    sample: {
      id: samples.client.id,
      name: samples.client.name,
      email: samples.client.email,
      label: 'Dana Whitfield <dana@whitfield-homes.example>',
    },
    outputFields: [
      { key: 'id', label: 'Client ID' },
      { key: 'label', label: 'Name and Email' },
    ],
  },
};

/** Fills the Product dropdown of Create Invoice's items (active products only). */
const productList = {
  key: 'product_list',
  noun: 'Product',
  display: { label: 'List Products', description: 'Fills the product dropdowns.', hidden: true },
  operation: {
    canPaginate: true,
    perform: async (z, bundle) => {
      const response = await z.request({
        url: apiUrl(bundle, '/v1/products'),
        params: { page: (bundle.meta.page || 0) + 1, limit: 100 },
      });
      return response.data.data.filter((p) => p.active);
    },
    sample: samples.product,
    outputFields: [
      { key: 'id', label: 'Product ID' },
      { key: 'name', label: 'Name' },
      { key: 'unit_amount', label: 'Price (cents)', type: 'integer' },
    ],
  },
};

module.exports = { instant, galleryList, clientList, productList };
