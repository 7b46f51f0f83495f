'use strict';
// API-key connection (docs/api.md §3 and §20): tested with GET /v1/account, labelled with the
// studio's name, and "(test mode)" for a test key.
const { apiUrl } = require('./api');

module.exports = {
  type: 'custom',
  fields: [
    {
      key: 'baseUrl',
      label: 'Lightbox Address',
      required: true,
      type: 'string',
      helpText:
        'The web address you open your Lightbox dashboard at, without /dashboard: for example `https://lightbox.yourstudio.com`.',
    },
    {
      key: 'apiKey',
      label: 'API Key',
      required: true,
      type: 'password',
      helpText:
        'In your Lightbox dashboard open **API keys**, choose **Generate key** with full access, and paste the key (it starts with `lbx_`). Use a key that starts with `lbx_test_` to try Zaps on test data.',
    },
  ],
  test: async (z, bundle) => (await z.request({ url: apiUrl(bundle, '/v1/account') })).data,
  connectionLabel: (z, bundle) => {
    const account = bundle.inputData;
    return account.livemode === false ? `${account.name} (test mode)` : account.name;
  },
};
