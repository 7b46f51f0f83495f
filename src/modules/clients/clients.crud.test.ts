// Clients (`/v1/clients`): create, read, change and delete one client; docs/api.md §7,
// with §1, §2 and §4.
// node:test's describe() and test() return promises that the runner itself awaits.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ISO_MS, GALLERY_ITEM_KEYS, assertError, assertValidation } from '../../../test/support/api-assertions.ts';
import { clientsApi } from '../../../test/support/clients-api.ts';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { uniqueEmail } from '../../../test/support/notification-helpers.ts';

const CLIENT_KEYS = [
  'company',
  'created_at',
  'email',
  'id',
  'listings',
  'name',
  'notes',
  'phone',
  'portal_url',
  'updated_at',
];

let ctx: TestContext;
let me: TestAccount;

before(async () => {
  ctx = await createTestContext();
  me = await createAccount(ctx);
});
after(() => ctx.close());

const { createClient, createListing, post, patch, get, assign, notificationsOf } = clientsApi(() => ({ ctx, me }));

describe('POST /v1/clients', () => {
  test('creates a client: 201, Location, every field present, listings []', async () => {
    const email = uniqueEmail();
    const res = await post({ name: 'Ann Lee', email });
    assert.equal(res.statusCode, 201, res.body);
    const c = res.json();
    assert.deepEqual(Object.keys(c).sort(), CLIENT_KEYS);
    assert.match(c.id, /^cli_[A-Za-z0-9_-]+$/);
    assert.ok(c.id.length <= 40);
    assert.equal(res.headers.location, `/v1/clients/${c.id}`);
    assert.equal(c.name, 'Ann Lee');
    assert.equal(c.email, email);
    assert.equal(c.phone, null);
    assert.equal(c.company, null);
    assert.equal(c.notes, null);
    assert.deepEqual(c.listings, []);
    assert.match(c.created_at, ISO_MS);
    assert.equal(c.updated_at, c.created_at);
    assert.deepEqual((await get(`/v1/clients/${c.id}`)).json(), c);
  });

  test('stores every field trimmed; the email keeps its case', async () => {
    const c = await createClient({
      name: '  Bo Chen ',
      email: ' Bo.Chen+Studio@Example.COM ',
      phone: ' +1 555 0100 ',
      company: ' Chen Realty\t',
      notes: '\n prefers mornings \n',
    });
    assert.equal(c.name, 'Bo Chen');
    assert.equal(c.email, 'Bo.Chen+Studio@Example.COM');
    assert.equal(c.phone, '+1 555 0100');
    assert.equal(c.company, 'Chen Realty');
    assert.equal(c.notes, 'prefers mornings');
  });

  test('phone, company and notes accept null', async () => {
    const c = await createClient({ phone: null, company: null, notes: null });
    assert.equal(c.phone, null);
    assert.equal(c.company, null);
    assert.equal(c.notes, null);
  });

  test('name: required, 1..200 characters after trimming, never null', async () => {
    const email = uniqueEmail();
    assertValidation(await post({ email }), 'name');
    assertValidation(await post({ name: '', email }), 'name');
    assertValidation(await post({ name: '   ', email }), 'name');
    assertValidation(await post({ name: null, email }), 'name');
    assertValidation(await post({ name: 7, email }), 'name');
    assertValidation(await post({ name: 'n'.repeat(201), email }), 'name');
    assert.equal((await createClient({ name: 'n'.repeat(200) })).name, 'n'.repeat(200));
    assert.equal((await createClient({ name: ` ${'m'.repeat(200)} ` })).name, 'm'.repeat(200));
  });

  test('email: required, a valid address of at most 254 characters, never null', async () => {
    for (const email of [undefined, null, '', '   ', 'nope', 'a@', '@example.com', 'a b@example.com', 'a@b@c.com', 5]) {
      assertValidation(await post({ name: 'X', ...(email === undefined ? {} : { email }) }), 'email');
    }
    const domain = `${'d'.repeat(60)}.${'e'.repeat(60)}.${'f'.repeat(60)}.com`; // 185 characters
    const at254 = `${'a'.repeat(254 - domain.length - 1)}@${domain}`;
    assert.equal(at254.length, 254);
    assert.equal((await createClient({ email: at254 })).email, at254);
    assertValidation(await post({ name: 'X', email: `b${at254}` }), 'email');
  });

  test('phone <= 50, company <= 200, notes <= 10,000', async () => {
    const c = await createClient({ phone: 'p'.repeat(50), company: 'c'.repeat(200), notes: 'n'.repeat(10_000) });
    assert.equal(c.phone.length, 50);
    assert.equal(c.company.length, 200);
    assert.equal(c.notes.length, 10_000);
    assertValidation(await post({ name: 'X', email: uniqueEmail(), phone: 'p'.repeat(51) }), 'phone');
    assertValidation(await post({ name: 'X', email: uniqueEmail(), company: 'c'.repeat(201) }), 'company');
    assertValidation(await post({ name: 'X', email: uniqueEmail(), notes: 'n'.repeat(10_001) }), 'notes');
    assertValidation(await post({ name: 'X', email: uniqueEmail(), phone: 5550100 }), 'phone');
  });

  test('unknown and read-only fields are rejected, named in details', async () => {
    const base = { name: 'X', email: uniqueEmail() };
    assertValidation(await post({ ...base, nickname: 'x', mobile: '1' }), 'nickname', 'mobile');
    for (const field of ['id', 'created_at', 'updated_at', 'listings']) {
      assertValidation(await post({ ...base, [field]: field === 'listings' ? [] : 'x' }), field);
    }
  });

  test('a NUL character in a string is a validation error, not a fault', async () => {
    assertValidation(await post({ name: 'a\u0000', email: uniqueEmail() }), 'name');
    assertValidation(await post({ name: 'a', email: uniqueEmail(), notes: '\u0000' }), 'notes');
  });

  test('email is unique within the account, compared case-insensitively: 409 conflict', async () => {
    const email = uniqueEmail('Dup');
    const first = await createClient({ email });
    for (const again of [email, email.toUpperCase(), email.toLowerCase(), `  ${email}  `]) {
      assertError(await post({ name: 'Other', email: again }), 409, 'conflict');
    }
    const all = await ctx.deps.db.kysely
      .selectFrom('clients')
      .select('id')
      .where('account_id', '=', me.accountId)
      .where('email_normalized', '=', email.toLowerCase())
      .execute();
    assert.deepEqual(
      all.map((r) => r.id),
      [first.id],
    );
  });

  test('concurrent creates with one email: exactly one 201, the rest 409', async () => {
    const email = uniqueEmail('race');
    const answers = await Promise.all(
      [email, email.toUpperCase(), email, email.toUpperCase(), email].map((e) => post({ name: 'Racer', email: e })),
    );
    assert.deepEqual(answers.map((r) => r.statusCode).sort(), [201, 409, 409, 409, 409]);
    for (const r of answers) if (r.statusCode === 409) assertError(r, 409, 'conflict');
  });

  test('the same email in another account is fine', async () => {
    const email = uniqueEmail('shared');
    await createClient({ email });
    const other = await createAccount(ctx);
    const c = await createClient({ email: email.toUpperCase() }, other.key);
    assert.equal(c.email, email.toUpperCase());
  });

  test('415 for a body that is not JSON; 400 invalid_json for malformed JSON', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const res = await call(ctx, 'POST', '/v1/clients', {
        key: me.key,
        body: 'name=X&email=x%40example.com',
        headers: { 'content-type': type },
      });
      assertError(res, 415, 'unsupported_media_type');
    }
    assertError(await post('{"name": "X", "email": '), 400, 'invalid_json');
  });
});

describe('GET /v1/clients/:id', () => {
  test("includes the client's galleries as list items, newest first", async () => {
    const c = await createClient();
    const older = await createListing(me.key, '1 Old Road');
    const newer = await createListing(me.key, '2 New Road');
    const unrelated = await createListing();
    // Assigned newest first, so assignment order and creation order disagree.
    assert.equal((await assign(c.id, newer.id)).statusCode, 200);
    assert.equal((await assign(c.id, older.id)).statusCode, 200);
    const res = await get(`/v1/clients/${c.id}`);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), CLIENT_KEYS);
    assert.deepEqual(
      body.listings.map((g: { id: string }) => g.id),
      [newer.id, older.id],
    );
    for (const g of body.listings) {
      assert.deepEqual(Object.keys(g).sort(), GALLERY_ITEM_KEYS);
      assert.equal(g.client_id, c.id);
    }
    assert.ok(!body.listings.some((g: { id: string }) => g.id === unrelated.id));
    assert.equal(body.listings[0].address, '2 New Road');
  });

  test('404 for an unknown id, another account, or an id of the wrong shape', async () => {
    const other = await createAccount(ctx);
    const theirs = await createClient({}, other.key);
    for (const id of [theirs.id, 'cli_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'nope', 'cli_', 'lst_x', 'cli_%00', 'cli_%20']) {
      assertError(await get(`/v1/clients/${id}`), 404, 'not_found');
      assertError(await get(`/v1/clients/${id}/listings`), 404, 'not_found');
      assertError(await patch(id, { name: 'x' }), 404, 'not_found');
      assertError(await call(ctx, 'DELETE', `/v1/clients/${id}`, { key: me.key }), 404, 'not_found');
    }
    assert.equal((await get(`/v1/clients/${theirs.id}`, other.key)).json().name, 'Ann Lee');
  });
});

describe('PATCH /v1/clients/:id', () => {
  test('changes only the fields sent, trimmed; updated_at moves; listings included', async () => {
    const c = await createClient({ phone: '1', company: 'Co', notes: 'n' });
    const g = await createListing();
    await assign(c.id, g.id);
    const before = (await get(`/v1/clients/${c.id}`)).json();
    await sleep(5);
    const res = await patch(c.id, { name: '  Ann Lee-Park ', company: null });
    assert.equal(res.statusCode, 200, res.body);
    const u = res.json();
    assert.deepEqual(Object.keys(u).sort(), CLIENT_KEYS);
    assert.equal(u.name, 'Ann Lee-Park');
    assert.equal(u.company, null);
    assert.equal(u.phone, '1');
    assert.equal(u.notes, 'n');
    assert.equal(u.email, c.email);
    assert.equal(u.created_at, c.created_at);
    assert.ok(u.updated_at > before.updated_at);
    assert.deepEqual(
      u.listings.map((l: { id: string }) => l.id),
      [g.id],
    );
    assert.deepEqual((await get(`/v1/clients/${c.id}`)).json(), u);
    // The new name is searchable.
    const found = (await get('/v1/clients?search=lee-PARK')).json();
    assert.deepEqual(
      found.data.map((x: { id: string }) => x.id),
      [c.id],
    );
  });

  test('null clears phone, company and notes; name and email cannot be null', async () => {
    const c = await createClient({ phone: '1', company: 'Co', notes: 'n' });
    const u = (await patch(c.id, { phone: null, company: null, notes: null })).json();
    assert.equal(u.phone, null);
    assert.equal(u.company, null);
    assert.equal(u.notes, null);
    assertValidation(await patch(c.id, { name: null }), 'name');
    assertValidation(await patch(c.id, { email: null }), 'email');
    assertValidation(await patch(c.id, { name: '  ' }), 'name');
    assertValidation(await patch(c.id, { email: 'not-an-email' }), 'email');
    assertValidation(await patch(c.id, { phone: 'p'.repeat(51) }), 'phone');
    assertValidation(await patch(c.id, {}));
    for (const field of ['id', 'created_at', 'updated_at', 'listings', 'client_id', 'unknown']) {
      assertValidation(await patch(c.id, { name: 'ok', [field]: 'x' }), field);
    }
  });

  test('email stays unique case-insensitively: 409 conflict; its own email in another case is fine', async () => {
    const a = await createClient({ email: uniqueEmail('patch') });
    const b = await createClient();
    assertError(await patch(b.id, { email: a.email.toUpperCase() }), 409, 'conflict');
    assert.equal((await get(`/v1/clients/${b.id}`)).json().email, b.email);
    const own = await patch(a.id, { email: a.email.toUpperCase() });
    assert.equal(own.statusCode, 200, own.body);
    assert.equal(own.json().email, a.email.toUpperCase());
    // The old address is free again once changed.
    const moved = await patch(b.id, { email: uniqueEmail('moved') });
    assert.equal(moved.statusCode, 200);
    assert.equal((await post({ name: 'New', email: b.email })).statusCode, 201);
  });
});

describe('DELETE /v1/clients/:id', () => {
  test('204; galleries stay with client_id null; unsent notifications cancelled, sent ones kept', async () => {
    const c = await createClient();
    const g1 = await createListing();
    const g2 = await createListing();
    await assign(c.id, g1.id);
    await assign(c.id, g2.id);
    // Pretend the first email went out already.
    await ctx.deps.db.kysely
      .updateTable('notifications')
      .set({ status: 'sent', sent_at: new Date().toISOString() })
      .where('listing_id', '=', g1.id)
      .execute();

    const res = await call(ctx, 'DELETE', `/v1/clients/${c.id}`, { key: me.key });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assertError(await get(`/v1/clients/${c.id}`), 404, 'not_found');
    assertError(await call(ctx, 'DELETE', `/v1/clients/${c.id}`, { key: me.key }), 404, 'not_found');

    for (const g of [g1, g2]) {
      const after = await get(`/v1/listings/${g.id}`);
      assert.equal(after.statusCode, 200);
      assert.equal(after.json().client_id, null);
      assert.equal(after.json().address, g.address);
    }
    const [sent] = await notificationsOf(g1.id);
    const [unsent] = await notificationsOf(g2.id);
    assert.equal(sent?.status, 'sent');
    assert.equal(unsent?.status, 'cancelled');
    assert.equal(unsent?.client_id, c.id);
  });

  test("404 for another account's client, which survives", async () => {
    const other = await createAccount(ctx);
    const theirs = await createClient({}, other.key);
    assertError(await call(ctx, 'DELETE', `/v1/clients/${theirs.id}`, { key: me.key }), 404, 'not_found');
    assert.equal((await get(`/v1/clients/${theirs.id}`, other.key)).statusCode, 200);
  });
});
