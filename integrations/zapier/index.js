'use strict';
// Lightbox for Zapier (docs/api.md §24). README.md lists every trigger, action and search with
// the Lightbox event or endpoint behind it.
const { version: platformVersion } = require('zapier-platform-core');
const { version } = require('./package.json');
const authentication = require('./lib/authentication');
const { addApiKey, explainErrors } = require('./lib/api');
const { instant, galleryList, clientList, productList } = require('./triggers');
const creates = require('./creates');
const searches = require('./searches');

const byKey = (list) => Object.fromEntries(list.map((item) => [item.key, item]));

module.exports = {
  version,
  platformVersion,
  authentication,
  beforeRequest: [addApiKey],
  afterResponse: [explainErrors],
  triggers: byKey([...instant, galleryList, clientList, productList]),
  creates: byKey(creates),
  searches: byKey(searches),
  searchOrCreates: {
    find_gallery: {
      key: 'find_gallery',
      display: {
        label: 'Find or Create Gallery',
        description: 'Finds a gallery by MLS number or address, and creates it if there is none.',
      },
      search: 'find_gallery',
      create: 'create_gallery',
    },
    find_client: {
      key: 'find_client',
      display: {
        label: 'Find or Create Client',
        description: 'Finds a client by email, and creates them if there is none.',
      },
      search: 'find_client',
      create: 'create_client',
    },
  },
};
