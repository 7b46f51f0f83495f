// The data the fuzz cases point at: one account with galleries, clients, media, assignments and
// notifications (made over HTTP, as a user would), and a second account whose ids must stay out
// of reach. Deletes consume resources, so the pool is read back from the database after every
// successful write and topped up before every case.
import { randomBytes } from 'node:crypto';
import { call, createAccount, createKey, type TestAccount, type TestContext } from '../support/test-app.ts';
import { jpeg, multipart, pdf } from '../support/media-fixtures.ts';
import { makeVariantsNow } from '../support/media-helpers.ts';

export type Prefix = 'lst' | 'cli' | 'med' | 'ntf' | 'whe' | 'whd' | 'evt' | 'shl' | 'prd' | 'ivc' | 'mlp';

/** Related ids that make a path point at something real: a media item with its gallery, an assignment. */
export type Scene = Partial<Record<Prefix, string>>;

interface Pool {
  lst: string[];
  cli: string[];
  ntf: string[];
  whe: string[];
  evt: string[];
  media: { lst: string; med: string }[];
  /** How many of `media` are photos with their variants made: the variant route's successes. */
  ready: number;
  assigned: { cli: string; lst: string }[];
  deliveries: { whe: string; whd: string }[];
  /** Share links (docs/api.md §28) with their gallery. */
  shared: { lst: string; shl: string }[];
  /** Products and invoices (docs/api.md §29); a few invoices are open, so void and payments can succeed. */
  prd: string[];
  ivc: string[];
  /** How many of `ivc` are drafts and how many open: issue's and payments' successes. */
  drafts: number;
  open: number;
  /** MLS profiles (docs/api.md §31); the first gallery uses one, so its compliance can be read. */
  mlp: string[];
}

const emptyPool = (): Pool => ({
  lst: [],
  cli: [],
  ntf: [],
  whe: [],
  evt: [],
  media: [],
  ready: 0,
  assigned: [],
  deliveries: [],
  shared: [],
  prd: [],
  ivc: [],
  drafts: 0,
  open: 0,
  mlp: [],
});

export interface Files {
  jpeg: Buffer;
  pdf: Buffer;
}

export class World {
  readonly ctx: TestContext;
  readonly owner: TestAccount;
  readonly other: TestAccount;
  readonly readOnlyKey: string;
  /** The owner's full test key: only a test key deletes test data (docs/api.md §20). */
  readonly testKey: string;
  readonly files: Files;
  own: Pool = emptyPool();
  foreign: Pool = emptyPool();
  #serial = 0;

  private constructor(
    ctx: TestContext,
    owner: TestAccount,
    other: TestAccount,
    keys: { readOnly: string; test: string },
    files: Files,
  ) {
    this.ctx = ctx;
    this.owner = owner;
    this.other = other;
    this.readOnlyKey = keys.readOnly;
    this.testKey = keys.test;
    this.files = files;
  }

  static async create(ctx: TestContext): Promise<World> {
    const owner = await createAccount(ctx, 'Fuzz studio');
    const other = await createAccount(ctx, 'Other studio');
    const { key } = await createKey(ctx, owner.accountId, { scope: 'read_only' });
    const test = (await createKey(ctx, owner.accountId, { test: true })).key;
    const world = new World(ctx, owner, other, { readOnly: key, test }, { jpeg: await jpeg(), pdf: pdf('fuzz') });
    await world.replenish(other);
    await world.replenish(owner);
    return world;
  }

  async #json(account: TestAccount, method: string, url: string, body?: unknown): Promise<{ id: string }> {
    const res = await call(this.ctx, method, url, { key: account.key, ...(body === undefined ? {} : { body }) });
    if (res.statusCode >= 300) throw new Error(`seeding ${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json<{ id: string }>();
  }

  async #listing(account: TestAccount): Promise<string> {
    this.#serial += 1;
    const body = { address: `${this.#serial} Seed Street`, beds: 3, baths: 2, sqft: 1200, status: 'active' };
    return (await this.#json(account, 'POST', '/v1/listings', body)).id;
  }

  async #client(account: TestAccount): Promise<string> {
    this.#serial += 1;
    const email = `seed${this.#serial}.${randomBytes(3).toString('hex')}@example.test`;
    return (await this.#json(account, 'POST', '/v1/clients', { name: `Seed ${this.#serial}`, email })).id;
  }

  async #media(account: TestAccount, listingId: string): Promise<void> {
    const { body, contentType } = multipart([
      { filename: 'seed.jpg', contentType: 'image/jpeg', data: this.files.jpeg },
      { filename: 'seed.pdf', contentType: 'application/pdf', data: this.files.pdf },
    ]);
    const res = await this.ctx.app.inject({
      method: 'POST',
      url: `/v1/listings/${listingId}/media`,
      headers: { authorization: `Bearer ${account.key}`, 'content-type': contentType },
      payload: body,
    });
    if (res.statusCode !== 201) throw new Error(`seeding media: ${res.statusCode} ${res.body}`);
    // The photo's variants, as the serve process would make them, so variant routes can succeed.
    await makeVariantsNow(this.ctx);
  }

  /**
   * At least a few of everything, in the account (assignments also queue notifications). Reads
   * the pool as last read: call read() after anything that may have removed resources.
   */
  async replenish(account: TestAccount = this.owner): Promise<void> {
    const enough = (p: Pool): boolean =>
      p.lst.length >= 4 &&
      p.cli.length >= 3 &&
      p.media.length >= 3 &&
      p.ready >= 1 &&
      p.assigned.length >= 2 &&
      p.whe.length >= 2 &&
      p.deliveries.length >= 2 &&
      p.shared.length >= 2 &&
      p.prd.length >= 2 &&
      p.drafts >= 2 &&
      p.open >= 2 &&
      p.mlp.length >= 2;
    if (enough(account === this.owner ? this.own : this.foreign)) return;
    let pool = await this.read(account);
    if (enough(pool)) return;
    while (pool.lst.length < 4) pool.lst.push(await this.#listing(account));
    while (pool.cli.length < 3) pool.cli.push(await this.#client(account));
    // The upload fuzz adds media whose variants nobody makes, and deletes may take the ready ones.
    if (pool.media.length < 3 || pool.ready === 0)
      await this.#media(account, pool.lst[0] ?? (await this.#listing(account)));
    if (pool.assigned.length < 2) {
      const cli = await this.#client(account);
      for (const lst of [await this.#listing(account), await this.#listing(account)]) {
        await this.#json(account, 'POST', `/v1/clients/${cli}/listings/${lst}`);
      }
    }
    while (pool.whe.length < 2) {
      // A name no resolver knows: accepted at create (nothing is ever delivered in the fuzz run).
      const url = `https://hooks${this.#serial}.example.test/lightbox`;
      this.#serial += 1;
      pool.whe.push((await this.#json(account, 'POST', '/v1/webhook_endpoints', { url })).id);
    }
    if (pool.deliveries.length < 2) {
      for (const whe of pool.whe.slice(0, 2)) await this.#json(account, 'POST', `/v1/webhook_endpoints/${whe}/test`);
    }
    while (pool.shared.length < 2) {
      const lst = pool.lst[0] ?? (await this.#listing(account));
      this.#serial += 1;
      const shl = (
        await this.#json(account, 'POST', `/v1/listings/${lst}/share_links`, {
          label: `Seed ${this.#serial}`,
          // With an email, so that sending it again (notify) can succeed.
          email: `shared${this.#serial}@example.test`,
        })
      ).id;
      pool.shared.push({ lst, shl });
    }
    while (pool.prd.length < 2) {
      this.#serial += 1;
      const body = { name: `Seed product ${this.#serial}`, unit_amount: 10_000 + this.#serial };
      pool.prd.push((await this.#json(account, 'POST', '/v1/products', body)).id);
    }
    while (pool.mlp.length < 2) {
      this.#serial += 1;
      pool.mlp.push((await this.#json(account, 'POST', '/v1/mls_profiles', { name: `Seed MLS ${this.#serial}` })).id);
    }
    // Every gallery of the pool gets a profile, so each one's compliance can be read.
    for (const lst of pool.lst) {
      await this.#json(account, 'PATCH', `/v1/listings/${lst}`, { mls_profile_id: pool.mlp[0] });
    }
    // Invoices of a gallery with a client: at least two drafts and two open (issued) ones.
    const listing = (await this.read(account)).assigned[0]?.lst;
    for (const open of [
      ...Array(Math.max(0, 2 - pool.drafts)).fill(false),
      ...Array(Math.max(0, 2 - pool.open)).fill(true),
    ]) {
      if (listing === undefined) break;
      const body = { listing_id: listing, items: [{ description: 'Photos', unit_amount: 25_000 }] };
      const ivc = (await this.#json(account, 'POST', '/v1/invoices', body)).id;
      if (open === true) await this.#json(account, 'POST', `/v1/invoices/${ivc}/issue`);
    }
    pool = await this.read(account);
    if (account === this.owner) this.own = pool;
    else this.foreign = pool;
  }

  /** What the account holds now (the newest of each kind). */
  async read(account: TestAccount): Promise<Pool> {
    const db = this.ctx.deps.db.kysely;
    const recent = 12;
    const ids = async (
      table: 'listings' | 'clients' | 'notifications' | 'webhook_endpoints' | 'products' | 'invoices' | 'mls_profiles',
    ): Promise<string[]> =>
      (
        await db
          .selectFrom(table)
          .select('id')
          .where('account_id', '=', account.accountId)
          .orderBy('id', 'desc')
          .limit(recent)
          .execute()
      ).map((r) => r.id);
    const recentMedia = db
      .selectFrom('media')
      .select(['id', 'listing_id'])
      .where('account_id', '=', account.accountId)
      .orderBy('id', 'desc')
      .limit(recent);
    // Photos whose variants are made first, as many as the rest: the fuzz of uploads adds media
    // whose variants nobody makes, and a pool of those alone leaves the variant route no success.
    const ready = await recentMedia.where('variants_status', '=', 'ready').execute();
    const others = await recentMedia.execute();
    const media = [
      ...ready,
      ...others.filter((m) => !ready.some((r) => r.id === m.id)).slice(0, Math.max(ready.length, 3)),
    ];
    const assigned = await db
      .selectFrom('listings')
      .select(['id', 'client_id'])
      .where('account_id', '=', account.accountId)
      .where('client_id', 'is not', null)
      .orderBy('id', 'desc')
      .limit(recent)
      .execute();
    const deliveries = await db
      .selectFrom('webhook_deliveries')
      .select(['id', 'endpoint_id'])
      .where('account_id', '=', account.accountId)
      .orderBy('id', 'desc')
      .limit(recent)
      .execute();
    const events = await db
      .selectFrom('events')
      .select('id')
      .where('account_id', '=', account.accountId)
      .where('listed', '=', 1)
      .orderBy('id', 'desc')
      .limit(recent)
      .execute();
    const shared = await db
      .selectFrom('gallery_links')
      .select(['id', 'listing_id'])
      .where('account_id', '=', account.accountId)
      .where('kind', '=', 'share')
      .orderBy('id', 'desc')
      .limit(recent)
      .execute();
    const products = await ids('products');
    const byStatus = (status: 'draft' | 'open') =>
      db
        .selectFrom('invoices')
        .select('id')
        .where('account_id', '=', account.accountId)
        .where('status', '=', status)
        .orderBy('id', 'desc')
        .limit(recent / 2)
        .execute();
    const drafts = (await byStatus('draft')).map((r) => r.id);
    const open = (await byStatus('open')).map((r) => r.id);
    // Drafts and open ones in turn, then the rest: every scene's neighbour is of the other kind.
    const invoices = [
      ...Array.from({ length: Math.max(drafts.length, open.length) }, (_, i) => [drafts[i], open[i]]).flat(),
      ...(await ids('invoices')),
    ].filter((id, i, all): id is string => id !== undefined && all.indexOf(id) === i);
    const pool: Pool = {
      lst: await ids('listings'),
      cli: await ids('clients'),
      ntf: await ids('notifications'),
      whe: await ids('webhook_endpoints'),
      evt: events.map((e) => e.id),
      media: media.map((m) => ({ lst: m.listing_id, med: m.id })),
      ready: ready.length,
      assigned: assigned.map((a) => ({ cli: a.client_id ?? '', lst: a.id })),
      deliveries: deliveries.map((d) => ({ whe: d.endpoint_id, whd: d.id })),
      shared: shared.map((l) => ({ lst: l.listing_id, shl: l.id })),
      prd: products,
      ivc: invoices,
      drafts: drafts.length,
      open: open.length,
      mlp: await ids('mls_profiles'),
    };
    if (account === this.owner) this.own = pool;
    else this.foreign = pool;
    return pool;
  }

  /** Consistent real ids for the prefixes a path needs; the n-th such scene, cycling. */
  scene(prefixes: Prefix[], n: number, pool: Pool = this.own): Scene {
    const scenes: Scene[] = [
      ...pool.media,
      ...pool.assigned,
      ...pool.deliveries,
      ...pool.shared,
      ...pool.lst.map((lst) => ({ lst })),
      ...pool.cli.map((cli) => ({ cli })),
      ...pool.ntf.map((ntf) => ({ ntf })),
      ...pool.whe.map((whe) => ({ whe })),
      ...pool.evt.map((evt) => ({ evt })),
      ...pool.prd.map((prd) => ({ prd })),
      ...pool.ivc.map((ivc) => ({ ivc })),
      ...pool.mlp.map((mlp) => ({ mlp })),
    ];
    const fitting = scenes.filter((s) => prefixes.every((p) => s[p] !== undefined));
    return fitting[n % Math.max(fitting.length, 1)] ?? {};
  }

  /** A real id of that kind, the n-th (cycling); undefined when the pool has none. */
  any(prefix: Prefix, n: number, pool: Pool = this.own): string | undefined {
    const list =
      prefix === 'med'
        ? pool.media.map((m) => m.med)
        : prefix === 'whd'
          ? pool.deliveries.map((d) => d.whd)
          : prefix === 'shl'
            ? pool.shared.map((l) => l.shl)
            : pool[prefix];
    return list[n % Math.max(list.length, 1)];
  }
}
