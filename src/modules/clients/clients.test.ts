// Clients (`/v1/clients`) and assignment: section 7 of the contract, with sections 1, 2 and 4.
// node:test's describe() and test() return promises that the runner itself awaits.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  detailFields,
  expectError,
  call,
  createAccount,
  createTestContext,
  type Response,
  type TestAccount,
  type TestContext,
} from '../../../test/support/helpers.ts';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CLIENT_KEYS = ['company', 'created_at', 'email', 'id', 'listings', 'name', 'notes', 'phone', 'updated_at'];
const CLIENT_ITEM_KEYS = ['company', 'created_at', 'email', 'id', 'name', 'phone'];
const GALLERY_ITEM_KEYS = ['address', 'baths', 'beds', 'client_id', 'created_at', 'id', 'sqft', 'status'];

let ctx: TestContext;
let me: TestAccount;

before(async () => {
  ctx = await createTestContext();
  me = await createAccount(ctx);
});
after(() => ctx.close());

interface Page<T> {
  data: T[];
  pagination: { page: number; limit: number; total: number };
}
const idsOf = (res: Response): string[] => res.json<Page<{ id: string }>>().data.map((item) => item.id);

/** An error answer as section 2 describes it; returns the fields its details name. */
const assertError = (res: Response, status: number, code: string): string[] =>
  detailFields(expectError(res, status, code));

function assertValidation(res: Response, ...fields: string[]): void {
  const named = assertError(res, 400, 'validation_error');
  for (const field of fields) assert.ok(named.includes(field), `details name ${field}: ${res.body}`);
}

let emailCounter = 0;
const uniqueEmail = (local = 'client'): string => {
  emailCounter += 1;
  return `${local}${emailCounter}@example.com`;
};

async function createClient(body: Record<string, unknown> = {}, as = me.key): Promise<any> {
  const res = await call(ctx, 'POST', '/v1/clients', {
    key: as,
    body: { name: 'Ann Lee', email: uniqueEmail(), ...body },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

async function createListing(as = me.key, address = '1 Main St'): Promise<any> {
  const res = await call(ctx, 'POST', '/v1/listings', { key: as, body: { address } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

const post = (body: unknown, as = me.key) => call(ctx, 'POST', '/v1/clients', { key: as, body });
const patch = (id: string, body: unknown, as = me.key) => call(ctx, 'PATCH', `/v1/clients/${id}`, { key: as, body });
const get = (url: string, as = me.key) => call(ctx, 'GET', url, { key: as });
const assign = (clientId: string, listingId: string, as = me.key) =>
  call(ctx, 'POST', `/v1/clients/${clientId}/listings/${listingId}`, { key: as });
const unassign = (clientId: string, listingId: string, as = me.key) =>
  call(ctx, 'DELETE', `/v1/clients/${clientId}/listings/${listingId}`, { key: as });

const notificationsOf = (listingId: string) =>
  ctx.deps.db.kysely
    .selectFrom('notifications')
    .selectAll()
    .where('listing_id', '=', listingId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

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

describe('GET /v1/clients', () => {
  test('list items carry id, name, email, phone, company, created_at; newest first; paginated', async () => {
    const account = await createAccount(ctx);
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await createClient({ name: `C${i}`, notes: 'secret' }, account.key)).id);
    const res = await get('/v1/clients', account.key);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(body.pagination, { page: 1, limit: 20, total: 5 });
    assert.deepEqual(
      body.data.map((c: { id: string }) => c.id),
      [...ids].reverse(),
    );
    for (const item of body.data) {
      assert.deepEqual(Object.keys(item).sort(), CLIENT_ITEM_KEYS);
      assert.match(item.created_at, ISO_MS);
    }
    const walked: string[] = [];
    for (let page = 1; page <= 3; page += 1) {
      const p = (await get(`/v1/clients?page=${page}&limit=2`, account.key)).json();
      assert.deepEqual(p.pagination, { page, limit: 2, total: 5 });
      walked.push(...p.data.map((c: { id: string }) => c.id));
    }
    assert.deepEqual(walked, [...ids].reverse());
    const past = (await get('/v1/clients?page=9&limit=2', account.key)).json();
    assert.deepEqual(past, { data: [], pagination: { page: 9, limit: 2, total: 5 } });
    // The farthest page: 2^53 - 1, the largest a JSON number holds exactly (past it: 400, test/openapi.test.ts).
    const farPast = await get(`/v1/clients?page=${Number.MAX_SAFE_INTEGER}`, account.key);
    assert.equal(farPast.statusCode, 200, farPast.body);
    assert.deepEqual(farPast.json().data, []);
    assert.equal(farPast.json().pagination.total, 5);
    assert.equal(farPast.json().pagination.page, Number.MAX_SAFE_INTEGER);
  });

  test('bad page, limit and search values are 400, naming the query parameter', async () => {
    for (const [query, field] of [
      ['limit=101', 'limit'],
      ['limit=0', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=abc', 'limit'],
      ['page=0', 'page'],
      ['page=x', 'page'],
      [`search=${'s'.repeat(201)}`, 'search'],
      ['search=%00', 'search'],
    ] as const) {
      assertValidation(await get(`/v1/clients?${query}`), field);
    }
    assert.equal((await get(`/v1/clients?search=${'s'.repeat(200)}`)).statusCode, 200);
  });

  test('search: case-insensitive substring of name or email; total counts the matches', async () => {
    const account = await createAccount(ctx);
    const dana = await createClient({ name: 'Dana Whitfield', email: 'dana@north.example' }, account.key);
    const eli = await createClient({ name: 'Eli Moss', email: 'eli.WHIT@south.example' }, account.key);
    await createClient({ name: 'Fay Stone', email: 'fay@east.example' }, account.key);
    const search = async (term: string) => {
      const res = await get(`/v1/clients?search=${encodeURIComponent(term)}`, account.key);
      assert.equal(res.statusCode, 200, res.body);
      return res.json<Page<{ id: string }>>();
    };
    const whit = await search('WhIt');
    assert.deepEqual(
      whit.data.map((c: { id: string }) => c.id),
      [eli.id, dana.id],
    );
    assert.equal(whit.pagination.total, 2);
    assert.deepEqual(
      (await search('NORTH.EX')).data.map((c: { id: string }) => c.id),
      [dana.id],
    );
    assert.equal((await search('nobody')).pagination.total, 0);
    assert.equal((await search('')).pagination.total, 3);
    const paged = (await get('/v1/clients?search=whit&limit=1&page=2', account.key)).json();
    assert.deepEqual(paged.pagination, { page: 2, limit: 1, total: 2 });
    assert.deepEqual(
      paged.data.map((c: { id: string }) => c.id),
      [dana.id],
    );
  });

  test('% and _ in a search match only themselves', async () => {
    const account = await createAccount(ctx);
    const percent = await createClient({ name: '100% Real', email: 'p@x.example' }, account.key);
    await createClient({ name: '1000 Real', email: 'q@x.example' }, account.key);
    const underscore = await createClient({ name: 'Under', email: 'a_b@x.com' }, account.key);
    await createClient({ name: 'Other', email: 'axb@x.com' }, account.key);
    const backslash = await createClient({ name: 'Back\\slash', email: 'bs@x.example' }, account.key);
    const ids = async (term: string) => idsOf(await get(`/v1/clients?search=${encodeURIComponent(term)}`, account.key));
    assert.deepEqual(await ids('100%'), [percent.id]);
    assert.deepEqual(await ids('0% r'), [percent.id]);
    assert.deepEqual(await ids('%'), [percent.id]);
    assert.deepEqual(await ids('a_b'), [underscore.id]);
    assert.deepEqual(await ids('_'), [underscore.id]);
    assert.deepEqual(await ids('\\'), [backslash.id]);
    assert.deepEqual(await ids('k\\s'), [backslash.id]);
  });

  test("another account's clients are never listed or found", async () => {
    const a = await createAccount(ctx);
    const b = await createAccount(ctx);
    const mine = await createClient({ name: 'Zed Unique' }, a.key);
    await createClient({ name: 'Zed Unique' }, b.key);
    const res = (await get('/v1/clients?search=zed', a.key)).json();
    assert.deepEqual(
      res.data.map((c: { id: string }) => c.id),
      [mine.id],
    );
    assert.equal(res.pagination.total, 1);
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

describe('GET /v1/clients/:id/listings', () => {
  test("all the client's galleries, newest first; pagination {page: 1, limit: n, total: n}", async () => {
    const c = await createClient();
    const empty = (await get(`/v1/clients/${c.id}/listings`)).json();
    assert.deepEqual(empty, { data: [], pagination: { page: 1, limit: 0, total: 0 } });
    const ids: string[] = [];
    for (let i = 0; i < 23; i += 1) ids.push((await createListing(me.key, `${i} Lane`)).id);
    for (const id of ids) assert.equal((await assign(c.id, id)).statusCode, 200);
    await createListing();
    const res = await get(`/v1/clients/${c.id}/listings`);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(body.pagination, { page: 1, limit: 23, total: 23 });
    assert.deepEqual(
      body.data.map((g: { id: string }) => g.id),
      [...ids].reverse(),
    );
    for (const g of body.data) {
      assert.deepEqual(Object.keys(g).sort(), GALLERY_ITEM_KEYS);
      assert.equal(g.client_id, c.id);
    }
  });
});

describe('POST /v1/clients/:id/listings/:listing_id (assign)', () => {
  test('200 the gallery object with client_id; a queued notification to the client is recorded', async () => {
    const c = await createClient({ email: uniqueEmail('Notify.Me') });
    const g = await createListing();
    await sleep(5);
    const res = await assign(c.id, g.id);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), [
      'address',
      'baths',
      'beds',
      'client_id',
      'client_link',
      'cover_media_id',
      'created_at',
      'description',
      'id',
      'media_count',
      'mls_number',
      'sqft',
      'status',
      'updated_at',
    ]);
    assert.equal(body.id, g.id);
    assert.equal(body.client_id, c.id);
    assert.ok(body.updated_at > g.updated_at);
    assert.equal((await get(`/v1/listings/${g.id}`)).json().client_id, c.id);

    const rows = await notificationsOf(g.id);
    assert.equal(rows.length, 1);
    const n = rows[0]!;
    assert.match(n.id, /^ntf_/);
    assert.equal(n.account_id, me.accountId);
    assert.equal(n.client_id, c.id);
    assert.equal(n.listing_id, g.id);
    assert.equal(n.to_email, c.email);
    assert.equal(n.status, 'queued');
    assert.equal(n.sent_at, null);
    assert.match(n.created_at, ISO_MS);
    assert.ok(n.message_id.length > 0);
  });

  test('assigning again to the same client changes and records nothing', async () => {
    const c = await createClient();
    const g = await createListing();
    const first = (await assign(c.id, g.id)).json();
    await sleep(5);
    const again = await assign(c.id, g.id);
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json(), first);
    const rows = await notificationsOf(g.id);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.status, 'queued');
  });

  test('concurrent identical assignments record one notification between them', async () => {
    const c = await createClient();
    const g = await createListing();
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => assign(c.id, g.id)));
    for (const r of answers) {
      assert.equal(r.statusCode, 200, r.body);
      assert.equal(r.json().client_id, c.id);
    }
    const rows = await notificationsOf(g.id);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.status, 'queued');
  });

  test('reassigning records a notification for the new client and cancels the earlier queued one', async () => {
    const a = await createClient();
    const b = await createClient();
    const g = await createListing();
    await assign(a.id, g.id);
    const res = await assign(b.id, g.id);
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().client_id, b.id);
    const rows = await notificationsOf(g.id);
    assert.equal(rows.length, 2);
    const forA = rows.find((r) => r.client_id === a.id);
    const forB = rows.find((r) => r.client_id === b.id);
    assert.equal(forA?.status, 'cancelled');
    assert.equal(forA?.to_email, a.email);
    assert.equal(forB?.status, 'queued');
    assert.equal(forB?.to_email, b.email);
    assert.deepEqual((await get(`/v1/clients/${a.id}/listings`)).json().data, []);
    assert.deepEqual(
      (await get(`/v1/clients/${b.id}`)).json().listings.map((l: { id: string }) => l.id),
      [g.id],
    );
  });

  test("a sent notification is never cancelled by reassignment; other galleries' emails are untouched", async () => {
    const a = await createClient();
    const b = await createClient();
    const g = await createListing();
    const other = await createListing();
    await assign(a.id, g.id);
    await assign(a.id, other.id);
    await ctx.deps.db.kysely
      .updateTable('notifications')
      .set({ status: 'sent' })
      .where('listing_id', '=', g.id)
      .execute();
    await assign(b.id, g.id);
    const rows = await notificationsOf(g.id);
    assert.deepEqual(rows.map((r) => [r.client_id, r.status]).sort(), [
      [a.id, 'sent'],
      [b.id, 'queued'],
    ]);
    assert.equal((await notificationsOf(other.id))[0]?.status, 'queued');
  });

  test('404 for an unknown client or gallery, or one of another account; nothing recorded', async () => {
    const c = await createClient();
    const g = await createListing();
    const other = await createAccount(ctx);
    const theirClient = await createClient({}, other.key);
    const theirGallery = await createListing(other.key);
    for (const [clientId, listingId] of [
      ['cli_01ARZ3NDEKTSV4RRFFQ69G5FAV', g.id],
      [c.id, 'lst_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
      [theirClient.id, g.id],
      [c.id, theirGallery.id],
      ['nope', g.id],
      [c.id, 'nope'],
      ['cli_%00', g.id],
      [c.id, 'lst_%00'],
    ]) {
      assertError(await assign(clientId, listingId), 404, 'not_found');
    }
    assert.equal((await get(`/v1/listings/${g.id}`)).json().client_id, null);
    assert.equal((await get(`/v1/listings/${theirGallery.id}`, other.key)).json().client_id, null);
    assert.equal((await notificationsOf(g.id)).length, 0);
    assert.equal((await notificationsOf(theirGallery.id)).length, 0);
  });
});

describe('DELETE /v1/clients/:id/listings/:listing_id (unassign)', () => {
  test('204; the gallery is unassigned and its queued notification cancelled; then 404', async () => {
    const c = await createClient();
    const g = await createListing();
    await assign(c.id, g.id);
    const res = await unassign(c.id, g.id);
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assert.equal((await get(`/v1/listings/${g.id}`)).json().client_id, null);
    assert.deepEqual((await get(`/v1/clients/${c.id}`)).json().listings, []);
    const rows = await notificationsOf(g.id);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.status, 'cancelled');
    assertError(await unassign(c.id, g.id), 404, 'not_found');
    // Assigning again records a fresh notification.
    await assign(c.id, g.id);
    assert.deepEqual((await notificationsOf(g.id)).map((r) => r.status).sort(), ['cancelled', 'queued']);
  });

  test('404 when the gallery is assigned to another client, or to nobody; nothing changes', async () => {
    const a = await createClient();
    const b = await createClient();
    const g = await createListing();
    const free = await createListing();
    await assign(a.id, g.id);
    assertError(await unassign(b.id, g.id), 404, 'not_found');
    assertError(await unassign(a.id, free.id), 404, 'not_found');
    assertError(await unassign('cli_01ARZ3NDEKTSV4RRFFQ69G5FAV', g.id), 404, 'not_found');
    assertError(await unassign(a.id, 'lst_01ARZ3NDEKTSV4RRFFQ69G5FAV'), 404, 'not_found');
    assertError(await unassign('cli_%00', 'lst_%00'), 404, 'not_found');
    assert.equal((await get(`/v1/listings/${g.id}`)).json().client_id, a.id);
    assert.equal((await notificationsOf(g.id))[0]?.status, 'queued');
  });

  test("404 for another account's assignment, which survives", async () => {
    const other = await createAccount(ctx);
    const c = await createClient({}, other.key);
    const g = await createListing(other.key);
    await assign(c.id, g.id, other.key);
    assertError(await unassign(c.id, g.id), 404, 'not_found');
    assert.equal((await get(`/v1/listings/${g.id}`, other.key)).json().client_id, c.id);
    assert.equal((await notificationsOf(g.id))[0]?.status, 'queued');
  });
});
