// Fuzz cases of one operation, derived from its documented parameters and body. Each case is a
// plan (which arm, which ids, which values), turned into a concrete request at run time against
// the world as it is then, with the status the contract expects of it.
import fc from 'fast-check';
import { invalid, text, unknownField, valid, type Schema } from './arbitraries.ts';
import type { Operation, Param } from './contract.ts';
import { multipartArb, type MultipartPlan } from './multipart.ts';
import type { Prefix, World } from './world.ts';

/** How a case departs from a valid request (at most one way at a time). */
export type Arm =
  | 'valid'
  | 'no-key'
  | 'read-only'
  | 'not-found'
  | 'invalid-query'
  | 'invalid-body'
  | 'invalid-json'
  | 'content-type'
  | 'too-large'
  | 'unexpected-body'
  | 'broken-multipart';

type PathMode = 'scene' | 'mixed' | 'missing' | 'foreign' | 'garbage';

export interface Plan {
  arm: Arm;
  path: { mode: PathMode; pick: number; which: number; garbage: string; raw: boolean };
  query: [string, string | string[]][];
  /** A JSON value, or raw text (invalid JSON, oversize), or a multipart plan. */
  body:
    | { kind: 'json'; value: unknown }
    | { kind: 'raw'; text: string; type: string }
    | { kind: 'multipart'; plan: MultipartPlan }
    | undefined;
  headers: Record<string, string>;
}

/** Ids of a wrong shape, or of no resource: a path holding one is simply not found. */
const GARBAGE = fc.oneof(
  // Well-formed (a URL cannot carry a lone surrogate), and not `.` or `..`, which every HTTP
  // client resolves away, encoded or not, before sending (RFC 3986, WHATWG URL).
  text(1, 40)
    .map((s) => s.toWellFormed())
    .filter((s) => !/^\.{1,2}$/.test(s)),
  fc.constantFrom(
    '.x',
    'lst_',
    'cli_',
    `lst_${'A'.repeat(37)}`,
    'LST_01J00000000000000000000000',
    'lst_01J0000000000000000000000%',
    'null',
    'undefined',
    '0',
    '-1',
    'media',
    '%',
    'lst_%00',
    ' lst_x',
    'x'.repeat(1025),
  ),
);
const pathPlan = (mode: fc.Arbitrary<PathMode>) =>
  fc.record({
    mode,
    pick: fc.nat(1000),
    which: fc.nat(10),
    garbage: GARBAGE,
    raw: fc.boolean(),
  });

const stringify = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** Names no operation declares as a query parameter: refused on every /v1 route (docs/api.md §2). */
const UNKNOWN_QUERY = fc.oneof(
  fc.constantFrom('foo', 'sort', 'q', 'cursor', 'client_id', 'expand', 'Status', 'page[size]'),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
);

/** docs/api.md §33's OData `$filter`: clauses of its three forms joined by `and` (quotes doubled). */
const odataFilter: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      fc
        .tuple(fc.constantFrom('ResourceRecordKey', 'ResourceRecordID'), fc.string({ maxLength: 60 }))
        .map(([field, value]) => `${field} eq '${value.replaceAll("'", "''")}'`),
      fc
        .tuple(
          fc.constantFrom('gt', 'ge'),
          fc.date({
            min: new Date('0001-01-02T00:00:00Z'),
            max: new Date('9999-12-30T00:00:00Z'),
            noInvalidDate: true,
          }),
        )
        .map(([op, at]) => `MediaModificationTimestamp ${op} ${at.toISOString()}`),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((clauses) => clauses.join(' and '));

/** Query parameters with a grammar of their own: their valid values are drawn from it, not from the schema. */
const GRAMMARS: Record<string, fc.Arbitrary<string>> = { $filter: odataFilter };

function queryArb(params: Param[], arm: 'valid' | 'invalid'): fc.Arbitrary<[string, string | string[]][]> {
  const query = params.filter((p) => p.in === 'query');
  // A cursor is opaque and signed by the server (docs/api.md §19): no generated one is valid, so
  // the valid arm leaves it out and the invalid arm sends made-up ones.
  const validEntries = fc.tuple(
    ...query
      .filter((p) => p.name !== 'cursor')
      .map((p) =>
        fc.option((GRAMMARS[p.name] ?? valid(p.schema).map(stringify)).map((v): [string, string] => [p.name, v])),
      ),
  );
  const valids = validEntries.map((entries) => entries.filter((e): e is [string, string] => e !== null));
  if (arm === 'valid') return valids;
  // An unknown parameter, beside valid ones.
  const unknown = fc
    .tuple(
      UNKNOWN_QUERY.filter((name) => !query.some((p) => p.name === name)),
      fc.string({ maxLength: 10 }),
    )
    .map(([name, value]): [string, string] => [name, value]);
  const bad = fc.oneof(
    unknown,
    ...query.map((p) =>
      fc
        .oneof(
          invalidQueryText(p.schema),
          fc.tuple(fc.nat(5), fc.nat(5)).map(([a, b]) => [String(a), String(b)]),
        )
        .map((v): [string, string | string[]] => [p.name, v]),
    ),
  );
  return fc.tuple(valids, bad).map(([entries, wrong]) => [...entries.filter((e) => e[0] !== wrong[0]), wrong]);
}

/** Query text the parameter refuses: not an integer, out of range, not in the enum, too long, NUL. */
function invalidQueryText(schema: Schema): fc.Arbitrary<string> {
  const out: fc.Arbitrary<string>[] = [fc.constant('a\u0000b')];
  if (schema.type === 'integer') {
    const min = Number(schema.minimum ?? 1);
    const max = typeof schema.maximum === 'number' && schema.maximum < 1e300 ? schema.maximum : undefined;
    out.push(
      fc.constantFrom('', 'abc', '1.5', '0x10', '1e3', ' 5', '+5', '5 ', '١', 'NaN', 'Infinity', '9'.repeat(400)),
      fc.constant(String(min - 1)),
      fc.integer({ min: -1_000_000, max: min - 1 }).map(String),
    );
    if (max !== undefined) out.push(fc.integer({ min: max + 1, max: max + 1_000_000 }).map(String));
  } else if (Array.isArray(schema.enum)) {
    out.push(fc.constantFrom('', 'DRAFT', 'unknown', 'queued ', 'sent,failed'));
  } else if (typeof schema.maxLength === 'number') {
    out.push(fc.constant('s'.repeat(schema.maxLength + 1)), fc.constant('é'.repeat(schema.maxLength + 1)));
  }
  return fc.oneof(...out);
}

/** A JSON body with one thing wrong: a field's value, a missing required field, an unknown field, the shape. */
function invalidBody(schema: Schema): fc.Arbitrary<unknown> {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
  const required = (schema.required ?? []) as string[];
  const base = valid(schema) as fc.Arbitrary<Record<string, unknown>>;
  const options: fc.Arbitrary<unknown>[] = [
    fc.constantFrom<unknown>([], 'text', 42, null, true, [{}]),
    fc
      .tuple(base, unknownField, fc.jsonValue({ maxDepth: 1 }))
      .map(([body, name, value]) => JSON.parse(JSON.stringify({ ...body, [name]: value })) as unknown),
  ];
  if (properties.length > 0) {
    options.push(
      fc
        .tuple(base, fc.oneof(...properties.map(([name, p]) => fc.tuple(fc.constant(name), invalid(p)))))
        .map(([body, [name, value]]) => ({ ...body, [name]: value })),
    );
  }
  if (required.length > 0) {
    options.push(
      fc
        .tuple(base, fc.constantFrom(...required))
        .map(([body, name]) => Object.fromEntries(Object.entries(body).filter(([key]) => key !== name))),
    );
  }
  if (typeof schema.minProperties === 'number') options.push(fc.constant({}));
  return fc.oneof(...options);
}

const INVALID_JSON = fc.constantFrom('{', '{"address":', '{"a":1,}', "{'a':1}", 'nul', '[1,2', '{"a":"\\x"}', '\u0000');

/** Every arm that applies to the operation, each an arbitrary of plans. */
export function planArb(op: Operation): fc.Arbitrary<Plan> {
  const hasPath = op.params.some((p) => p.in === 'path');
  // Every /v1 route refuses a query parameter it does not declare (the health checks are not /v1).
  const checksQuery = op.path.startsWith('/v1/');
  const json = op.body?.type === 'json' ? op.body.schema : undefined;
  const multipart = op.body?.type === 'multipart';
  const writes = op.method !== 'GET';
  const realPath = pathPlan(fc.constantFrom<PathMode>('scene', 'scene', 'scene', 'scene', 'mixed'));
  const validQuery = queryArb(op.params, 'valid');
  // An operation that takes no body takes `{}` and `null` as none (many clients send one).
  const noBody = fc.oneof(
    { weight: 4, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>({}, null).map((value) => ({ kind: 'json' as const, value })) },
  );
  const validBody: fc.Arbitrary<Plan['body']> = json
    ? valid(json).map((value) => ({ kind: 'json' as const, value }))
    : multipart
      ? multipartArb.map((plan) => ({ kind: 'multipart' as const, plan }))
      : noBody;
  const idempotency = fc.option(
    fc.uuid().map((k) => ({ 'idempotency-key': k })),
    { nil: {} },
  );
  const plan = (
    arm: Arm,
    parts: { path?: fc.Arbitrary<Plan['path']>; query?: typeof validQuery; body?: fc.Arbitrary<Plan['body']> } = {},
  ): fc.Arbitrary<Plan> =>
    fc.record({
      arm: fc.constant(arm),
      path: parts.path ?? realPath,
      query: parts.query ?? validQuery,
      body: parts.body ?? validBody,
      headers: op.method === 'POST' && arm === 'valid' ? idempotency : fc.constant({}),
    });

  const arms: fc.WeightedArbitrary<Plan>[] = [{ weight: 10, arbitrary: plan('valid') }];
  if (op.secured) arms.push({ weight: 2, arbitrary: plan('no-key') });
  if (op.secured && writes) arms.push({ weight: 1, arbitrary: plan('read-only') });
  if (hasPath) {
    const modes = fc.constantFrom<PathMode>('missing', 'foreign', 'garbage', 'garbage');
    arms.push({ weight: 4, arbitrary: plan('not-found', { path: pathPlan(modes) }) });
  }
  if (checksQuery) {
    arms.push({ weight: 4, arbitrary: plan('invalid-query', { query: queryArb(op.params, 'invalid') }) });
  }
  if (json !== undefined) {
    const raw = (t: fc.Arbitrary<string>, type = 'application/json') =>
      t.map((text) => ({ kind: 'raw' as const, text, type }));
    arms.push(
      {
        weight: 6,
        arbitrary: plan('invalid-body', { body: invalidBody(json).map((value) => ({ kind: 'json', value })) }),
      },
      { weight: 1, arbitrary: plan('invalid-json', { body: raw(INVALID_JSON) }) },
      {
        weight: 1,
        arbitrary: plan('content-type', {
          body: raw(fc.constant('{"address":"1 Road"}'), 'text/plain').chain((b) =>
            fc
              .constantFrom(
                'text/plain',
                'application/x-www-form-urlencoded',
                'application/xml',
                'multipart/form-data; boundary=x',
              )
              .map((type) => ({ ...b, type })),
          ),
        }),
      },
      {
        weight: 1,
        arbitrary: plan('too-large', { body: raw(fc.constant(`{"address":"${'a'.repeat(1024 * 1024)}"}`)) }),
      },
    );
  }
  if (writes && op.body === undefined) {
    arms.push({
      weight: 2,
      arbitrary: plan('unexpected-body', {
        body: fc
          .jsonValue({ maxDepth: 2 })
          .filter((value) => value !== null && !(typeof value === 'object' && Object.keys(value).length === 0))
          .map((value) => ({ kind: 'json' as const, value })),
      }),
    });
  }
  if (multipart) {
    arms.push(
      {
        weight: 1,
        arbitrary: plan('content-type', {
          // Not JSON: an upload route may also take a JSON body (media from a URL, docs/api.md §21).
          body: fc
            .constantFrom('text/plain', 'application/xml')
            .map((type) => ({ kind: 'raw' as const, text: '{}', type })),
        }),
      },
      {
        weight: 2,
        arbitrary: plan('broken-multipart', {
          body: fc
            .constantFrom(
              '--x\r\nContent-Disposition: form-data; name="files"; filename="a.jpg"\r\n\r\nabc',
              'garbage',
              '',
            )
            .map((text) => ({ kind: 'raw' as const, text, type: 'multipart/form-data; boundary=x' })),
        }),
      },
    );
  }
  return fc.oneof(...arms);
}

/** Sent as they are, not percent-encoded: malformed escapes, encoded separators and NUL. */
const RAW_GARBAGE = ['%zz', '%', '%E0%A4%A', '%2F', '%2e%2ex', 'a%00b', '%C0%AF', 'lst_%2F..%2F', '%FF%FE'];

/**
 * The router refuses the path before anything else looks at the request (so a 404 even when the
 * body is invalid): a malformed percent-escape, or a segment over the 1,024-character limit.
 */
export function routerRefuses(plan: Plan['path']): boolean {
  if (plan.mode !== 'garbage') return false;
  if (!plan.raw) return encodeURIComponent(plan.garbage).length > 1024;
  try {
    decodeURIComponent(RAW_GARBAGE[plan.pick % RAW_GARBAGE.length] ?? '%zz');
    return false;
  } catch {
    return true;
  }
}

/** The path with its ids, as the plan says, from the world as it is now. */
export function resolvePath(op: Operation, plan: Plan['path'], world: World): string {
  const params = op.params.filter((p) => p.in === 'path');
  // A parameter of a closed set (a variant's name) takes one of its values; the rest are ids.
  const choices = (p: Param): unknown[] | undefined => (Array.isArray(p.schema.enum) ? p.schema.enum : undefined);
  const idParams = params.filter((p) => choices(p) === undefined);
  const prefixes = idParams.map((p) => (p.prefix ?? 'lst') as Prefix);
  const scene = world.scene(prefixes, plan.pick);
  const ids = idParams.map((p, i) => {
    const prefix = prefixes[i] ?? 'lst';
    const real = plan.mode === 'mixed' ? world.any(prefix, plan.pick + i * 7) : scene[prefix];
    return { name: p.name, prefix, value: real ?? `${prefix}_0000000000000000000000NONE`, encode: true };
  });
  const closed = params.flatMap((p) => {
    const set = choices(p);
    return set === undefined ? [] : [{ name: p.name, value: String(set[plan.pick % set.length]), encode: true }];
  });
  const values = [...ids, ...closed];
  const target = ids[plan.which % Math.max(ids.length, 1)];
  if (target !== undefined) {
    const missing = `${target.prefix}_0000000000000000000000ZZZZ`;
    if (plan.mode === 'missing') target.value = missing;
    if (plan.mode === 'foreign') {
      target.value =
        world.scene(prefixes, plan.pick, world.foreign)[target.prefix] ??
        world.any(target.prefix, plan.pick, world.foreign) ??
        missing;
    }
    if (plan.mode === 'garbage') {
      target.value = plan.raw ? (RAW_GARBAGE[plan.pick % RAW_GARBAGE.length] ?? '%zz') : plan.garbage;
      target.encode = !plan.raw;
    }
  }
  let url = op.path;
  for (const v of values) url = url.replace(`{${v.name}}`, v.encode ? encodeURIComponent(v.value) : v.value);
  return url;
}
