// Runs the fuzz cases of each operation against the app (app.inject) and checks every response
// against the contract: a documented status, never a 5xx, the documented body and headers, the
// status each kind of wrong request must get, and stored values that read back as sent.
import fc from 'fast-check';
import { ERROR_STATUS } from '../../src/errors.ts';
import type { Response } from '../support/test-app.ts';
import { planArb, resolvePath, routerRefuses, type Arm, type Plan } from './cases.ts';
import { explain, validator, type Operation } from './contract.ts';
import { buildMultipart, expectedUploadStatus, uploadedFileCount } from './multipart.ts';
import type { World } from './world.ts';

export interface OperationReport {
  operationId: string;
  cases: number;
  arms: Partial<Record<Arm, number>>;
  statuses: Record<string, number>;
  failure: { message: string; seed: number; path: string | undefined; counterexample: string } | undefined;
}

export interface FuzzOptions {
  runs: number;
  seed?: number;
}

const STATUS_OF: Record<string, number> = ERROR_STATUS;

/** The JSON body the server validates: top-level strings trimmed (src/http/validation.ts). */
function asServerSees(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const trim = (v: unknown): unknown => (typeof v === 'string' ? v.trim() : v);
  // And the strings of a list of small objects (a gallery's tours), one level down, as the server does.
  const trimItem = (item: unknown): unknown =>
    typeof item === 'object' && item !== null && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as Record<string, unknown>).map(([k, v]) => [k, trim(v)]))
      : item;
  return Object.fromEntries(
    Object.entries(body as Record<string, unknown>).map(([k, v]) => [k, Array.isArray(v) ? v.map(trimItem) : trim(v)]),
  );
}

/**
 * Refused before the schema is consulted: a string with NUL or an unpaired surrogate, at the top
 * level or in a list (of strings, or of objects such as an invoice's items).
 */
const notText = (body: unknown): boolean => {
  const bad = (v: unknown): boolean =>
    typeof v === 'string'
      ? v.includes('\u0000') || !v.isWellFormed()
      : Array.isArray(v)
        ? v.some(bad)
        : typeof v === 'object' && v !== null && Object.values(v).some(bad);
  return typeof body === 'object' && body !== null && !Array.isArray(body) && Object.values(body).some(bad);
};

/** What the contract says this plan must get: an exact status, or any documented one but a refusal. */
function expectation(op: Operation, plan: Plan): number | 'accepted' | '4xx' {
  switch (plan.arm) {
    case 'no-key':
      return 401;
    case 'read-only':
      return 403;
    case 'not-found':
      // Bodies are validated before any lookup.
      return routerRefuses(plan.path) || bodyIsValid(op, plan) ? 404 : 400;
    case 'invalid-query':
    case 'invalid-json':
    case 'unexpected-body':
      return 400;
    case 'content-type':
      return 415;
    case 'too-large':
      return 413;
    case 'broken-multipart':
      return '4xx';
    case 'valid':
    case 'invalid-body':
      if (plan.body?.kind === 'multipart') return expectedUploadStatus(plan.body.plan);
      return bodyIsValid(op, plan) ? 'accepted' : 400;
  }
}

/** The oracle: does the JSON body, as the server sees it, meet the documented schema? */
function bodyIsValid(op: Operation, plan: Plan): boolean {
  if (plan.body?.kind !== 'json' || op.body?.type !== 'json') return true;
  const seen = asServerSees(plan.body.value);
  return !notText(seen) && validator(op.body.schema)(seen);
}

/**
 * Ids in a body that must name the caller's own resource for the request to succeed: in every
 * other valid case, a real one in place of the generated text (an invoice's gallery, docs/api.md §29).
 * The plan itself is changed, so the oracle reads back what was sent.
 */
function pointAtRealIds(op: Operation, plan: Plan, world: World): void {
  if (op.operationId !== 'createInvoice' || plan.arm !== 'valid' || plan.body?.kind !== 'json') return;
  const body = plan.body.value as { listing_id?: unknown; items?: unknown };
  if (typeof body !== 'object' || body === null || Array.isArray(body) || plan.path.pick % 2 === 1) return;
  const gallery = world.own.assigned[plan.path.pick % Math.max(world.own.assigned.length, 1)]?.lst;
  if (typeof body.listing_id === 'string' && gallery !== undefined) body.listing_id = gallery;
  // An item names a product of the catalogue, or has its own description and price.
  const product = world.own.prd[plan.path.pick % Math.max(world.own.prd.length, 1)];
  if (!Array.isArray(body.items) || product === undefined) return;
  for (const item of body.items as unknown[]) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) continue;
    const line = item as Record<string, unknown>;
    if (typeof line.product_id === 'string' || line.description === undefined || line.unit_amount === undefined) {
      line.product_id = product;
    }
  }
}

/** Cases sent so far: makes each Idempotency-Key unique (see send). */
let sent = 0;

async function send(op: Operation, plan: Plan, world: World): Promise<Response> {
  const headers: Record<string, string> = { ...plan.headers };
  sent += 1;
  // fast-check's uuids repeat (its bias and its shrinking favour the same edge values), and a key
  // the account used before is a replay of that earlier request: an upload is matched on method
  // and path only, so an empty upload got another case's 201. Every case is a first request here;
  // replays are the idempotency suites' business.
  const key = headers['idempotency-key'];
  if (key !== undefined) headers['idempotency-key'] = `${key}-${sent}`;
  // The owner's full key, but for DELETE /v1/test_data: a test key (a live key is 403 there, by design).
  const full = op.operationId === 'deleteTestData' ? world.testKey : world.owner.key;
  if (plan.arm !== 'no-key') headers.authorization = `Bearer ${plan.arm === 'read-only' ? world.readOnlyKey : full}`;
  let payload: string | Buffer | undefined;
  pointAtRealIds(op, plan, world);
  if (plan.body?.kind === 'json') {
    payload = JSON.stringify(plan.body.value);
    headers['content-type'] = 'application/json';
  } else if (plan.body?.kind === 'raw') {
    payload = plan.body.text;
    headers['content-type'] = plan.body.type;
  } else if (plan.body?.kind === 'multipart') {
    const built = buildMultipart(plan.body.plan, world.files);
    payload = built.body;
    headers['content-type'] = built.contentType;
  }
  // Written into the URL here: inject's `query` object would drop a parameter named __proto__.
  const search = new URLSearchParams();
  for (const [name, value] of plan.query) for (const v of [value].flat()) search.append(name, v);
  const query = search.size === 0 ? '' : `?${search.toString()}`;
  return world.ctx.app.inject({
    method: op.method as 'GET',
    url: `${resolvePath(op, plan.path, world)}${query}`,
    headers,
    ...(payload === undefined ? {} : { payload }),
  });
}

/**
 * Rules of the contract that a schema cannot state, by which a schema-valid body may still be
 * 400: only on these fields, of these operations (docs/api.md §13: the cover must be a photo of the
 * gallery, a position at most n, an order an exact permutation).
 */
const RULE_FIELDS: Record<string, (field: string) => boolean> = {
  // docs/api.md §28: a tour's URL must parse as https with a host and no user name.
  updateListing: (f) => f === 'cover_media_id' || f === 'mls_profile_id' || /^tours\.\d+\.url$/.test(f),
  // docs/api.md §28: selection_min at most selection_max, the stored one counting when one is left out.
  updateClientLink: (f) => f === 'selection_min' || f === 'selection_max',
  createShareLink: (f) => f === 'selection_min' || f === 'selection_max',
  updateShareLink: (f) => f === 'selection_min' || f === 'selection_max',
  // docs/api.md §31: only a photo is staged, and its original is another photo of the gallery.
  updateMedia: (f) => f === 'position' || f === 'virtually_staged' || f === 'original_media_id',
  reorderMedia: (f) => f === 'media_ids' || f.startsWith('media_ids.'),
  // docs/api.md §15: a URL whose host is an internal address (a schema cannot say which are), and
  // "*" beside other event types.
  createWebhookEndpoint: (f) => f === 'url' || f === 'events',
  updateWebhookEndpoint: (f) => f === 'url' || f === 'events',
  // docs/api.md §29: the gallery must be the caller's, a product of its catalogue, the discount at
  // most the subtotal, a payment at most the amount due.
  createInvoice: (f) =>
    f === 'listing_id' || f === 'discount' || /^items\.\d+\.(product_id|description|unit_amount)$/.test(f),
  updateInvoice: (f) => f === 'discount' || /^items\.\d+\.(product_id|description|unit_amount)$/.test(f),
  createPayment: (f) => f === 'amount',
  // docs/api.md §31: min_long_edge at most max_long_edge (the stored one counting when one is left
  // out); a report needs the gallery's profile or one of the studio's named.
  createMlsProfile: (f) => f === 'min_long_edge',
  updateMlsProfile: (f) => f === 'min_long_edge',
  getListingCompliance: (f) => f === 'profile_id',
};

function refusedByRule(op: Operation, res: Response): boolean {
  const rule = RULE_FIELDS[op.operationId];
  if (rule === undefined) return false;
  try {
    const details = JSON.parse(res.body) as { error?: { details?: { field: string }[] } };
    const fields = details.error?.details ?? [];
    return fields.length > 0 && fields.every((d) => rule(d.field));
  } catch {
    return false;
  }
}

/** Everything wrong with the response, as the contract sees it. */
export function problems(op: Operation, plan: Plan, res: Response): string[] {
  const out: string[] = [];
  const status = res.statusCode;
  const documented = op.responses[String(status)] ?? op.responses.default;
  if (status >= 500) out.push(`a ${status}: ${res.body.slice(0, 300)}`);
  if (documented === undefined) out.push(`status ${status} is not documented for ${op.operationId}`);
  const expected = expectation(op, plan);
  if (typeof expected === 'number' && status !== expected) out.push(`expected ${expected}, got ${status}`);
  if (expected === '4xx' && (status < 400 || status >= 500)) out.push(`expected a 4xx, got ${status}`);
  if (expected === 'accepted' && status === 400 && !refusedByRule(op, res)) {
    out.push(`a valid request was refused: ${res.body.slice(0, 300)}`);
  }
  if (documented === undefined) return out;

  for (const name of documented.requiredHeaders) {
    if (res.headers[name] === undefined) out.push(`header ${name} is missing`);
  }
  const contentType = res.headers['content-type'];
  const type = (typeof contentType === 'string' ? contentType : '').split(';')[0] ?? '';
  const types = Object.keys(documented.content);
  if (types.length === 0) {
    if (res.rawPayload.length > 0) out.push(`${status} has a body`);
    return out;
  }
  if (!types.includes(type)) out.push(`content type ${type} is not one of ${types.join(', ')}`);
  const schema = documented.content['application/json'];
  if (type !== 'application/json' || schema === undefined) return out;
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    out.push('the body is not JSON');
    return out;
  }
  const validate = validator(schema);
  if (!validate(body)) out.push(`the body does not match the documented schema: ${explain(validate)}`);
  if (status >= 400) {
    const error = (body as { error?: { code?: string; request_id?: string } }).error;
    if (STATUS_OF[error?.code ?? ''] !== status)
      out.push(`error code ${String(error?.code)} does not go with ${status}`);
    if (error?.request_id !== res.headers['x-request-id']) out.push('error.request_id differs from X-Request-Id');
  }
  out.push(...readBack(op, plan, status, body));
  return out;
}

/**
 * A value reads back what was sent: equal, but for the objects of a list, which may gain the
 * fields the server fills in (an invoice item's product_id, quantity and amount, docs/api.md §29).
 */
function readsBackAs(got: unknown, sent: unknown): boolean {
  if (Array.isArray(sent) && Array.isArray(got)) {
    return sent.length === got.length && sent.every((item, i) => readsBackAs(got[i], item));
  }
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isObject(sent) && isObject(got)) {
    return Object.entries(sent).every(([k, v]) => k in got && JSON.stringify(got[k]) === JSON.stringify(v));
  }
  return JSON.stringify(got) === JSON.stringify(sent);
}

/** A created or changed resource reads back what was sent (strings trimmed), and uploads keep every file. */
function readBack(op: Operation, plan: Plan, status: number, body: unknown): string[] {
  if (status !== 200 && status !== 201) return [];
  if (plan.body?.kind === 'multipart') {
    const count = (body as { data?: unknown[] }).data?.length;
    const files = uploadedFileCount(plan.body.plan);
    return count === files ? [] : [`uploaded ${files} files, the answer lists ${String(count)}`];
  }
  // A JSON body sent to an operation that takes none (`{}`, `null`) has nothing to read back.
  if (plan.body?.kind !== 'json' || op.method === 'GET' || op.body === undefined) return [];
  const sent = asServerSees(plan.body.value) as Record<string, unknown>;
  const got = body as Record<string, unknown>;
  return Object.entries(sent)
    .filter(([k]) => k in got && !readsBackAs(got[k], sent[k]))
    .map(
      ([k]) => `${k} reads back ${JSON.stringify(got[k])?.slice(0, 80)}, sent ${JSON.stringify(sent[k])?.slice(0, 80)}`,
    );
}

const short = (s: string): string => (s.length > 200 ? `${s.slice(0, 60)}…(${s.length} chars)` : s);

/** A plan as a reader would want it in a failure report: without megabytes of padding. */
const describe = (plan: Plan): string =>
  JSON.stringify(plan, (_k, v: unknown) => {
    if (typeof v === 'string') return short(v);
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v).map(([key, value]) => [short(key), value as unknown]));
    }
    return v;
  });

export async function fuzzOperation(op: Operation, world: World, options: FuzzOptions): Promise<OperationReport> {
  const report: OperationReport = { operationId: op.operationId, cases: 0, arms: {}, statuses: {}, failure: undefined };
  const property = fc.asyncProperty(planArb(op), async (plan) => {
    await world.replenish();
    const res = await send(op, plan, world);
    report.cases += 1;
    report.arms[plan.arm] = (report.arms[plan.arm] ?? 0) + 1;
    report.statuses[res.statusCode] = (report.statuses[res.statusCode] ?? 0) + 1;
    // Deletes and unassignments take away what the next case can point at; an invoice's
    // transitions change which of them the next case can issue, pay or void.
    if ((op.method === 'DELETE' || op.path.startsWith('/v1/invoices')) && res.statusCode < 300) {
      await world.read(world.owner);
    }
    const found = problems(op, plan, res);
    if (found.length > 0) throw new Error(`${op.method} ${op.path} -> ${res.statusCode}: ${found.join(' | ')}`);
  });
  const details = await fc.check(property, {
    numRuns: options.runs,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
  });
  if (details.failed) {
    const error = details.errorInstance;
    report.failure = {
      message: error instanceof Error ? error.message : String(error),
      seed: details.seed,
      path: details.counterexamplePath ?? undefined,
      counterexample: details.counterexample === null ? '' : describe(details.counterexample[0]),
    };
  }
  return report;
}
