// The Zapier app run by zapier-platform-core's own app tester against a real Lightbox (API.md
// section 24): the connection test, every trigger's subscribe, a real signed delivery to the
// Zap's URL, perform, performList and unsubscribe, every action and search, and the search-or-
// create pairs. Nothing of Zapier is mocked; the Zap's URL is a loopback receiver standing in for
// hooks.zapier.com.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { makeJpeg, startFileServer, startLightbox, startReceiver } from '../../support/lightbox.mjs';

const require = createRequire(import.meta.url);
const zapier = require('zapier-platform-core');
const App = require('../index.js');
const appTester = zapier.createAppTester(App);

let lb;
let receiver;
let files;
let authData;
let jpeg;

before(async () => {
  lb = await startLightbox();
  receiver = await startReceiver();
  jpeg = await makeJpeg();
  files = await startFileServer({ '/shoot/front.jpg': { type: 'image/jpeg', bytes: jpeg } });
  authData = { baseUrl: `${lb.base}/`, apiKey: lb.key };
});

after(async () => {
  await receiver?.stop();
  await files?.stop();
  await lb?.stop();
});

const endpoints = async () => (await lb.api('GET', '/v1/webhook_endpoints?limit=100')).body.data;

describe('connection', () => {
  test('the test call reads GET /v1/account and the label is the studio name', async () => {
    const account = await appTester(App.authentication.test, { authData });
    assert.equal(account.name, 'Harbour Light Studio');
    assert.equal(account.livemode, true);
    const label = await appTester(App.authentication.connectionLabel, { authData, inputData: account });
    assert.equal(label, 'Harbour Light Studio');
  });

  test('with a test mode key the label says test mode (docs/api.md §20, §24)', async () => {
    assert.match(lb.testKey, /^lbx_test_/);
    const testAuth = { ...authData, apiKey: lb.testKey };
    const account = await appTester(App.authentication.test, { authData: testAuth });
    assert.equal(account.livemode, false);
    const label = await appTester(App.authentication.connectionLabel, { authData: testAuth, inputData: account });
    assert.equal(label, 'Harbour Light Studio (test mode)');
  });

  test('a wrong key is refused with a message that says what to do', async () => {
    await assert.rejects(
      appTester(App.authentication.test, {
        authData: { ...authData, apiKey: 'lbx_wrongwrongwrongwrongwrongwrongwrong' },
      }),
      /did not accept the API key/,
    );
  });
});

// Every instant trigger with the events behind it (selection_submitted is the hidden one New
// Selection replaced: it keeps working for the Zaps that use it).
const TRIGGERS = {
  new_gallery: ['listing.created'],
  gallery_updated: ['listing.updated'],
  gallery_sent: ['listing.assigned'],
  new_client: ['client.created'],
  gallery_viewed: ['client_link.viewed'],
  gallery_downloaded: ['client_link.downloaded'],
  photos_ready: ['media.variants_ready'],
  photos_analyzed: ['media.analyzed'],
  new_selection: ['client_link.selection_submitted', 'share_link.selection_submitted'],
  selection_submitted: ['client_link.selection_submitted'],
  email_failed: ['notification.failed'],
  invoice_issued: ['invoice.issued'],
  invoice_paid: ['invoice.paid'],
  compliance_changed: ['listing.compliance_changed'],
  // Last: the kit's build (videos included) takes the longest of these events.
  kit_ready: ['listing.kit_ready'],
};

/** What the page's plain forms post (no JavaScript), answered 303 when taken. */
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

/** Marks `mediaId` at a gallery link and sends the selection, as a visitor does. */
const sendSelection = async (link, mediaId, note) => {
  assert.equal(await postForm(`${link}/favorites/${mediaId}`, { on: '1' }), 303);
  assert.equal(await postForm(`${link}/favorites`, { note }), 303);
};

describe('a studio day through the Zap steps', () => {
  const subscriptions = {};
  const state = {};

  test('turning each Zap on subscribes a webhook endpoint for its URL and event', async () => {
    assert.deepEqual(
      Object.keys(TRIGGERS).sort(),
      Object.keys(App.triggers)
        .filter((k) => !k.endsWith('_list'))
        .sort(),
    );
    for (const key of Object.keys(TRIGGERS)) {
      const targetUrl = `${receiver.url}/hooks/${key}`;
      const data = await appTester(App.triggers[key].operation.performSubscribe, {
        authData,
        targetUrl,
        inputData: {},
      });
      assert.match(data.id, /^whe_/);
      assert.match(data.secret, /^whsec_/);
      subscriptions[key] = data;
    }
    const listed = await endpoints();
    for (const [key, data] of Object.entries(subscriptions)) {
      const endpoint = listed.find((e) => e.id === data.id);
      assert.ok(endpoint, key);
      assert.equal(endpoint.url, `${receiver.url}/hooks/${key}`);
      assert.deepEqual([...endpoint.events].sort(), TRIGGERS[key], key);
      assert.equal(endpoint.enabled, true);
    }
  });

  test('Create Gallery, Update Gallery, Create Client, Assign Gallery to Client', async () => {
    const gallery = await appTester(App.creates.create_gallery.operation.perform, {
      authData,
      inputData: {
        address: '  12 Harbour View, Brighton ',
        beds: '3',
        baths: 2.5,
        mls_number: 'BRI-20431',
        status: 'active',
      },
    });
    assert.match(gallery.id, /^lst_/);
    assert.equal(gallery.address, '12 Harbour View, Brighton');
    assert.equal(gallery.beds, 3);
    assert.equal(gallery.baths, 2.5);
    assert.equal(gallery.sqft, null);
    state.gallery = gallery;

    await assert.rejects(
      appTester(App.creates.create_gallery.operation.perform, { authData, inputData: { address: 'x', beds: 'three' } }),
      /three.{0,4} is not a number \(beds\)/,
    );
    await assert.rejects(
      appTester(App.creates.create_gallery.operation.perform, { authData, inputData: { address: 'x', sqft: -4 } }),
      /sqft/,
    );

    const updated = await appTester(App.creates.update_gallery.operation.perform, {
      authData,
      inputData: { gallery_id: gallery.id, sqft: '1450', description: 'Sea view.', address: '' },
    });
    assert.equal(updated.sqft, 1450);
    assert.equal(updated.address, '12 Harbour View, Brighton', 'an empty field leaves the value alone');
    await assert.rejects(
      appTester(App.creates.update_gallery.operation.perform, { authData, inputData: { gallery_id: gallery.id } }),
      /at least one field/,
    );

    const client = await appTester(App.creates.create_client.operation.perform, {
      authData,
      inputData: { name: 'Dana Whitfield', email: 'Dana@Whitfield.test', company: 'Whitfield Homes', phone: '' },
    });
    assert.match(client.id, /^cli_/);
    assert.equal(client.phone, null);
    state.client = client;
    await assert.rejects(
      appTester(App.creates.create_client.operation.perform, {
        authData,
        inputData: { name: 'Again', email: 'dana@whitfield.test' },
      }),
      (err) => err.message.includes('409') || /already|exists|conflict|email/i.test(err.message),
    );

    const photo = await lb.upload(gallery.id, 'front.jpg', 'image/jpeg', jpeg);
    assert.equal(photo.status, 201);
    state.photo = photo.body.data[0];

    const assigned = await appTester(App.creates.assign_gallery.operation.perform, {
      authData,
      inputData: { gallery_id: gallery.id, client_id: client.id, send_email: 'true' },
    });
    assert.equal(assigned.client_id, client.id);
    assert.match(assigned.client_link.url, /\/g\//);
    state.link = assigned.client_link.url;
  });

  test('Assign Gallery to Client without the email records no notification', async () => {
    const quiet = await appTester(App.creates.create_gallery.operation.perform, {
      authData,
      inputData: { address: '3 Quiet Lane' },
    });
    const before = (await lb.api('GET', '/v1/notifications')).body.pagination.total;
    const assigned = await appTester(App.creates.assign_gallery.operation.perform, {
      authData,
      inputData: { gallery_id: quiet.id, client_id: state.client.id, send_email: 'false' },
    });
    assert.equal(assigned.client_id, state.client.id);
    assert.equal((await lb.api('GET', '/v1/notifications')).body.pagination.total, before);
  });

  test('the client views and downloads; the email to them fails; Resend Gallery Email tries again', async () => {
    const page = await fetch(state.link);
    assert.equal(page.status, 200);
    await page.text();
    const zip = await fetch(`${state.link}/download.zip`);
    assert.equal(zip.status, 200);
    await zip.arrayBuffer();

    const failed = await lb.until('the first email to fail', async () => {
      const list = (await lb.api('GET', '/v1/notifications?status=failed')).body.data;
      return list.length > 0 && list;
    });
    assert.equal(failed[0].to, 'Dana@Whitfield.test');

    await sendSelection(state.link, state.photo.id, 'The front, please.');

    const resent = await appTester(App.creates.resend_gallery_email.operation.perform, {
      authData,
      inputData: { gallery_id: state.gallery.id },
    });
    assert.match(resent.id, /^ntf_/);
    assert.equal(resent.listing_id, state.gallery.id);

    const loose = await appTester(App.creates.create_gallery.operation.perform, {
      authData,
      inputData: { address: '9 Loose End' },
    });
    await assert.rejects(
      appTester(App.creates.resend_gallery_email.operation.perform, { authData, inputData: { gallery_id: loose.id } }),
      /not assigned to a client yet/,
    );
  });

  test('Create Share Link: the link and its controls; refusals say which field', async () => {
    const perform = App.creates.create_share_link.operation.perform;
    const expires = new Date(Date.now() + 7 * 24 * 3600 * 1000).toISOString();
    const full = await appTester(perform, {
      authData,
      inputData: {
        gallery_id: state.gallery.id,
        label: ' Seller: Jo Marsh ',
        email: 'jo.marsh@refused.test',
        expires_at: expires,
        password: 'correct horse',
        downloads_enabled: 'no',
        favorites_enabled: true,
        selection_min: '1',
        selection_max: 2,
      },
    });
    assert.match(full.id, /^shl_/);
    assert.equal(full.listing_id, state.gallery.id);
    assert.equal(full.label, 'Seller: Jo Marsh');
    assert.equal(full.email, 'jo.marsh@refused.test');
    assert.match(full.url, /\/g\/[A-Za-z0-9_-]+$/);
    assert.notEqual(full.url, state.link);
    assert.equal(Date.parse(full.expires_at), Date.parse(expires));
    assert.equal(full.password_protected, true);
    assert.equal(full.downloads_enabled, false);
    assert.equal(full.favorites_enabled, true);
    assert.equal(full.selection_min, 1);
    assert.equal(full.selection_max, 2);
    assert.deepEqual((await lb.api('GET', `/v1/listings/${state.gallery.id}/share_links/${full.id}`)).body, full);
    const emails = (await lb.api('GET', '/v1/notifications?limit=100')).body.data;
    assert.ok(emails.some((n) => n.share_link_id === full.id && n.to === 'jo.marsh@refused.test'));

    const plain = await appTester(perform, {
      authData,
      inputData: { gallery_id: state.gallery.id, label: 'Stager', email: '', password: '', selection_max: '' },
    });
    assert.equal(plain.email, null);
    assert.equal(plain.password_protected, false);
    assert.equal(plain.downloads_enabled, true, "an empty field is Lightbox's default");
    assert.equal(plain.selection_max, null);
    state.share = plain;

    await assert.rejects(
      appTester(perform, {
        authData,
        inputData: { gallery_id: state.gallery.id, label: 'x', downloads_enabled: 'maybe' },
      }),
      /maybe.{0,4} is not yes or no \(downloads_enabled\)/,
    );
    await assert.rejects(
      appTester(perform, { authData, inputData: { gallery_id: state.gallery.id, label: 'x', selection_min: 'five' } }),
      /not a number \(selection_min\)/,
    );
    await assert.rejects(
      appTester(perform, { authData, inputData: { gallery_id: state.gallery.id, label: '' } }),
      /label/,
    );
    await assert.rejects(
      appTester(perform, { authData, inputData: { gallery_id: state.gallery.id, label: 'x', password: 'short' } }),
      /password/,
    );
    await assert.rejects(
      appTester(perform, { authData, inputData: { gallery_id: 'lst_01JDZ8Q5E4R8VJ3H2K7P6N1XWZ', label: 'x' } }),
      /404|not found/i,
    );

    await sendSelection(plain.url, state.photo.id, 'For the staging plan.');
  });

  test('Create Invoice: items from a product and from a description and price; issued and paid (docs/api.md §29)', async () => {
    const perform = App.creates.create_invoice.operation.perform;
    const product = (await lb.api('POST', '/v1/products', { name: 'Twilight photos', unit_amount: 25000 })).body;
    const products = await appTester(App.triggers.product_list.operation.perform, { authData, meta: { page: 0 } });
    assert.deepEqual(
      products.map((p) => [p.id, p.name]),
      [[product.id, 'Twilight photos']],
    );
    const due = '2026-12-31T00:00:00.000Z';
    const invoice = await appTester(perform, {
      authData,
      inputData: {
        gallery_id: state.gallery.id,
        items: [
          { product_id: product.id, quantity: '2', description: '', unit_amount: '' },
          { description: 'Drone film', unit_amount: '15000' },
        ],
        discount: '5000',
        tax_rate: '8.25',
        pay_to_unlock: 'no',
        due_at: due,
        note: 'Thank you',
      },
    });
    assert.match(invoice.id, /^ivc_/);
    // 50000 + 15000 - 5000 = 60000; tax 8.25 % of it = 4950.
    assert.deepEqual(
      [
        invoice.status,
        invoice.client_id,
        invoice.subtotal,
        invoice.discount,
        invoice.tax_rate_bps,
        invoice.tax,
        invoice.total,
      ],
      ['draft', state.client.id, 65000, 5000, 825, 4950, 64950],
    );
    assert.deepEqual(
      invoice.items.map((i) => [i.product_id, i.description, i.quantity, i.amount]),
      [
        [product.id, 'Twilight photos', 2, 50000],
        [null, 'Drone film', 1, 15000],
      ],
    );
    assert.deepEqual(
      [invoice.pay_to_unlock, invoice.note, Date.parse(invoice.due_at)],
      [false, 'Thank you', Date.parse(due)],
    );

    const plain = await appTester(perform, {
      authData,
      inputData: { gallery_id: state.gallery.id, items: [{ description: 'Floor plan', unit_amount: 7500 }] },
    });
    assert.deepEqual([plain.total, plain.tax_rate_bps, plain.pay_to_unlock], [7500, 0, true]);
    assert.equal((await lb.api('DELETE', `/v1/invoices/${plain.id}`)).status, 204);

    const refused = async (inputData, pattern) =>
      assert.rejects(
        appTester(perform, { authData, inputData: { gallery_id: state.gallery.id, ...inputData } }),
        pattern,
      );
    await refused(
      { items: [{ description: 'Edit', unit_amount: '25.00' }] },
      /not a whole number of cents.*\(unit_amount\)/,
    );
    await refused(
      { items: [{ description: 'No price' }] },
      /Item 1: choose a product, or give a description and a price/,
    );
    await refused({ items: [] }, /at least one item/);
    await refused({ items: [{ product_id: product.id }], tax_rate: '8.255' }, /not a percentage .* \(tax_rate\)/);
    await refused({ items: [{ product_id: product.id }], discount: '999999' }, /discount/);

    // Issued and paid in Lightbox: the two invoice triggers' events.
    assert.equal((await lb.api('POST', `/v1/invoices/${invoice.id}/issue`)).status, 200);
    const paid = await lb.api('POST', `/v1/invoices/${invoice.id}/payments`, {
      amount: 64950,
      method: 'bank_transfer',
    });
    assert.equal(paid.status, 201);
    state.invoice = invoice;
    // docs/api.md §31: the gallery takes an MLS profile, and its first status is announced.
    const profile = (await lb.api('POST', '/v1/mls_profiles', { name: 'Bright MLS' })).body;
    assert.equal(
      (await lb.api('PATCH', `/v1/listings/${state.gallery.id}`, { mls_profile_id: profile.id })).status,
      200,
    );
    state.profile = profile;
  });

  test('Build Listing Kit: the build starts, and a gallery that cannot build says why (docs/api.md §32)', async () => {
    const perform = App.creates.build_listing_kit.operation.perform;
    // Only a gallery with a ready photo builds: wait for the photo's variants.
    await lb.until(
      'the photo to be ready',
      async () =>
        (await lb.api('GET', `/v1/listings/${state.gallery.id}/media/${state.photo.id}`)).body.variants.status ===
        'ready',
      120_000,
    );
    const kit = await appTester(perform, { authData, inputData: { gallery_id: state.gallery.id } });
    assert.deepEqual([kit.listing_id, kit.status], [state.gallery.id, 'building']);
    // Every field the action answers is labelled for the Zap editor (items by their URL).
    const labelled = new Set(
      App.creates.build_listing_kit.operation.outputFields.map((field) => field.key.split(/__|\[\]/)[0]),
    );
    assert.deepEqual(
      Object.keys(kit).filter((key) => !labelled.has(key)),
      [],
    );

    const draft = (await lb.api('POST', '/v1/listings', { address: '9 Unbuilt Row' })).body;
    await assert.rejects(appTester(perform, { authData, inputData: { gallery_id: draft.id } }), (err) =>
      /active/i.test(err.message),
    );
    await assert.rejects(
      appTester(perform, { authData, inputData: { gallery_id: 'lst_01JDZ8Q5E4R8VJ3H2K7P6N1XWZ' } }),
      /404|not found/i,
    );
  });

  test('each trigger receives its real, signed delivery; perform turns it into one Zap item', async () => {
    const expectations = {
      new_gallery: (item) => item.id === state.gallery.id && item.address === '12 Harbour View, Brighton',
      gallery_updated: (item) => item.id === state.gallery.id,
      gallery_sent: (item) =>
        item.id === state.gallery.id && item.client_id === state.client.id && Boolean(item.client_link),
      new_client: (item) => item.id === state.client.id && item.email === 'Dana@Whitfield.test',
      gallery_viewed: (item) => item.id === state.gallery.id && item.client_link.views >= 1,
      gallery_downloaded: (item) => item.id === state.gallery.id && item.client_link.downloads >= 1,
      photos_ready: (item) =>
        item.id === state.photo.id && item.variants.status === 'ready' && Boolean(item.variants.large.url),
      // docs/api.md §30: the photo, its analysis ready (the pixel fields computed).
      photos_analyzed: (item) =>
        item.id === state.photo.id && item.analysis.status === 'ready' && typeof item.analysis.blurry === 'boolean',
      email_failed: (item) =>
        item.listing_id === state.gallery.id && item.status === 'failed' && Boolean(item.last_error),
      // The old trigger's item is still the gallery, as its Zaps map it.
      selection_submitted: (item) => item.id === state.gallery.id && item.client_link.favorites_count === 1,
      new_selection: (item) => (item.link_kind ? item.link_kind === 'share_link' : item.id === state.share.id),
      invoice_issued: (item) => item.id === state.invoice.id && item.status === 'open' && /^INV-/.test(item.number),
      invoice_paid: (item) => item.id === state.invoice.id && item.status === 'paid' && item.amount_due === 0,
      compliance_changed: (item) => item.listing_id === state.gallery.id && item.profile_id === state.profile.id,
      // A change during the build (the photo's analysis, say) leaves the kit served `stale` until its rebuild.
      kit_ready: (item) =>
        item.listing_id === state.gallery.id &&
        ['ready', 'stale'].includes(item.status) &&
        item.mls_zip.content_type === 'application/zip' &&
        item.flyer.content_type === 'application/pdf' &&
        item.slideshow.width === 1920 &&
        item.social.length === 3,
    };
    for (const [key, data] of Object.entries(subscriptions)) {
      const type = key === 'new_selection' ? 'share_link.selection_submitted' : TRIGGERS[key][0];
      // Deliveries run concurrently, so another gallery's event of the same type (the assignment
      // without an email above) may arrive first: wait for the one about this step's object.
      // A photo's analysis (media.analyzed) loads the models first: on a CI machine whose two cores
      // run other suites beside this one, that can take more than a minute.
      const delivery = await receiver.waitFor(
        (body, r) => r.path === `/hooks/${key}` && body.type === type && expectations[key](body.data.object),
        180_000,
      );
      const bundle = {
        authData,
        inputData: {},
        targetUrl: `${receiver.url}/hooks/${key}`,
        subscribeData: data,
        cleanedRequest: JSON.parse(delivery.body),
        rawRequest: { method: 'POST', headers: delivery.headers, content: delivery.body },
      };
      const items = await appTester(App.triggers[key].operation.perform, bundle);
      assert.equal(items.length, 1, key);
      assert.equal(items[0].event_type, type);
      assert.match(items[0].event_id, /^evt_/);
      assert.ok(expectations[key](items[0]), `${key}: ${JSON.stringify(items[0])}`);

      // A delivery someone else signed (or altered) is refused.
      const forged = delivery.body.replace('"type"', '"type" ');
      await assert.rejects(
        appTester(App.triggers[key].operation.perform, {
          ...bundle,
          rawRequest: { ...bundle.rawRequest, content: forged },
        }),
        /did not sign/,
        key,
      );
      await assert.rejects(
        appTester(App.triggers[key].operation.perform, {
          ...bundle,
          subscribeData: { ...data, secret: `whsec_${Buffer.from('another secret entirely!').toString('base64')}` },
        }),
        /did not sign/,
        key,
      );
    }
  });

  test("New Selection: a selection at the client's link and at a share link, one item shape saying which", async () => {
    const data = subscriptions.new_selection;
    const perform = (bundle) => appTester(App.triggers.new_selection.operation.perform, bundle);
    const delivered = async (type) => {
      const delivery = await receiver.waitFor((body, r) => r.path === '/hooks/new_selection' && body.type === type);
      return {
        authData,
        subscribeData: data,
        cleanedRequest: JSON.parse(delivery.body),
        rawRequest: { headers: delivery.headers, content: delivery.body },
      };
    };
    const atClient = await delivered('client_link.selection_submitted');
    const atShare = await delivered('share_link.selection_submitted');
    const [client] = await perform(atClient);
    const [share] = await perform(atShare);
    assert.deepEqual(client, {
      id: atClient.cleanedRequest.id,
      link_kind: 'client_link',
      link_id: null,
      link_label: 'Client link',
      link_url: state.link,
      link_email: null,
      favorites_count: 1,
      selection_min: null,
      selection_max: null,
      gallery_id: state.gallery.id,
      gallery_address: '12 Harbour View, Brighton',
      client_id: state.client.id,
      event_id: atClient.cleanedRequest.id,
      event_type: 'client_link.selection_submitted',
      event_created_at: atClient.cleanedRequest.created_at,
    });
    assert.deepEqual(share, {
      id: atShare.cleanedRequest.id,
      link_kind: 'share_link',
      link_id: state.share.id,
      link_label: 'Stager',
      link_url: state.share.url,
      link_email: null,
      favorites_count: 1,
      selection_min: null,
      selection_max: null,
      gallery_id: state.gallery.id,
      gallery_address: '12 Harbour View, Brighton',
      client_id: null,
      event_id: atShare.cleanedRequest.id,
      event_type: 'share_link.selection_submitted',
      event_created_at: atShare.cleanedRequest.created_at,
    });
    // Every field the item has is labelled for the Zap editor, and the sample has the same fields.
    const labelled = App.triggers.new_selection.operation.outputFields.map((field) => field.key).sort();
    assert.deepEqual(labelled, Object.keys(share).sort());
    assert.deepEqual(Object.keys(App.triggers.new_selection.operation.sample).sort(), labelled);

    // The hidden Selection Submitted is what its Zaps had: a share link's selection is not theirs.
    assert.deepEqual(
      await appTester(App.triggers.selection_submitted.operation.perform, { ...atShare, rawRequest: undefined }),
      [],
    );
    assert.equal(App.triggers.selection_submitted.display.hidden, true);

    // A share link whose gallery is gone by now: the item still comes, without the address.
    const orphan = structuredClone(atShare.cleanedRequest);
    orphan.data.object.listing_id = 'lst_01JDZ8Q5E4R8VJ3H2K7P6N1XWZ';
    const [lost] = await perform({ authData, subscribeData: data, cleanedRequest: orphan });
    assert.equal(lost.gallery_id, 'lst_01JDZ8Q5E4R8VJ3H2K7P6N1XWZ');
    assert.equal(lost.gallery_address, null);
  });

  test("a replay hours later still verifies, also with Zapier's Http- header names", async () => {
    const data = subscriptions.new_client;
    const delivery = await receiver.waitFor(
      (body, r) => r.path === '/hooks/new_client' && body.type === 'client.created',
    );
    const event = JSON.parse(delivery.body);
    const timestamp = String(Math.floor(Date.now() / 1000) - 6 * 3600);
    const key = Buffer.from(data.secret.replace(/^whsec_/, ''), 'base64');
    const signature = createHmac('sha256', key).update(`${event.id}.${timestamp}.${delivery.body}`).digest('base64');
    const headers = {
      'Http-Webhook-Id': event.id,
      'Http-Webhook-Timestamp': timestamp,
      'Http-Webhook-Signature': `v1,${signature}`,
    };
    const items = await appTester(App.triggers.new_client.operation.perform, {
      authData,
      subscribeData: data,
      cleanedRequest: event,
      rawRequest: { headers, content: delivery.body },
    });
    assert.equal(items[0].id, state.client.id);
    await assert.rejects(
      appTester(App.triggers.new_client.operation.perform, {
        authData,
        subscribeData: data,
        cleanedRequest: event,
        rawRequest: {
          headers: { ...headers, 'Http-Webhook-Timestamp': String(Number(timestamp) + 1) },
          content: delivery.body,
        },
      }),
      /did not sign/,
    );
  });

  test('the test event from the dashboard is not a Zap item', async () => {
    const data = subscriptions.new_gallery;
    assert.equal((await lb.api('POST', `/v1/webhook_endpoints/${data.id}/test`)).status, 202);
    const delivery = await receiver.waitFor(
      (body, r) => r.path === '/hooks/new_gallery' && body.type === 'webhook.test',
    );
    const items = await appTester(App.triggers.new_gallery.operation.perform, {
      authData,
      subscribeData: data,
      cleanedRequest: JSON.parse(delivery.body),
      rawRequest: { headers: delivery.headers, content: delivery.body },
    });
    assert.deepEqual(items, []);
  });

  test("each trigger's samples come from GET /v1/events", async () => {
    for (const key of Object.keys(subscriptions)) {
      const items = await appTester(App.triggers[key].operation.performList, {
        authData,
        inputData: {},
        meta: { isLoadingSample: true },
      });
      assert.ok(items.length >= 1, key);
      for (const item of items) assert.ok(TRIGGERS[key].includes(item.event_type), key);
      if (key !== 'new_selection') continue;
      // The same items as the deliveries made, newest first.
      assert.deepEqual(
        items.map((item) => [item.link_kind, item.link_label, item.gallery_address]),
        [
          ['share_link', 'Stager', '12 Harbour View, Brighton'],
          ['client_link', 'Client link', '12 Harbour View, Brighton'],
        ],
      );
    }
  });

  test('turning each Zap off deletes its endpoint, and a second unsubscribe is harmless', async () => {
    for (const [key, data] of Object.entries(subscriptions)) {
      await appTester(App.triggers[key].operation.performUnsubscribe, {
        authData,
        subscribeData: data,
        targetUrl: `${receiver.url}/hooks/${key}`,
      });
    }
    assert.deepEqual(await endpoints(), []);
    const [key, data] = Object.entries(subscriptions)[0];
    await appTester(App.triggers[key].operation.performUnsubscribe, { authData, subscribeData: data });
  });
});

describe('a Zap that Zapier deleted answers 410 Gone', () => {
  test('Lightbox disables the endpoint at once (docs/api.md §22), and unsubscribe still removes it', async () => {
    const gone = await startReceiver();
    gone.respondWith(410);
    try {
      const data = await appTester(App.triggers.new_client.operation.performSubscribe, {
        authData,
        targetUrl: `${gone.url}/hooks/dead`,
        inputData: {},
      });
      await appTester(App.creates.create_client.operation.perform, {
        authData,
        inputData: { name: 'Ola Nordmann', email: 'ola@nordmann.test' },
      });
      await gone.waitFor((body) => body.type === 'client.created');
      const endpoint = await lb.until('the endpoint to be disabled', async () => {
        const e = (await lb.api('GET', `/v1/webhook_endpoints/${data.id}`)).body;
        return e.enabled === false && e;
      });
      assert.equal(endpoint.disabled_reason, 'gone');
      await appTester(App.triggers.new_client.operation.performUnsubscribe, { authData, subscribeData: data });
      assert.equal((await lb.api('GET', `/v1/webhook_endpoints/${data.id}`)).status, 404);
    } finally {
      await gone.stop();
    }
  });
});

describe('searches and find-or-create', () => {
  test('Find Gallery by MLS number and by address', async () => {
    const a = await appTester(App.creates.create_gallery.operation.perform, {
      authData,
      inputData: { address: '40 Marine Parade', mls_number: 'MP-40' },
    });
    await appTester(App.creates.create_gallery.operation.perform, {
      authData,
      inputData: { address: '40 Marine Parade, Flat 2' },
    });
    const byMls = await appTester(App.searches.find_gallery.operation.perform, {
      authData,
      inputData: { mls_number: 'mp-40' },
    });
    assert.deepEqual(
      byMls.map((g) => g.id),
      [a.id],
    );
    assert.equal(byMls[0].mls_number, 'MP-40');
    assert.ok('description' in byMls[0], 'a whole gallery object, as Create Gallery gives');
    const byAddress = await appTester(App.searches.find_gallery.operation.perform, {
      authData,
      inputData: { address: '40 marine parade' },
    });
    assert.equal(byAddress.length, 2);
    assert.equal(byAddress[0].id, a.id, 'the exact address comes first');
    await assert.rejects(
      appTester(App.searches.find_gallery.operation.perform, { authData, inputData: {} }),
      /MLS number or the address/,
    );
  });

  test('Find or Create Gallery: nothing found, so the create step makes it, and then it is found', async () => {
    const soc = App.searchOrCreates.find_gallery;
    const input = { mls_number: 'NEW-777', address: '7 Lucky Road' };
    assert.deepEqual(await appTester(App.searches[soc.search].operation.perform, { authData, inputData: input }), []);
    const made = await appTester(App.creates[soc.create].operation.perform, { authData, inputData: input });
    const found = await appTester(App.searches[soc.search].operation.perform, { authData, inputData: input });
    assert.deepEqual(
      found.map((g) => g.id),
      [made.id],
    );
  });

  test('Find Client by email, and Find or Create Client', async () => {
    const soc = App.searchOrCreates.find_client;
    const found = await appTester(App.searches.find_client.operation.perform, {
      authData,
      inputData: { email: ' DANA@whitfield.test ' },
    });
    assert.equal(found.length, 1);
    assert.equal(found[0].name, 'Dana Whitfield');
    assert.ok(Array.isArray(found[0].listings));
    // A substring is not a match: "ana@whitfield.test" is someone else.
    assert.deepEqual(
      await appTester(App.searches.find_client.operation.perform, {
        authData,
        inputData: { email: 'ana@whitfield.test' },
      }),
      [],
    );
    const input = { email: 'new.agent@brokerage.test', name: 'New Agent' };
    assert.deepEqual(await appTester(App.searches[soc.search].operation.perform, { authData, inputData: input }), []);
    const made = await appTester(App.creates[soc.create].operation.perform, { authData, inputData: input });
    const again = await appTester(App.searches[soc.search].operation.perform, { authData, inputData: input });
    assert.deepEqual(
      again.map((c) => c.id),
      [made.id],
    );
  });
});

describe('Add Media from URL (docs/api.md §21)', () => {
  test('adds the photo the link points at; a link that fails says why and keeps nothing', async () => {
    const gallery = await appTester(App.creates.create_gallery.operation.perform, {
      authData,
      inputData: { address: '1 Link Street' },
    });
    const media = await appTester(App.creates.add_media_from_url.operation.perform, {
      authData,
      inputData: { gallery_id: gallery.id, url: `${files.url}/shoot/front.jpg`, filename: 'Front elevation.jpg' },
    });
    assert.match(media.id, /^med_/);
    assert.equal(media.kind, 'photo');
    assert.equal(media.filename, 'Front elevation.jpg');
    assert.equal(media.size, jpeg.length);
    assert.equal(media.width, 64);
    await assert.rejects(
      appTester(App.creates.add_media_from_url.operation.perform, {
        authData,
        inputData: { gallery_id: gallery.id, url: `${files.url}/shoot/missing.jpg` },
      }),
      /404/,
    );
    assert.equal((await lb.api('GET', `/v1/listings/${gallery.id}/media`)).body.data.length, 1);
  });
});

describe('dropdowns', () => {
  test('the hidden list triggers fill the Gallery and Client dropdowns', async () => {
    const galleries = await appTester(App.triggers.gallery_list.operation.perform, { authData, meta: { page: 0 } });
    assert.ok(galleries.some((g) => g.address === '12 Harbour View, Brighton'));
    const clients = await appTester(App.triggers.client_list.operation.perform, { authData, meta: { page: 0 } });
    assert.ok(clients.some((c) => c.label === 'Dana Whitfield <Dana@Whitfield.test>'));
    assert.deepEqual(await appTester(App.triggers.client_list.operation.perform, { authData, meta: { page: 5 } }), []);
  });
});
