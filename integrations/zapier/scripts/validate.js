'use strict';
// Offline validation of the app definition against Zapier's own schema (zapier-platform-schema,
// what `zapier validate` checks before it asks Zapier's servers for style checks), plus the
// platform's compiled-app checks in zapier-platform-core.
// validateApp is the command `zapier validate` sends the app (functions replaced by markers,
// then zapier-platform-schema's validateAppDefinition).
const { prepareApp, validateApp } = require('zapier-platform-core/src/tools/schema');
const App = require('../index');

const errors = validateApp(prepareApp(App));
if (errors.length > 0) {
  for (const error of errors) console.error(`${error.property}: ${error.message}`);
  process.exit(1);
}
const count = (o) => Object.keys(o || {}).length;
console.log(
  `zapier app definition valid: ${count(App.triggers)} triggers, ${count(App.creates)} actions, ${count(App.searches)} searches, ${count(App.searchOrCreates)} search-or-creates (platform ${App.platformVersion})`,
);
