// Settings > Webhooks over HTTP (app.inject), checked against the service and the database: an
// endpoint added (its secret shown once), refused URLs explained in the form, enable and disable,
// rotation (the new secret shown once), a test event delivered to a receiver on 127.0.0.1 and
// retried from the page, delete after confirming, and another account's ids not found.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Browser, inputValue, textOf } from '../../test/support/dashboard-browser.ts';
import { createAccount, createTestContext, type TestAccount, type TestContext } from '../../test/support/test-app.ts';
import { captureLog } from '../../test/support/notification-helpers.ts';
import { createJobRunner, type JobRunner } from '../mechanisms/queue/queue.runner.ts';
import { deliveryHandler } from '../modules/webhooks/webhooks.delivery.job.ts';
import {
  blockedConnections,
  startReceiver,
  systemLookups,
  type Receiver,
} from '../../test/support/loopback-receivers.ts';

const PASSWORD = 'correct horse battery';
const PAGE = '/dashboard/settings/webhooks';
/** Accepted at create (the test resolver knows no name); never delivered anywhere. */
const HOOK_URL = 'https://hooks.example.test/lightbox';

async function signedIn(ctx: TestContext, name = 'Hook Studio'): Promise<{ owner: TestAccount; browser: Browser }> {
  const owner = await createAccount(ctx, name);
  const browser = new Browser(ctx.app);
  const res = await browser.signIn(owner.email, PASSWORD);
  assert.equal(res.statusCode, 303, res.body);
  return { owner, browser };
}

// A browser drops one line break right after <textarea> (the HTML parsing rules), so this does too.
const secretOnPage = (body: string): string | undefined =>
  /<textarea\b[^>]*\sid="new-secret-value"[^>]*>\n?([^<]*)<\/textarea>/.exec(body)?.[1];

async function storedSecrets(ctx: TestContext, id: string) {
  return ctx.deps.db.kysely
    .selectFrom('webhook_endpoints')
    .select(['secret', 'previous_secret'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

/** Adds an endpoint through the page; returns its id and the secret the page showed. */
async function addEndpoint(
  ctx: TestContext,
  browser: Browser,
  owner: TestAccount,
  fields: Record<string, string>,
): Promise<{ id: string; secret: string }> {
  await browser.get(PAGE);
  const posted = await browser.post(PAGE, { events: 'all', description: '', ...fields });
  assert.equal(posted.statusCode, 303, textOf(posted.body));
  assert.equal(posted.headers.location, `${PAGE}?notice=webhook-created`);
  const page = await browser.follow(posted);
  const secret = secretOnPage(page.body);
  assert.ok(secret !== undefined, 'the secret is on the page');
  const list = await ctx.services.webhooks.list(owner.accountId, {});
  const id = list.data[0]!.id;
  return { id, secret };
}

describe('webhooks page', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(async () => {
    await ctx.close();
  });

  test('is linked from the settings navigation and starts empty', async () => {
    const { browser } = await signedIn(ctx);
    const overview = await browser.get('/dashboard');
    assert.match(overview.body, /<a href="\/dashboard\/settings\/webhooks"\s*>Webhooks<\/a/);
    const page = await browser.get(PAGE);
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.match(page.body, /<a href="\/dashboard\/settings\/webhooks"\s+aria-current="page"/);
    assert.match(textOf(page.body), /No endpoints yet/);
    // Signed out: sent to sign in.
    const stranger = await new Browser(ctx.app).get(PAGE);
    assert.equal(stranger.statusCode, 303);
    assert.equal(stranger.headers.location, '/dashboard/sign-in');
  });

  test('an added endpoint shows its secret once: a reload does not show it again', async () => {
    const { owner, browser } = await signedIn(ctx);
    const { id, secret } = await addEndpoint(ctx, browser, owner, { url: HOOK_URL, description: 'Booking system' });
    assert.match(secret, /^whsec_[A-Za-z0-9+/=]+$/);
    assert.equal(secret, (await storedSecrets(ctx, id)).secret);
    assert.match(textOf(browser.last!.body), /you will not see it again/);
    assert.match(browser.last!.body, /data-copy-target="new-secret-value"/);

    const endpoint = await ctx.services.webhooks.get(owner.accountId, id);
    assert.deepEqual(
      { url: endpoint.url, events: endpoint.events, description: endpoint.description, enabled: endpoint.enabled },
      { url: HOOK_URL, events: ['*'], description: 'Booking system', enabled: true },
    );

    // The same address again (a reload), and the list: the secret is not there.
    const reload = await browser.get(`${PAGE}?notice=webhook-created`);
    assert.equal(secretOnPage(reload.body), undefined);
    assert.ok(!reload.body.includes(secret));
    assert.match(textOf(reload.body), /A signing secret is shown only once/);
    const list = await browser.get(PAGE);
    assert.ok(!list.body.includes(secret));
    const text = textOf(list.body);
    assert.match(text, /https:\/\/hooks\.example\.test\/lightbox enabled/);
    assert.match(text, /Description Booking system Events All events/);
    assert.match(text, /Nothing sent yet/);
    assert.ok(!ctx.logs().includes(secret), 'the secret is in the log');
    assert.equal((await ctx.services.webhooks.list(owner.accountId, {})).pagination.total, 1);
  });

  test('chosen event types are kept; none ticked, a bad URL or a long description is refused in the form', async () => {
    const { owner, browser } = await signedIn(ctx);
    await browser.get(PAGE);
    const none = await browser.post(PAGE, { url: HOOK_URL, events: 'some', description: 'Gallery feed' });
    assert.equal(none.statusCode, 400);
    assert.match(textOf(none.body), /Events: Tick at least one event, or choose all events/);
    assert.equal(inputValue(none.body, 'f-url'), HOOK_URL, 'what was typed is kept');
    assert.equal(inputValue(none.body, 'f-description'), 'Gallery feed');
    assert.match(none.body, /id="events-some" name="events" value="some"\s+checked/);

    const refusals: [Record<string, string>, RegExp][] = [
      [{ url: '' }, /Endpoint URL: Enter the URL that should receive the events/],
      [{ url: 'hooks.example.test/in' }, /Endpoint URL: Enter a full URL starting with https:\/\//],
      [{ url: 'https://hooks.example.test/a b' }, /cannot contain spaces/],
      [{ url: 'https://x.test/' + 'a'.repeat(2048) }, /Use at most 2,048 characters/],
      [{ url: HOOK_URL, description: 'd'.repeat(501) }, /Description: Use at most 500 characters/],
    ];
    for (const [fields, message] of refusals) {
      const res = await browser.post(PAGE, { events: 'all', description: '', ...fields });
      assert.equal(res.statusCode, 400, JSON.stringify(fields));
      assert.match(textOf(res.body), message);
    }
    assert.equal((await ctx.services.webhooks.list(owner.accountId, {})).pagination.total, 0);

    const posted = await browser.post(PAGE, {
      url: HOOK_URL,
      events: 'some',
      'event.listing.created': 'on',
      'event.client_link.viewed': 'on',
      description: '',
    });
    assert.equal(posted.statusCode, 303);
    const [endpoint] = (await ctx.services.webhooks.list(owner.accountId, {})).data;
    assert.deepEqual(endpoint!.events, ['listing.created', 'client_link.viewed']);
    assert.equal(endpoint!.description, null);
    const page = await browser.follow(posted);
    assert.match(textOf(page.body), /Events listing\.created client_link\.viewed/);
  });

  test("a URL the service refuses (a private address) is explained in the form with the service's reason", async () => {
    const { owner, browser } = await signedIn(ctx);
    await browser.get(PAGE);
    const cases: [string, RegExp][] = [
      ['http://10.1.2.3/hook', /Endpoint URL: This URL cannot be used: 10\.1\.2\.3 is private \(RFC 1918\)/],
      ['http://127.0.0.1:8080/hook', /This URL cannot be used: 127\.0\.0\.1 is/],
      ['http://localhost/hook', /This URL cannot be used: localhost is the local machine/],
    ];
    for (const [url, message] of cases) {
      const res = await browser.post(PAGE, { url, events: 'all', description: '' });
      assert.equal(res.statusCode, 400, url);
      const text = textOf(res.body);
      assert.match(text, message);
      // Refused only for being private or local: the form names the setting that allows it.
      assert.match(text, /WEBHOOK_ALLOW_PRIVATE=true allows private and local addresses/);
      assert.equal(inputValue(res.body, 'f-url'), url);
      assert.match(res.body, /id="f-url"[^>]*aria-invalid="true"/);
    }
    assert.equal((await ctx.services.webhooks.list(owner.accountId, {})).pagination.total, 0);
  });

  test('disable, enable, and rotate (the new secret shown once, the old one still signing)', async () => {
    const { owner, browser } = await signedIn(ctx);
    const { id, secret } = await addEndpoint(ctx, browser, owner, { url: HOOK_URL });

    const disabled = await browser.post(`${PAGE}/${id}/disable`, {});
    assert.equal(disabled.statusCode, 303);
    assert.equal(disabled.headers.location, `${PAGE}?notice=webhook-disabled#endpoint-${id}`);
    assert.equal((await ctx.services.webhooks.get(owner.accountId, id)).enabled, false);
    let page = await browser.follow(disabled);
    assert.match(textOf(page.body), /The endpoint is disabled/);
    assert.match(textOf(page.body), /lightbox disabled/);
    assert.ok(!page.body.includes(`${id}/test"`), 'no test button while disabled');
    // A test posted meanwhile (another tab) is refused in words, and sends nothing.
    const refused = await browser.post(`${PAGE}/${id}/test`, {});
    assert.equal(refused.headers.location, `${PAGE}?notice=webhook-test-disabled#endpoint-${id}`);
    assert.match(textOf((await browser.follow(refused)).body), /enable it to send it a test event/);
    assert.equal((await ctx.services.webhooks.deliveries(owner.accountId, id, {})).pagination.total, 0);

    const enabled = await browser.post(`${PAGE}/${id}/enable`, {});
    assert.equal(enabled.headers.location, `${PAGE}?notice=webhook-enabled#endpoint-${id}`);
    assert.equal((await ctx.services.webhooks.get(owner.accountId, id)).enabled, true);
    page = await browser.follow(enabled);
    assert.ok(page.body.includes(`${id}/test"`));

    const rotated = await browser.post(`${PAGE}/${id}/rotate`, {});
    assert.equal(rotated.statusCode, 303);
    assert.equal(rotated.headers.location, `${PAGE}?notice=webhook-rotated`);
    page = await browser.follow(rotated);
    const next = secretOnPage(page.body);
    assert.ok(next !== undefined && next !== secret, 'a new secret is shown');
    assert.match(textOf(page.body), /The previous secret keeps signing for 24 hours/);
    assert.deepEqual(await storedSecrets(ctx, id), { secret: next, previous_secret: secret });
    const again = await browser.get(`${PAGE}?notice=webhook-rotated`);
    assert.equal(secretOnPage(again.body), undefined);
    assert.ok(!again.body.includes(next) && !again.body.includes(secret));
  });

  test('delete asks first; confirmed, the endpoint is gone', async () => {
    const { owner, browser } = await signedIn(ctx);
    const { id } = await addEndpoint(ctx, browser, owner, { url: HOOK_URL, description: '<b>Zapier</b>' });
    const list = await browser.get(PAGE);
    assert.ok(list.body.includes('&lt;b&gt;Zapier&lt;/b&gt;'), 'the description is escaped');
    assert.ok(!list.body.includes('<b>Zapier'));
    const confirm = await browser.get(`${PAGE}/${id}/delete`);
    assert.equal(confirm.statusCode, 200);
    assert.match(textOf(confirm.body), /Delete this webhook endpoint\? URL https:\/\/hooks\.example\.test\/lightbox/);
    assert.equal((await ctx.services.webhooks.list(owner.accountId, {})).pagination.total, 1, 'asking deletes nothing');
    // Without the form token nothing happens.
    const forged = await browser.post(`${PAGE}/${id}/delete`, {}, { csrf: null });
    assert.equal(forged.statusCode, 403);
    assert.equal((await ctx.services.webhooks.list(owner.accountId, {})).pagination.total, 1);
    await browser.get(`${PAGE}/${id}/delete`);
    const deleted = await browser.post(`${PAGE}/${id}/delete`, {});
    assert.equal(deleted.statusCode, 303);
    assert.equal(deleted.headers.location, `${PAGE}?notice=webhook-deleted`);
    assert.equal((await ctx.services.webhooks.list(owner.accountId, {})).pagination.total, 0);
    assert.match(textOf((await browser.follow(deleted)).body), /The endpoint was deleted/);
    assert.equal((await browser.get(`${PAGE}/${id}/delete`)).statusCode, 404);
  });

  test("another account's endpoint and delivery ids are not found, and nothing of theirs changes", async () => {
    const a = await signedIn(ctx, 'Studio A');
    const { id, secret } = await addEndpoint(ctx, a.browser, a.owner, { url: HOOK_URL, description: 'A only' });
    const delivery = await ctx.services.webhooks.test(a.owner.accountId, id);
    const b = await signedIn(ctx, 'Studio B');
    const page = await b.browser.get(PAGE);
    assert.ok(!page.body.includes(id) && !page.body.includes('A only'));

    assert.equal((await b.browser.get(`${PAGE}/${id}/delete`)).statusCode, 404);
    for (const action of ['disable', 'enable', 'rotate', 'test', 'delete', `deliveries/${delivery.id}/retry`]) {
      await b.browser.get(PAGE);
      const res = await b.browser.post(`${PAGE}/${id}/${action}`, {});
      assert.equal(res.statusCode, 404, action);
      assert.match(textOf(res.body), /Page not found/);
    }
    // B's own endpoint with A's delivery id: not found either.
    const own = await addEndpoint(ctx, b.browser, b.owner, { url: HOOK_URL });
    const cross = await b.browser.post(`${PAGE}/${own.id}/deliveries/${delivery.id}/retry`, {});
    assert.equal(cross.statusCode, 404);
    // Malformed ids are just as unknown.
    assert.equal((await b.browser.post(`${PAGE}/whe_nope/rotate`, {})).statusCode, 404);
    assert.equal((await b.browser.get(`${PAGE}/x/delete`)).statusCode, 404);

    const endpoint = await ctx.services.webhooks.get(a.owner.accountId, id);
    assert.equal(endpoint.enabled, true);
    assert.equal((await storedSecrets(ctx, id)).secret, secret);
    const deliveries = await ctx.services.webhooks.deliveries(a.owner.accountId, id, {});
    assert.equal(deliveries.pagination.total, 1, 'no test was sent for B');
    assert.equal(deliveries.data[0]!.attempts, 0);
  });
});

describe('test events and deliveries (a receiver on 127.0.0.1)', () => {
  let ctx: TestContext;
  let receiver: Receiver;
  let runner: JobRunner;
  let handler: ReturnType<typeof deliveryHandler>;
  /** What the receiver answers next, in order; then 204. */
  const answers: number[] = [];

  before(async () => {
    // Loopback is a private address: allowed here, as the brief of these tests.
    ctx = await createTestContext({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    receiver = await startReceiver((_req, res) => res.writeHead(answers.shift() ?? 204).end('thanks'));
    handler = deliveryHandler(ctx.deps, captureLog(), { random: () => 0.5 });
    runner = createJobRunner(ctx.deps, captureLog(), handler, { pollMs: 10 });
  });
  after(async () => {
    handler.close();
    await receiver.close();
    await ctx.close();
    assert.deepEqual(systemLookups, []);
    assert.deepEqual(blockedConnections, []);
  });

  test('send a test: its delivery is listed with status, attempts, response and error, and Retry sends it again', async () => {
    const { owner, browser } = await signedIn(ctx);
    const { id } = await addEndpoint(ctx, browser, owner, { url: receiver.url('/in') });

    answers.push(500);
    const sent = await browser.post(`${PAGE}/${id}/test`, {});
    assert.equal(sent.statusCode, 303);
    assert.equal(sent.headers.location, `${PAGE}?notice=webhook-test-sent#endpoint-${id}`);
    let page = await browser.follow(sent);
    assert.match(textOf(page.body), /A webhook\.test event is on its way/);
    const [queued] = (await ctx.services.webhooks.deliveries(owner.accountId, id, {})).data;
    assert.ok(queued !== undefined);
    const row = (body: string): string =>
      textOf(new RegExp(`<tr role="row" data-delivery="${queued.id}">[\\s\\S]*?</tr>`).exec(body)?.[0] ?? '');
    assert.match(row(page.body), /^webhook\.test pending .*0 none none/);

    // The first attempt gets a 500: still pending, with the answer and the reason.
    await runner.drain();
    assert.equal(receiver.received.length, 1);
    assert.equal(receiver.received[0]!.headers['webhook-id'], queued.event_id);
    page = await browser.get(PAGE);
    assert.match(row(page.body), /^webhook\.test pending next try .* UTC 1 500 \S.* UTC Retry/);
    assert.match(page.body, new RegExp(`action="${PAGE}/${id}/deliveries/${queued.id}/retry"`));

    const retried = await browser.post(`${PAGE}/${id}/deliveries/${queued.id}/retry`, {});
    assert.equal(retried.statusCode, 303);
    assert.equal(retried.headers.location, `${PAGE}?notice=webhook-retried#endpoint-${id}`);
    assert.match(textOf((await browser.follow(retried)).body), /The delivery is being sent again now/);
    await runner.drain();
    assert.equal(receiver.received.length, 2);
    page = await browser.get(PAGE);
    assert.match(row(page.body), /^webhook\.test succeeded 2 204 none .* UTC delivered .* UTC Retry/);
    const [done] = (await ctx.services.webhooks.deliveries(owner.accountId, id, {})).data;
    assert.deepEqual([done!.status, done!.attempts, done!.response_status], ['succeeded', 2, 204]);
  });
});
