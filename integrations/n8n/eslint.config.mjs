// The linting n8n asks of community node packages (`n8n-node lint` runs this plugin's
// recommended config), plus eslint-plugin-n8n-nodes-base's rules for node and credential
// descriptions (labels, descriptions, option order: what n8n's own nodes follow).
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';

export default [
  { ignores: ['dist/', 'node_modules/', 'test/', 'scripts/', 'eslint.config.mjs'] },
  ...tseslint.configs.recommended.map((config) => ({ ...config, files: ['**/*.ts'] })),
  n8nCommunityNodesPlugin.configs.recommended,
  {
    rules: {
      // Set by whoever publishes the package to npm (README.md, "Not here"): no made-up contact here.
      '@n8n/community-nodes/valid-author': 'off',
      '@n8n/community-nodes/require-homepage': 'off',
    },
  },
  {
    files: ['package.json'],
    plugins: { 'n8n-nodes-base': n8nNodesBase },
    languageOptions: { parser: tseslint.parser },
    rules: {
      ...n8nNodesBase.configs.community.rules,
      'n8n-nodes-base/community-package-json-author-missing': 'off',
      // The starter template's MIT: the package is Apache-2.0, as the whole repository is (LICENSE).
      'n8n-nodes-base/community-package-json-license-not-default': 'off',
    },
  },
  {
    files: ['credentials/**/*.ts'],
    plugins: { 'n8n-nodes-base': n8nNodesBase },
    rules: {
      ...n8nNodesBase.configs.credentials.rules,
      // A full URL to this README, which the newer community rule (credential-documentation-url) accepts.
      'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
    },
  },
  {
    files: ['nodes/**/*.ts'],
    plugins: { 'n8n-nodes-base': n8nNodesBase },
    rules: {
      ...n8nNodesBase.configs.nodes.rules,
      // The older plugin wants ['main'] strings; n8n 2's own rule (node-connection-type-literal) wants
      // NodeConnectionTypes, which is what the nodes use.
      'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
      'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
    },
  },
];
