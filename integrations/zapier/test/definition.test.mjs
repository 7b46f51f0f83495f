// The offline validation (scripts/validate.js's check) accepts this app and refuses a broken
// copy, and the definition has what docs/api.md §24 names.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';

const require = createRequire(import.meta.url);
const { prepareApp, validateApp } = require('zapier-platform-core/src/tools/schema');
const App = require('../index.js');

test('the app validates against Zapier schema, and a broken copy does not', () => {
  assert.deepEqual(validateApp(prepareApp(App)), []);
  const broken = {
    ...App,
    triggers: { ...App.triggers, new_gallery: { ...App.triggers.new_gallery, noun: undefined } },
    searchOrCreates: { ...App.searchOrCreates, find_client: { ...App.searchOrCreates.find_client, create: undefined } },
  };
  const errors = validateApp(prepareApp(broken)).map((e) => e.property);
  assert.ok(
    errors.some((p) => p.includes('new_gallery')),
    errors.join(),
  );
  assert.ok(
    errors.some((p) => p.includes('find_client')),
    errors.join(),
  );
});

test('every trigger, action and search of section 24, with labels a studio reads', () => {
  const labels = (o) =>
    Object.values(o)
      .filter((x) => !x.display.hidden)
      .map((x) => x.display.label)
      .sort();
  assert.deepEqual(labels(App.triggers), [
    'Compliance Changed',
    'Email Failed',
    'Gallery Downloaded',
    'Gallery Sent to Client',
    'Gallery Updated',
    'Gallery Viewed',
    'Invoice Issued',
    'Invoice Paid',
    'Kit Ready',
    'New Client',
    'New Gallery',
    'New Selection',
    'Photos Analyzed',
    'Photos Ready',
  ]);
  // Replaced by New Selection, kept under its key (hidden) so the Zaps that use it keep working.
  assert.equal(App.triggers.selection_submitted.display.hidden, true);
  assert.deepEqual(labels(App.creates), [
    'Add Media from URL',
    'Assign Gallery to Client',
    'Build Listing Kit',
    'Create Client',
    'Create Gallery',
    'Create Invoice',
    'Create Share Link',
    'Resend Gallery Email',
    'Update Gallery',
  ]);
  assert.deepEqual(labels(App.searches), ['Find Client', 'Find Gallery']);
  assert.deepEqual(
    Object.values(App.searchOrCreates).map((s) => [s.search, s.create]),
    [
      ['find_gallery', 'create_gallery'],
      ['find_client', 'create_client'],
    ],
  );
  for (const trigger of Object.values(App.triggers)) {
    if (trigger.display.hidden) continue;
    assert.equal(trigger.operation.type, 'hook', trigger.key);
    assert.ok(trigger.operation.sample.id, trigger.key);
  }
  // docs/api.md §32: every field of the kit's sample is labelled (items by their URL), in the
  // trigger and in the action.
  for (const operation of [App.triggers.kit_ready.operation, App.creates.build_listing_kit.operation]) {
    const labelled = new Set(operation.outputFields.map((field) => field.key.split(/__|\[\]/)[0]));
    for (const key of Object.keys(operation.sample)) {
      if (!key.startsWith('event_')) assert.ok(labelled.has(key), key);
    }
  }
  for (const field of [
    ...App.authentication.fields,
    ...Object.values(App.creates).flatMap((c) => c.operation.inputFields),
  ]) {
    assert.ok(field.label, field.key);
  }
});
