// n8n-nodes-lightbox run by n8n's own engine (n8n-core's WorkflowExecute, HookContext and
// WebhookContext; the package loaded by n8n's PackageDirectoryLoader) against a real Lightbox:
// a workflow creates a gallery, finds-or-creates the client and assigns the gallery; the Lightbox
// Trigger, activated in another workflow, registers its endpoint, receives the signed
// listing.assigned delivery and starts its workflow; forged deliveries are refused; deactivation
// leaves no endpoint behind. Then every other operation, each in a workflow of its own.
import assert from 'node:assert/strict';
import { randomUUID, createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { makeJpeg, startFileServer, startLightbox } from '../../support/lightbox.mjs';

// n8n keeps its instance settings (an encryption key) in its user folder: a fresh one per run.
const userFolder = mkdtempSync(path.join(os.tmpdir(), 'n8n-user-'));
process.env.N8N_USER_FOLDER = userFolder;
const host = await import('./n8n-host.mjs');

const LIGHTBOX = 'n8n-nodes-lightbox.lightbox';
const TRIGGER = 'n8n-nodes-lightbox.lightboxTrigger';
const CREDENTIAL = { lightboxApi: { id: 'cred-1', name: 'Harbour Light' } };

let lb;
let files;
let jpeg;
let pkg;
let webhooks;
let credentials;

before(async () => {
  lb = await startLightbox();
  jpeg = await makeJpeg();
  files = await startFileServer({ '/shoot/front.jpg': { type: 'image/jpeg', bytes: jpeg } });
  pkg = await host.loadPackage();
  webhooks = await host.startWebhookServer();
  credentials = { lightboxApi: { id: 'cred-1', data: { baseUrl: `${lb.base}/`, apiKey: lb.key } } };
});

after(async () => {
  await webhooks?.stop();
  await files?.stop();
  await lb?.stop();
  rmSync(userFolder, { recursive: true, force: true });
});

const node = (name, type, parameters, position = [0, 0]) => ({
  id: randomUUID(),
  name,
  type,
  typeVersion: 1,
  position,
  parameters,
  credentials: CREDENTIAL,
});

const chain = (...names) =>
  Object.fromEntries(
    names.slice(0, -1).map((n, i) => [n, { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] }]),
  );

const additional = (workflowId, creds = credentials) =>
  host.additionalDataFor({ loader: pkg.loader, credentials: creds, webhookBaseUrl: webhooks.base, workflowId });

/** Runs `nodes` (connected in order) as one manual workflow; answers the run and each node's items. */
async function run(nodes, creds) {
  const id = `wf-${randomUUID().slice(0, 8)}`;
  const workflow = host.makeWorkflow({
    id,
    name: 'Lightbox test',
    nodes,
    connections: chain(...nodes.map((n) => n.name)),
    nodeTypes: pkg.nodeTypes,
  });
  const result = await host.runWorkflow(workflow, additional(id, creds), nodes[0].name);
  const items = (name) => result.data.resultData.runData[name]?.[0]?.data?.main?.[0]?.map((i) => i.json) ?? [];
  return { result, items, error: result.data.resultData.error };
}

/** One Lightbox node in a workflow of its own: its output items, or the run's error thrown. */
async function one(parameters) {
  const { items, error } = await run([node('Lightbox', LIGHTBOX, parameters)]);
  // The run's error as n8n records it (a serialisable NodeApiError or NodeOperationError).
  if (error)
    throw Object.assign(new Error(`${error.message}${error.description ? ` (${error.description})` : ''}`), {
      n8n: error,
    });
  return items('Lightbox');
}

const endpoints = async () => (await lb.api('GET', '/v1/webhook_endpoints?limit=100')).body.data;

function sign(secret, id, body, timestamp = Math.floor(Date.now() / 1000)) {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
}

describe('the package as n8n loads it', () => {
  test('PackageDirectoryLoader finds both nodes and the credential from package.json', () => {
    assert.equal(pkg.loader.packageName, 'n8n-nodes-lightbox');
    assert.deepEqual(Object.keys(pkg.loader.nodeTypes).sort(), ['lightbox', 'lightboxTrigger']);
    assert.deepEqual(Object.keys(pkg.loader.credentialTypes), ['lightboxApi']);
    const trigger = pkg.loader.getNode('lightboxTrigger').type.description;
    assert.equal(trigger.webhooks[0].httpMethod, 'POST');
    assert.ok(trigger.properties[0].options.some((o) => o.value === 'media.variants_ready'));
  });

  test('the trigger offers every event type Lightbox records (EVENT_TYPES), share links included', () => {
    // EVENT_TYPES of src/db/schema.ts, with the lists it spreads from other modules
    // (`...billing.BILLING_EVENT_TYPES`, from the module schema.ts imports as `billing`).
    const read = (file) => readFileSync(new URL(`../../../src/db/${file}`, import.meta.url), 'utf8');
    const types = (source, name) => {
      const start = source.indexOf(`export const ${name}`);
      assert.ok(start >= 0, name);
      const list = source.slice(start, source.indexOf('] as const;', start));
      const spread = [...list.matchAll(/\.\.\.(\w+)\.(\w+)/g)].flatMap(([, alias, inner]) => {
        const from = new RegExp(`import \\* as ${alias} from '\\./([\\w.-]+?)(?:\\.ts)?'`).exec(source);
        assert.ok(from, `the import of ${alias}`);
        return types(read(`${from[1]}.ts`), inner);
      });
      return [...[...list.matchAll(/'([a-z_]+\.[a-z_]+)'/g)].map((m) => m[1]), ...spread];
    };
    const recorded = types(read('schema.ts'), 'EVENT_TYPES').sort();
    assert.ok(recorded.includes('share_link.selection_submitted'), recorded.join());
    assert.ok(recorded.includes('invoice.paid'), recorded.join());
    const offered = pkg.loader.getNode('lightboxTrigger').type.description.properties[0].options;
    assert.deepEqual(offered.map((o) => o.value).sort(), recorded);
    assert.equal(new Set(offered.map((o) => o.name)).size, offered.length, 'each option has its own name');
  });

  test('the Lightbox node has the MLS Profile resource, with Get Compliance (docs/api.md §31)', () => {
    const { properties } = pkg.loader.getNode('lightbox').type.description;
    const operations = properties
      .find((p) => p.name === 'operation' && p.displayOptions.show.resource[0] === 'mlsProfile')
      .options.map((o) => o.value);
    assert.deepEqual(operations, ['create', 'delete', 'get', 'getCompliance', 'getAll', 'update']);
  });

  test('the Lightbox node has the Product and Invoice resources (docs/api.md §29)', () => {
    const { properties } = pkg.loader.getNode('lightbox').type.description;
    const operationsOf = (resource) =>
      properties
        .find((p) => p.name === 'operation' && p.displayOptions.show.resource[0] === resource)
        .options.map((o) => o.value);
    assert.deepEqual(operationsOf('product'), ['create', 'delete', 'get', 'getAll', 'update']);
    assert.deepEqual(operationsOf('invoice'), [
      'create',
      'delete',
      'downloadPdf',
      'get',
      'getAll',
      'getPayments',
      'issue',
      'recordPayment',
      'update',
      'void',
    ]);
  });

  test('the Lightbox node has the Listing Kit and RESO Media resources (docs/api.md §32, §33)', () => {
    const { properties } = pkg.loader.getNode('lightbox').type.description;
    const operationsOf = (resource) =>
      properties
        .find((p) => p.name === 'operation' && p.displayOptions.show.resource[0] === resource)
        .options.map((o) => o.value);
    assert.deepEqual(operationsOf('listingKit'), ['build', 'downloadItem', 'get']);
    assert.deepEqual(operationsOf('resoMedia'), ['getAll']);
    // Every item GET /v1/listings/:id/kit/:name serves (KIT_ITEM_NAMES), and no other.
    const source = readFileSync(new URL('../../../src/db/schema-kit.ts', import.meta.url), 'utf8');
    const start = source.indexOf('export const KIT_ITEM_NAMES');
    const list = source.slice(start, source.indexOf('] as const;', start));
    const served = [...list.matchAll(/'(\w+)'/g)].map((m) => m[1]).sort();
    assert.ok(served.includes('mls_zip'));
    const offered = properties.find((p) => p.name === 'item').options.map((o) => o.value);
    assert.deepEqual([...offered].sort(), served);
  });

  test('the Lightbox node has the Share Link resource with its eight operations', () => {
    const { properties } = pkg.loader.getNode('lightbox').type.description;
    assert.ok(properties[0].options.some((o) => o.value === 'shareLink'));
    const operations = properties.find(
      (p) => p.name === 'operation' && p.displayOptions.show.resource[0] === 'shareLink',
    );
    assert.deepEqual(
      operations.options.map((o) => o.value),
      ['create', 'delete', 'get', 'getFavorites', 'getAll', 'rotate', 'sendEmail', 'update'],
    );
  });
});

describe('create a gallery, assign it, and the trigger receives the verified event', () => {
  const webhookId = randomUUID();
  let triggerWorkflow;
  let triggerNode;
  let triggerData;
  const state = {};

  test('activating the trigger workflow creates one endpoint for its URL and events', async () => {
    triggerNode = {
      ...node('Lightbox Trigger', TRIGGER, { events: ['listing.assigned', 'client_link.viewed'] }),
      webhookId,
    };
    const getGallery = node(
      'Get Gallery',
      LIGHTBOX,
      { resource: 'gallery', operation: 'get', galleryId: '={{ $json.id }}' },
      [200, 0],
    );
    triggerWorkflow = host.makeWorkflow({
      id: 'wf-trigger',
      name: 'When a gallery is sent',
      nodes: [triggerNode, getGallery],
      connections: chain('Lightbox Trigger', 'Get Gallery'),
      nodeTypes: pkg.nodeTypes,
      active: true,
    });
    triggerData = additional('wf-trigger');
    assert.equal(await host.activate(triggerWorkflow, triggerNode, triggerData), 'created');
    webhooks.register(triggerWorkflow, triggerNode, triggerData);
    const list = await endpoints();
    assert.equal(list.length, 1);
    assert.equal(list[0].url, `${webhooks.base}/${webhookId}/webhook`);
    assert.deepEqual([...list[0].events].sort(), ['client_link.viewed', 'listing.assigned']);
    // Activating again (n8n does on every start) keeps the same endpoint.
    assert.equal(await host.activate(triggerWorkflow, triggerNode, triggerData), 'existed');
    assert.equal((await endpoints()).length, 1);
  });

  test('a workflow creates the gallery, finds or creates the client, and assigns it', async () => {
    const { items, error } = await run([
      node('Create Gallery', LIGHTBOX, {
        resource: 'gallery',
        operation: 'create',
        address: '12 Harbour View, Brighton',
        additionalFields: { beds: 3, baths: 2.5, mls_number: 'BRI-20431', status: 'active' },
      }),
      node('Find Client', LIGHTBOX, {
        resource: 'client',
        operation: 'find',
        email: 'dana@whitfield.test',
        createIfNotFound: true,
        name: 'Dana Whitfield',
        clientFields: { company: 'Whitfield Homes' },
      }),
      node('Assign', LIGHTBOX, {
        resource: 'gallery',
        operation: 'assign',
        galleryId: "={{ $('Create Gallery').item.json.id }}",
        clientId: '={{ $json.id }}',
        sendEmail: false,
      }),
    ]);
    assert.equal(error, undefined, error?.message);
    const [gallery] = items('Create Gallery');
    const [client] = items('Find Client');
    const [assigned] = items('Assign');
    assert.match(gallery.id, /^lst_/);
    assert.equal(gallery.beds, 3);
    assert.equal(client.company, 'Whitfield Homes');
    assert.equal(assigned.id, gallery.id);
    assert.equal(assigned.client_id, client.id);
    assert.match(assigned.client_link.url, /\/g\//);
    Object.assign(state, { gallery, client, assigned });
  });

  test('the trigger verifies the delivery and its workflow runs on to Get Gallery', async () => {
    const execution = await webhooks.waitForRun(
      (r) => r.data.resultData.runData['Lightbox Trigger']?.[0]?.data.main[0][0].json.event_type === 'listing.assigned',
    );
    assert.equal(execution.data.resultData.error, undefined);
    const [event] = execution.data.resultData.runData['Lightbox Trigger'][0].data.main[0].map((i) => i.json);
    assert.equal(event.id, state.gallery.id);
    assert.equal(event.client_id, state.client.id);
    assert.match(event.event_id, /^evt_/);
    const [got] = execution.data.resultData.runData['Get Gallery'][0].data.main[0].map((i) => i.json);
    assert.equal(got.client_link.url, state.assigned.client_link.url);
    assert.ok(webhooks.responses.some((r) => r.status === 200 && r.headers['webhook-signature']));
  });

  test('a client view reaches the trigger too', async () => {
    await (await fetch(state.assigned.client_link.url)).text();
    await webhooks.waitForRun(
      (r) =>
        r.data.resultData.runData['Lightbox Trigger']?.[0]?.data.main[0][0].json.event_type === 'client_link.viewed',
    );
  });

  test('forged, altered, stale or unsigned deliveries are refused with 401 and start nothing', async () => {
    const runsBefore = webhooks.runs.length;
    const [event] = (await lb.api('GET', '/v1/events?type=listing.assigned&limit=1')).body.data;
    const body = JSON.stringify(event);
    const url = `${webhooks.base}/${webhookId}/webhook`;
    const post = (headers, payload = body) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: payload });
    const wrongSecret = `whsec_${Buffer.from('not the endpoint secret at all!!').toString('base64')}`;
    const secret = triggerWorkflow.staticData['node:Lightbox Trigger'].secret;
    assert.match(secret, /^whsec_/);
    const cases = {
      'another secret': post(sign(wrongSecret, event.id, body)),
      'an altered body': post(sign(secret, event.id, body), body.replace(state.gallery.id, 'lst_someoneelse')),
      'an old timestamp': post(sign(secret, event.id, body, Math.floor(Date.now() / 1000) - 3600)),
      'no signature': post({}),
    };
    for (const [what, pending] of Object.entries(cases)) {
      const res = await pending;
      assert.equal(res.status, 401, what);
      assert.match((await res.json()).message, /^Refused/);
    }
    // The same event, rightly signed, is accepted: the refusals were for the signature alone.
    const ok = await post(sign(secret, event.id, body));
    assert.equal(ok.status, 200);
    await webhooks.waitForRun((r) => webhooks.runs.indexOf(r) >= runsBefore);
    assert.equal(webhooks.runs.length, runsBefore + 1);
  });

  test('the dashboard test event is answered and starts nothing', async () => {
    const [endpoint] = await endpoints();
    const runsBefore = webhooks.runs.length;
    const responsesBefore = webhooks.responses.length;
    assert.equal((await lb.api('POST', `/v1/webhook_endpoints/${endpoint.id}/test`)).status, 202);
    await lb.until('the test delivery', async () => webhooks.responses.length > responsesBefore);
    assert.equal(webhooks.responses.at(-1).status, 200);
    assert.equal(webhooks.runs.length, runsBefore);
  });

  test("an endpoint deleted behind n8n's back is made again on the next activation", async () => {
    const [endpoint] = await endpoints();
    assert.equal((await lb.api('DELETE', `/v1/webhook_endpoints/${endpoint.id}`)).status, 204);
    assert.equal(await host.activate(triggerWorkflow, triggerNode, triggerData), 'created');
    const list = await endpoints();
    assert.equal(list.length, 1);
    assert.notEqual(list[0].id, endpoint.id);
  });

  test('deactivating the workflow deletes its endpoint; nothing is left behind', async () => {
    assert.equal(await host.deactivate(triggerWorkflow, triggerNode, triggerData), true);
    webhooks.unregister();
    assert.deepEqual(await endpoints(), []);
    assert.deepEqual(triggerWorkflow.staticData['node:Lightbox Trigger'], {});
    // Deactivating twice is harmless.
    assert.equal(await host.deactivate(triggerWorkflow, triggerNode, triggerData), true);
  });
});

describe('every other operation, each in its own workflow', () => {
  test('Gallery: Get, Update, Resend Email', async () => {
    const [gallery] = await one({
      resource: 'gallery',
      operation: 'create',
      address: '3 Quiet Lane',
      additionalFields: {},
    });
    assert.equal(gallery.status, 'draft');
    const [updated] = await one({
      resource: 'gallery',
      operation: 'update',
      galleryId: gallery.id,
      updateFields: { status: 'active', sqft: 1450, description: '' },
    });
    assert.equal(updated.status, 'active');
    assert.equal(updated.sqft, 1450);
    const [got] = await one({ resource: 'gallery', operation: 'get', galleryId: gallery.id });
    assert.equal(got.updated_at, updated.updated_at);
    await assert.rejects(
      one({ resource: 'gallery', operation: 'update', galleryId: gallery.id, updateFields: {} }),
      /at least one field/,
    );
    await assert.rejects(
      one({ resource: 'gallery', operation: 'resendEmail', galleryId: gallery.id }),
      /not assigned to a client yet/,
    );

    const [client] = await one({
      resource: 'client',
      operation: 'create',
      email: 'quiet@lane.test',
      name: 'Quinn Lane',
      clientFields: { phone: '' },
    });
    await one({
      resource: 'gallery',
      operation: 'assign',
      galleryId: gallery.id,
      clientId: client.id,
      sendEmail: true,
    });
    const [notification] = await one({ resource: 'gallery', operation: 'resendEmail', galleryId: gallery.id });
    assert.match(notification.id, /^ntf_/);
    assert.equal(notification.to, 'quiet@lane.test');
    assert.equal(
      (await lb.api('GET', `/v1/notifications?limit=100`)).body.data.filter((n) => n.listing_id === gallery.id).length,
      2,
    );
  });

  test('Gallery: Find by MLS number and by address, with and without Create If Not Found', async () => {
    const [byMls] = await one({
      resource: 'gallery',
      operation: 'find',
      searchBy: 'mls_number',
      mlsNumber: 'bri-20431',
      createIfNotFound: false,
    });
    assert.equal(byMls.address, '12 Harbour View, Brighton');
    assert.ok('description' in byMls);
    const none = await one({
      resource: 'gallery',
      operation: 'find',
      searchBy: 'mls_number',
      mlsNumber: 'NOPE-1',
      createIfNotFound: false,
    });
    assert.deepEqual(none, []);
    const [made] = await one({
      resource: 'gallery',
      operation: 'find',
      searchBy: 'mls_number',
      mlsNumber: 'NEW-777',
      createIfNotFound: true,
      newAddress: '7 Lucky Road',
      newGalleryFields: { beds: 2 },
    });
    assert.equal(made.mls_number, 'NEW-777');
    assert.equal(made.beds, 2);
    const [again] = await one({
      resource: 'gallery',
      operation: 'find',
      searchBy: 'mls_number',
      mlsNumber: 'NEW-777',
      createIfNotFound: true,
      newAddress: '7 Lucky Road',
      newGalleryFields: {},
    });
    assert.equal(again.id, made.id);
    const byAddress = await one({
      resource: 'gallery',
      operation: 'find',
      searchBy: 'address',
      address: '7 lucky road',
      createIfNotFound: false,
    });
    assert.deepEqual(
      byAddress.map((g) => g.id),
      [made.id],
    );
    const [madeByAddress] = await one({
      resource: 'gallery',
      operation: 'find',
      searchBy: 'address',
      address: '1 New Street',
      createIfNotFound: true,
      newGalleryFields: {},
    });
    assert.equal(madeByAddress.address, '1 New Street');
  });

  test('Client: Find by email (exactly), and create when not found', async () => {
    const [dana] = await one({
      resource: 'client',
      operation: 'find',
      email: 'DANA@whitfield.test',
      createIfNotFound: false,
      clientFields: {},
    });
    assert.equal(dana.name, 'Dana Whitfield');
    assert.ok(Array.isArray(dana.listings));
    assert.deepEqual(
      await one({
        resource: 'client',
        operation: 'find',
        email: 'ana@whitfield.test',
        createIfNotFound: false,
        clientFields: {},
      }),
      [],
    );
    const [made] = await one({
      resource: 'client',
      operation: 'find',
      email: 'new.agent@brokerage.test',
      createIfNotFound: true,
      name: 'New Agent',
      clientFields: { company: 'Brokerage' },
    });
    assert.equal(made.company, 'Brokerage');
  });

  test('Media: Add From URL (docs/api.md §21)', async () => {
    const [gallery] = await one({
      resource: 'gallery',
      operation: 'create',
      address: '1 Link Street',
      additionalFields: {},
    });
    const [media] = await one({
      resource: 'media',
      operation: 'addFromUrl',
      galleryId: gallery.id,
      url: `${files.url}/shoot/front.jpg`,
      filename: 'Front elevation.jpg',
    });
    assert.equal(media.kind, 'photo');
    assert.equal(media.filename, 'Front elevation.jpg');
    assert.equal(media.size, jpeg.length);
    await assert.rejects(
      one({
        resource: 'media',
        operation: 'addFromUrl',
        galleryId: gallery.id,
        url: `${files.url}/missing.jpg`,
        filename: '',
      }),
      /404/,
    );
    // docs/api.md §30: the gallery's visible photos in a suggested order, a reason for each.
    const [suggested] = await one({ resource: 'media', operation: 'getSuggestedOrder', galleryId: gallery.id });
    assert.deepEqual(suggested.media_ids, [media.id]);
    assert.equal(suggested.reasons[0].media_id, media.id);
  });

  test("Lightbox's refusals reach the workflow as the node's error, and Continue On Fail keeps going", async () => {
    await assert.rejects(
      one({ resource: 'gallery', operation: 'create', address: 'x', additionalFields: { sqft: -1 } }),
      (err) => {
        assert.match(err.message, /validation|sqft|must/i);
        return true;
      },
    );
    const badKey = {
      lightboxApi: { id: 'cred-1', data: { baseUrl: lb.base, apiKey: 'lbx_wrongwrongwrongwrongwrongwrongwrong' } },
    };
    const { error } = await run(
      [node('Lightbox', LIGHTBOX, { resource: 'gallery', operation: 'get', galleryId: 'lst_x' })],
      badKey,
    );
    assert.ok(error);
    assert.match(`${error.message} ${error.description}`, /API keys/);
    const lenient = {
      ...node('Lightbox', LIGHTBOX, { resource: 'gallery', operation: 'get', galleryId: 'lst_missing' }),
      continueOnFail: true,
      onError: 'continueRegularOutput',
    };
    const { items, error: none } = await run([lenient]);
    assert.equal(none, undefined);
    assert.match(items('Lightbox')[0].error, /not found|no such/i);
  });
});

/** What the gallery page's plain forms post (no JavaScript); the status (303 when taken). */
const postForm = async (url, fields) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  await res.arrayBuffer();
  return res.status;
};

describe('Share Link (docs/api.md §28)', () => {
  const state = {};

  before(async () => {
    const [gallery] = await one({
      resource: 'gallery',
      operation: 'create',
      address: '8 Proof Row',
      additionalFields: { status: 'active' },
    });
    const photo = await lb.upload(gallery.id, 'front.jpg', 'image/jpeg', jpeg);
    assert.equal(photo.status, 201);
    Object.assign(state, { gallery, photo: photo.body.data[0] });
  });

  test('Create with every field, and with the label alone; refusals name the field', async () => {
    const expires = new Date(Date.now() + 7 * 24 * 3600 * 1000);
    const [full] = await one({
      resource: 'shareLink',
      operation: 'create',
      galleryId: state.gallery.id,
      label: ' Seller: Jo Marsh ',
      additionalFields: {
        email: 'jo.marsh@refused.test',
        expires_at: expires.toISOString(),
        password: 'correct horse',
        downloads_enabled: false,
        favorites_enabled: true,
        selection_min: 1,
        selection_max: 3,
      },
    });
    assert.match(full.id, /^shl_/);
    assert.equal(full.listing_id, state.gallery.id);
    assert.equal(full.label, 'Seller: Jo Marsh');
    assert.equal(full.email, 'jo.marsh@refused.test');
    assert.match(full.url, /\/g\//);
    assert.equal(Date.parse(full.expires_at), expires.getTime());
    assert.equal(full.password_protected, true);
    assert.equal(full.downloads_enabled, false);
    assert.deepEqual([full.selection_min, full.selection_max], [1, 3]);
    const [plain] = await one({
      resource: 'shareLink',
      operation: 'create',
      galleryId: state.gallery.id,
      label: 'Stager',
      additionalFields: {},
    });
    assert.deepEqual(
      [plain.email, plain.password_protected, plain.downloads_enabled, plain.expires_at],
      [null, false, true, null],
    );
    Object.assign(state, { full, plain });

    await assert.rejects(
      one({
        resource: 'shareLink',
        operation: 'create',
        galleryId: state.gallery.id,
        label: 'x',
        additionalFields: { password: 'short' },
      }),
      /password/,
    );
    await assert.rejects(
      one({
        resource: 'shareLink',
        operation: 'create',
        galleryId: state.gallery.id,
        label: 'x',
        additionalFields: { expires_at: 'next tuesday' },
      }),
      /not a date and time \(Expires At\)/,
    );
  });

  test('Get, and Get Many with a limit and with Return All', async () => {
    const [got] = await one({
      resource: 'shareLink',
      operation: 'get',
      galleryId: state.gallery.id,
      shareLinkId: state.full.id,
    });
    assert.deepEqual(got, state.full);
    const some = await one({
      resource: 'shareLink',
      operation: 'getAll',
      galleryId: state.gallery.id,
      returnAll: false,
      limit: 1,
    });
    assert.deepEqual(
      some.map((l) => l.id),
      [state.plain.id],
      'newest first',
    );
    const all = await one({ resource: 'shareLink', operation: 'getAll', galleryId: state.gallery.id, returnAll: true });
    assert.deepEqual(
      all.map((l) => l.id),
      [state.plain.id, state.full.id],
    );
  });

  test('Update, with Remove taking settings off; an empty update is refused', async () => {
    const [updated] = await one({
      resource: 'shareLink',
      operation: 'update',
      galleryId: state.gallery.id,
      shareLinkId: state.full.id,
      updateFields: { label: 'Seller', downloads_enabled: true, remove: ['password', 'selection_min', 'expires_at'] },
    });
    assert.equal(updated.label, 'Seller');
    assert.equal(updated.downloads_enabled, true);
    assert.equal(updated.password_protected, false);
    assert.equal(updated.expires_at, null);
    assert.deepEqual([updated.selection_min, updated.selection_max], [null, 3]);
    assert.equal(updated.email, 'jo.marsh@refused.test');
    await assert.rejects(
      one({
        resource: 'shareLink',
        operation: 'update',
        galleryId: state.gallery.id,
        shareLinkId: state.full.id,
        updateFields: {},
      }),
      /at least one field/,
    );
  });

  test('Send Email queues the email again; a link made without an address is refused', async () => {
    const [email] = await one({
      resource: 'shareLink',
      operation: 'sendEmail',
      galleryId: state.gallery.id,
      shareLinkId: state.full.id,
    });
    assert.match(email.id, /^ntf_/);
    assert.equal(email.share_link_id, state.full.id);
    assert.equal(email.to, 'jo.marsh@refused.test');
    await assert.rejects(
      one({ resource: 'shareLink', operation: 'sendEmail', galleryId: state.gallery.id, shareLinkId: state.plain.id }),
      (err) => err.n8n?.httpCode === '409',
    );
  });

  test('Rotate gives a new address and the old one stops', async () => {
    const [rotated] = await one({
      resource: 'shareLink',
      operation: 'rotate',
      galleryId: state.gallery.id,
      shareLinkId: state.plain.id,
    });
    assert.equal(rotated.id, state.plain.id);
    assert.notEqual(rotated.url, state.plain.url);
    assert.equal((await fetch(state.plain.url)).status, 404);
    assert.equal((await fetch(rotated.url)).status, 200);
    state.plain = rotated;
  });

  test('the trigger starts on a selection sent at the share link; Get Favorites reads it', async () => {
    const webhookId = randomUUID();
    const triggerNode = {
      ...node('Lightbox Trigger', TRIGGER, { events: ['share_link.selection_submitted', 'share_link.deleted'] }),
      webhookId,
    };
    const favorites = node(
      'Favorites',
      LIGHTBOX,
      {
        resource: 'shareLink',
        operation: 'getFavorites',
        galleryId: '={{ $json.listing_id }}',
        shareLinkId: '={{ $json.id }}',
      },
      [200, 0],
    );
    const workflow = host.makeWorkflow({
      id: 'wf-share-trigger',
      name: 'When a selection is sent at a share link',
      nodes: [triggerNode, favorites],
      connections: chain('Lightbox Trigger', 'Favorites'),
      nodeTypes: pkg.nodeTypes,
      active: true,
    });
    const data = additional('wf-share-trigger');
    assert.equal(await host.activate(workflow, triggerNode, data), 'created');
    webhooks.register(workflow, triggerNode, data);
    try {
      const [endpoint] = await endpoints();
      assert.deepEqual([...endpoint.events].sort(), ['share_link.deleted', 'share_link.selection_submitted']);

      assert.equal(await postForm(`${state.plain.url}/favorites/${state.photo.id}`, { on: '1' }), 303);
      assert.equal(await postForm(`${state.plain.url}/favorites`, { note: 'For the staging plan.' }), 303);
      const execution = await webhooks.waitForRun(
        (r) =>
          r.data.resultData.runData['Lightbox Trigger']?.[0]?.data.main[0][0].json.event_type ===
          'share_link.selection_submitted',
      );
      assert.equal(execution.data.resultData.error, undefined, execution.data.resultData.error?.message);
      const [event] = execution.data.resultData.runData['Lightbox Trigger'][0].data.main[0].map((i) => i.json);
      assert.equal(event.id, state.plain.id);
      assert.equal(event.listing_id, state.gallery.id);
      assert.equal(event.label, 'Stager');
      assert.equal(event.favorites_count, 1);
      const [chosen] = execution.data.resultData.runData.Favorites[0].data.main[0].map((i) => i.json);
      assert.deepEqual(chosen.media_ids, [state.photo.id]);
      assert.equal(chosen.note, 'For the staging plan.');
      assert.ok(chosen.submitted_at);

      // The same, asked directly; the other link's favorites are its own.
      const [direct] = await one({
        resource: 'shareLink',
        operation: 'getFavorites',
        galleryId: state.gallery.id,
        shareLinkId: state.plain.id,
      });
      assert.deepEqual(direct, chosen);
      const [other] = await one({
        resource: 'shareLink',
        operation: 'getFavorites',
        galleryId: state.gallery.id,
        shareLinkId: state.full.id,
      });
      assert.deepEqual(other.media_ids, []);

      // Delete: the link stops at once, the trigger hears of it, and Get is then an error.
      const [deleted] = await one({
        resource: 'shareLink',
        operation: 'delete',
        galleryId: state.gallery.id,
        shareLinkId: state.plain.id,
      });
      assert.deepEqual(deleted, { id: state.plain.id, deleted: true });
      assert.equal((await fetch(state.plain.url)).status, 404);
      await webhooks.waitForRun(
        (r) =>
          r.data.resultData.runData['Lightbox Trigger']?.[0]?.data.main[0][0].json.event_type === 'share_link.deleted',
      );
      await assert.rejects(
        one({ resource: 'shareLink', operation: 'get', galleryId: state.gallery.id, shareLinkId: state.plain.id }),
        (err) => err.n8n?.httpCode === '404',
      );
    } finally {
      assert.equal(await host.deactivate(workflow, triggerNode, data), true);
      webhooks.unregister();
    }
    assert.deepEqual(await endpoints(), []);
  });
});

describe('Product and Invoice (docs/api.md §29)', () => {
  const state = {};

  before(async () => {
    const gallery = (await lb.api('POST', '/v1/listings', { address: '21 Invoice Row' })).body;
    const client = (await lb.api('POST', '/v1/clients', { name: 'Ivy Payer', email: 'ivy.payer@example.test' })).body;
    assert.equal((await lb.api('POST', `/v1/clients/${client.id}/listings/${gallery.id}?notify=false`)).status, 200);
    Object.assign(state, { gallery, client });
  });

  test('Product: Create, Get, Get Many, Update, Delete; a price is a whole number of cents', async () => {
    const [product] = await one({
      resource: 'product',
      operation: 'create',
      name: ' Twilight photos ',
      unit_amount: 25000,
      additionalFields: { description: 'At dusk' },
    });
    assert.match(product.id, /^prd_/);
    assert.deepEqual(
      [product.name, product.unit_amount, product.description, product.active],
      ['Twilight photos', 25000, 'At dusk', true],
    );
    const [got] = await one({ resource: 'product', operation: 'get', productId: product.id });
    assert.deepEqual(got, product);
    const [updated] = await one({
      resource: 'product',
      operation: 'update',
      productId: product.id,
      updateFields: { unit_amount: 20000, active: false },
    });
    assert.deepEqual([updated.unit_amount, updated.active], [20000, false]);
    const [spare] = await one({
      resource: 'product',
      operation: 'create',
      name: 'Spare',
      unit_amount: 1,
      additionalFields: {},
    });
    const many = await one({ resource: 'product', operation: 'getAll', returnAll: true });
    assert.deepEqual(
      many.map((p) => p.id),
      [spare.id, product.id],
    );
    assert.equal((await one({ resource: 'product', operation: 'getAll', returnAll: false, limit: 1 })).length, 1);
    assert.deepEqual(await one({ resource: 'product', operation: 'delete', productId: spare.id }), [
      { id: spare.id, deleted: true },
    ]);
    await assert.rejects(
      one({ resource: 'product', operation: 'create', name: 'Half', unit_amount: 12.5, additionalFields: {} }),
      /"12.5" is not a whole number \(Price \(Cents\)\)/,
    );
    state.product = product;
  });

  test('Invoice: Create, Get, Get Many, Update, Issue, Record Payment, Get Payments, Download PDF, Void, Delete', async () => {
    const [draft] = await one({
      resource: 'invoice',
      operation: 'create',
      galleryId: state.gallery.id,
      items: {
        item: [
          { product_id: state.product.id, description: '', unit_amount: 0, quantity: 2 },
          { product_id: '', description: 'Drone film', unit_amount: 15000, quantity: 1 },
        ],
      },
      additionalFields: { discount: 5000, tax_rate_bps: 825, note: 'Thank you', pay_to_unlock: false },
    });
    assert.match(draft.id, /^ivc_/);
    // 40000 + 15000 - 5000 = 50000; tax 8.25 % of it = 4125.
    assert.deepEqual(
      [draft.status, draft.client_id, draft.subtotal, draft.tax, draft.total, draft.pay_to_unlock, draft.note],
      ['draft', state.client.id, 55000, 4125, 54125, false, 'Thank you'],
    );
    assert.deepEqual(
      draft.items.map((i) => [i.description, i.quantity, i.amount]),
      [
        ['Twilight photos', 2, 40000],
        ['Drone film', 1, 15000],
      ],
    );
    const [updated] = await one({
      resource: 'invoice',
      operation: 'update',
      invoiceId: draft.id,
      items: { item: [{ product_id: '', description: 'Floor plan', unit_amount: 9000, quantity: 1 }] },
      updateFields: { discount: 0, due_at: '2026-12-31T00:00:00.000Z' },
    });
    assert.deepEqual([updated.subtotal, updated.tax, updated.total], [9000, 743, 9743]); // 742.5 rounds up
    assert.equal(Date.parse(updated.due_at), Date.parse('2026-12-31T00:00:00.000Z'));
    await assert.rejects(
      one({ resource: 'invoice', operation: 'update', invoiceId: draft.id, updateFields: {} }),
      /at least one field/,
    );
    await assert.rejects(
      one({
        resource: 'invoice',
        operation: 'create',
        galleryId: state.gallery.id,
        items: { item: [{ product_id: '', description: '', unit_amount: 100, quantity: 1 }] },
        additionalFields: {},
      }),
      /Item 1: give a Product ID, or a Description and a Price/,
    );

    const [issued] = await one({ resource: 'invoice', operation: 'issue', invoiceId: draft.id });
    assert.equal(issued.status, 'open');
    assert.match(issued.number, /^INV-\d{4,}$/);
    const [got] = await one({ resource: 'invoice', operation: 'get', invoiceId: draft.id });
    assert.equal(got.number, issued.number);
    const open = await one({
      resource: 'invoice',
      operation: 'getAll',
      filters: { listing_id: state.gallery.id, status: 'open' },
      returnAll: true,
    });
    assert.deepEqual(
      open.map((i) => i.id),
      [draft.id],
    );

    // The PDF, as a binary item named after the invoice's number.
    const { result } = await run([
      node('Lightbox', LIGHTBOX, {
        resource: 'invoice',
        operation: 'downloadPdf',
        invoiceId: draft.id,
        binaryPropertyName: 'invoice',
      }),
    ]);
    const [item] = result.data.resultData.runData.Lightbox[0].data.main[0];
    assert.equal(item.json.id, draft.id);
    assert.equal(item.binary.invoice.mimeType, 'application/pdf');
    assert.equal(item.binary.invoice.fileName, `${issued.number}.pdf`);
    assert.equal(Buffer.from(item.binary.invoice.data, 'base64').subarray(0, 5).toString(), '%PDF-');

    const [part] = await one({
      resource: 'invoice',
      operation: 'recordPayment',
      invoiceId: draft.id,
      amount: 4743,
      method: 'check',
      paymentFields: { reference: 'No. 12' },
    });
    assert.match(part.id, /^pay_/);
    assert.deepEqual([part.amount, part.method, part.reference], [4743, 'check', 'No. 12']);
    await assert.rejects(
      one({
        resource: 'invoice',
        operation: 'recordPayment',
        invoiceId: draft.id,
        amount: 5001,
        method: 'cash',
        paymentFields: {},
      }),
      (err) => err.n8n?.httpCode === '400',
    );
    const [rest] = await one({
      resource: 'invoice',
      operation: 'recordPayment',
      invoiceId: draft.id,
      amount: 5000,
      method: 'bank_transfer',
      paymentFields: {},
    });
    const payments = await one({ resource: 'invoice', operation: 'getPayments', invoiceId: draft.id, returnAll: true });
    assert.deepEqual(payments.map((p) => p.id).sort(), [part.id, rest.id].sort());
    const [paid] = await one({ resource: 'invoice', operation: 'get', invoiceId: draft.id });
    assert.deepEqual([paid.status, paid.amount_due], ['paid', 0]);
    await assert.rejects(
      one({ resource: 'invoice', operation: 'void', invoiceId: draft.id }),
      (err) => err.n8n?.httpCode === '409',
    );

    const [second] = await one({
      resource: 'invoice',
      operation: 'create',
      galleryId: state.gallery.id,
      items: { item: [{ product_id: state.product.id, quantity: 1 }] },
      additionalFields: {},
    });
    await one({ resource: 'invoice', operation: 'issue', invoiceId: second.id });
    const [voided] = await one({ resource: 'invoice', operation: 'void', invoiceId: second.id });
    assert.equal(voided.status, 'void');
    const [third] = await one({
      resource: 'invoice',
      operation: 'create',
      galleryId: state.gallery.id,
      items: { item: [{ product_id: state.product.id, quantity: 1 }] },
      additionalFields: {},
    });
    assert.deepEqual(await one({ resource: 'invoice', operation: 'delete', invoiceId: third.id }), [
      { id: third.id, deleted: true },
    ]);
    await assert.rejects(
      one({ resource: 'invoice', operation: 'downloadPdf', invoiceId: third.id, binaryPropertyName: 'data' }),
      (err) => err.n8n?.httpCode === '404',
    );
  });
});

describe('Listing Kit and RESO Media (docs/api.md §32, §33)', () => {
  const feed = {};

  /** An active gallery with `names` uploaded, once their variants are ready (and, if asked, their analysis). */
  const galleryWithPhotos = async (fields, names, { analysed = false } = {}) => {
    const gallery = (await lb.api('POST', '/v1/listings', { ...fields, status: 'active' })).body;
    const photos = [];
    for (const name of names) {
      const up = await lb.upload(gallery.id, name, 'image/jpeg', jpeg);
      assert.equal(up.status, 201);
      photos.push(up.body.data[0].id);
    }
    // The analysis reads the room (the feed's ImageOf), which moves a record's
    // MediaModificationTimestamp: the feed stands still only after it.
    await lb.until(
      'the photos to be ready',
      async () => {
        const list = (await lb.api('GET', `/v1/listings/${gallery.id}/media`)).body.data;
        return list.every((m) => m.variants.status === 'ready' && !(analysed && m.analysis?.status === 'pending'));
      },
      170_000,
    );
    return { gallery, photos };
  };

  test('Listing Kit: Get, Build (refused for a draft), Download Item as a binary file', async () => {
    const { gallery } = await galleryWithPhotos({ address: '32 Kit Lane', beds: 3, baths: 2 }, ['front.jpg']);
    const [none] = await one({ resource: 'listingKit', operation: 'get', galleryId: gallery.id });
    assert.deepEqual([none.listing_id, none.status, none.mls_zip], [gallery.id, 'none', null]);
    // Nothing to download before a build: Lightbox's 404 reaches the workflow.
    await assert.rejects(
      one({
        resource: 'listingKit',
        operation: 'downloadItem',
        galleryId: gallery.id,
        item: 'flyer',
        binaryPropertyName: 'data',
      }),
      (err) => err.n8n?.httpCode === '404',
    );
    const draft = (await lb.api('POST', '/v1/listings', { address: '34 Draft Street' })).body;
    await assert.rejects(
      one({ resource: 'listingKit', operation: 'build', galleryId: draft.id }),
      (err) => err.n8n?.httpCode === '409' && /active/.test(err.message),
    );

    const [building] = await one({ resource: 'listingKit', operation: 'build', galleryId: gallery.id });
    assert.deepEqual([building.listing_id, building.status], [gallery.id, 'building']);
    // Built: `ready`, or `stale` when the photo's analysis changed the gallery meanwhile (its items
    // are served until the rebuild).
    await lb.until(
      'the kit to be built',
      async () => (await lb.api('GET', `/v1/listings/${gallery.id}/kit`)).body.built_at !== null,
      170_000,
    );
    const [built] = await one({ resource: 'listingKit', operation: 'get', galleryId: gallery.id });
    assert.ok(['ready', 'stale'].includes(built.status), built.status);
    assert.equal(built.mls_zip.content_type, 'application/zip');

    const { result } = await run([
      node('Lightbox', LIGHTBOX, {
        resource: 'listingKit',
        operation: 'downloadItem',
        galleryId: gallery.id,
        item: 'mls_zip',
        binaryPropertyName: 'pack',
      }),
    ]);
    const [item] = result.data.resultData.runData.Lightbox[0].data.main[0];
    assert.equal(item.json.listing_id, gallery.id);
    assert.equal(item.binary.pack.mimeType, 'application/zip');
    assert.equal(item.binary.pack.fileName, 'mls-pack.zip');
    const zip = Buffer.from(item.binary.pack.data, 'base64');
    assert.equal(zip.subarray(0, 2).toString(), 'PK');
    assert.equal(zip.length, built.mls_zip.size);
  });

  test('RESO Media: Get Many by the next link, with a limit, Return All and each filter', async () => {
    const made = await galleryWithPhotos(
      { address: '33 Feed Street', mls_number: 'N8N-33' },
      ['front.jpg', 'kitchen.jpg', 'garden.jpg'],
      { analysed: true },
    );
    Object.assign(feed, made);
    const ids = (records) => records.map((r) => r.MediaKey);
    const getMany = (parameters) => one({ resource: 'resoMedia', operation: 'getAll', ...parameters });
    // Return All in pages of one: three requests, each following the feed's @odata.nextLink.
    const all = await getMany({
      returnAll: true,
      filters: { resourceRecordId: feed.gallery.id },
      options: { pageSize: 1 },
    });
    assert.deepEqual(ids(all).sort(), [...feed.photos].sort());
    for (const record of all) {
      assert.deepEqual(
        [record.ResourceName, record.ResourceRecordKey, record.ResourceRecordID, record.MediaCategory],
        ['Property', 'N8N-33', feed.gallery.id, 'Photo'],
      );
    }
    // Oldest change first: the feed's one order.
    const stamps = all.map((r) => r.MediaModificationTimestamp);
    assert.deepEqual([...stamps].sort(), stamps);

    // A limit stops the walk, whatever the page size.
    const two = await getMany({
      returnAll: false,
      limit: 2,
      filters: { resourceRecordKey: 'N8N-33' },
      options: { pageSize: 1 },
    });
    assert.deepEqual(ids(two), ids(all).slice(0, 2));
    const first = await getMany({ returnAll: false, limit: 1, filters: { resourceRecordKey: 'N8N-33' } });
    assert.deepEqual(ids(first), ids(all).slice(0, 1));

    // Changed after the first record: the others. The OData filter as written, joined by `and`.
    const later = await getMany({
      returnAll: true,
      filters: { resourceRecordKey: 'N8N-33', modifiedAfter: all[0].MediaModificationTimestamp },
    });
    assert.deepEqual(ids(later), ids(all).slice(1));
    const written = await getMany({
      returnAll: true,
      filters: { filter: `ResourceRecordID eq '${feed.gallery.id}'`, resourceRecordKey: "N8N-33' or 'x" },
    });
    assert.deepEqual(written, [], 'a quote in a value stays inside its literal');
    // Every photo of the studio with ready variants, the kit's gallery's among them.
    const studio = await getMany({ returnAll: true });
    assert.ok(feed.photos.every((id) => ids(studio).includes(id)));

    await assert.rejects(
      getMany({ returnAll: true, filters: { filter: "City eq 'Brighton'" } }),
      (err) => err.n8n?.httpCode === '400' && /\$filter/.test(err.message),
    );
    await assert.rejects(
      getMany({ returnAll: true, filters: { modifiedAfter: 'yesterday-ish' } }),
      /not a date and time \(Modified After\)/,
    );
  });
});
