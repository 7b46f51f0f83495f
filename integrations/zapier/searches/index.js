'use strict';
// Find Gallery and Find Client (docs/api.md §24), each offered with "create if not found"
// (the searchOrCreates in index.js).
const { apiUrl } = require('../lib/api');
const f = require('../lib/fields');
const samples = require('../lib/samples');

const same = (a, b) => String(a).trim().toLowerCase() === String(b).trim().toLowerCase();

const findGallery = {
  key: 'find_gallery',
  noun: 'Gallery',
  display: {
    label: 'Find Gallery',
    description: 'Finds a gallery by its MLS number or its address.',
  },
  operation: {
    inputFields: [
      {
        key: 'mls_number',
        label: 'MLS Number',
        helpText: 'Finds the gallery with exactly this MLS number. Fill in this or the address.',
      },
      {
        key: 'address',
        label: 'Address',
        helpText: 'Finds galleries whose address contains this text; an exact match comes first.',
      },
    ],
    perform: async (z, bundle) => {
      const { mls_number: mls, address } = bundle.inputData;
      if (!mls && !address) {
        throw new z.errors.Error('Fill in the MLS number or the address to search for.', 'validation_error', 400);
      }
      const params = mls ? { mls_number: mls, limit: 10 } : { search: address, limit: 10 };
      const found = (await z.request({ url: apiUrl(bundle, '/v1/listings'), params })).data.data;
      const matches = mls && address ? found.filter((g) => same(g.address, address)) : found;
      // Exact address first, then newest (the list's own order).
      const ordered = [...matches].sort(
        (a, b) => Number(same(b.address, address || '')) - Number(same(a.address, address || '')),
      );
      // Whole gallery objects, so a found gallery offers the same fields as a created one.
      return Promise.all(
        ordered
          .slice(0, 5)
          .map(
            async (g) => (await z.request({ url: apiUrl(bundle, `/v1/listings/${encodeURIComponent(g.id)}`) })).data,
          ),
      );
    },
    sample: samples.gallery,
    outputFields: f.galleryOutput,
  },
};

const findClient = {
  key: 'find_client',
  noun: 'Client',
  display: {
    label: 'Find Client',
    description: 'Finds a client by email address.',
  },
  operation: {
    inputFields: [{ key: 'email', label: 'Email', required: true }],
    perform: async (z, bundle) => {
      const email = String(bundle.inputData.email).trim();
      const found = (await z.request({ url: apiUrl(bundle, '/v1/clients'), params: { search: email, limit: 100 } }))
        .data.data;
      const exact = found.filter((c) => same(c.email, email));
      return Promise.all(
        exact.map(
          async (c) => (await z.request({ url: apiUrl(bundle, `/v1/clients/${encodeURIComponent(c.id)}`) })).data,
        ),
      );
    },
    sample: { ...samples.client, listings: [] },
    outputFields: f.clientOutput,
  },
};

module.exports = [findGallery, findClient];
