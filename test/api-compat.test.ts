// The API stability check (scripts/api-compat.ts, docs/api-stability.md): each kind of breaking
// change planted in a copy of the released OpenAPI document is caught, additions are not, a
// declared change passes, and the script run by `./run lint` exits 1 on a planted removal and 0
// on the document the app serves today.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { breakingChanges, parseDeclared, undeclared } from '../scripts/lib/api-compat.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RELEASED = path.join(ROOT, 'docs/openapi/released.json');
const released = JSON.parse(readFileSync(RELEASED, 'utf8')) as Record<string, any>;

/** The released document with one change planted. */
function planted(change: (doc: any) => void): Record<string, unknown> {
  const doc = structuredClone(released);
  change(doc);
  return doc;
}

const schemas = (doc: any): Record<string, any> => doc.components.schemas as Record<string, any>;

describe('breakingChanges', () => {
  test('the released document against itself: none', () => {
    assert.deepEqual(breakingChanges(released, released), []);
  });

  const cases: [string, (doc: any) => void, string[]][] = [
    [
      'a removed operation',
      (d) => delete d.paths['/v1/listings/{id}'].get,
      ['removed-operation: GET /v1/listings/{id}'],
    ],
    [
      'a removed response field',
      (d) => {
        delete schemas(d).Listing.properties.mls_number;
        schemas(d).Listing.required = schemas(d).Listing.required.filter((n: string) => n !== 'mls_number');
      },
      ['removed-field: Listing (response).mls_number'],
    ],
    [
      'a removed request field',
      (d) => delete schemas(d).ListingCreate.properties.sqft,
      ['removed-field: ListingCreate (request).sqft'],
    ],
    [
      'a removed query parameter',
      (d) => {
        const op = d.paths['/v1/listings'].get;
        op.parameters = op.parameters.filter((p: any) => p.name !== 'mls_number');
      },
      ['removed-field: GET /v1/listings query parameter mls_number'],
    ],
    [
      'a removed enum value',
      (d) => {
        schemas(d).ListingStatus.enum = ['draft', 'active'];
      },
      [
        'removed-enum-value: ListingStatus (request) "archived"',
        'removed-enum-value: ListingStatus (response) "archived"',
      ],
    ],
    [
      'a new required request field',
      (d) => {
        schemas(d).ListingCreate.properties.region = { type: 'string' };
        schemas(d).ListingCreate.required.push('region');
      },
      ['new-required-field: ListingCreate (request).region'],
    ],
    [
      'an optional request field made required',
      (d) => {
        schemas(d).ListingCreate.required.push('beds');
      },
      ['new-required-field: ListingCreate (request).beds'],
    ],
    [
      'a new required query parameter',
      (d) => {
        d.paths['/v1/listings'].get.parameters.push({ in: 'query', name: 'region', required: true, schema: {} });
      },
      ['new-required-field: GET /v1/listings query parameter region'],
    ],
    [
      'a request type narrowed: null no longer accepted',
      (d) => (schemas(d).ListingCreate.properties.beds.type = 'number'),
      ['narrowed-type: ListingCreate (request).beds no longer accepts null'],
    ],
    [
      'a request number narrowed to integers',
      (d) => (schemas(d).ListingCreate.properties.sqft.type = ['integer', 'null']),
      ['narrowed-type: ListingCreate (request).sqft no longer accepts number'],
    ],
    [
      'a request limit tightened',
      (d) => (schemas(d).ListingCreate.properties.address.maxLength = 200),
      ['narrowed-type: ListingCreate (request).address maxLength 500 -> 200'],
    ],
    [
      'a response field that may now be null',
      (d) => (schemas(d).Listing.properties.address = { anyOf: [{ type: 'string' }, { type: 'null' }] }),
      ['narrowed-type: Listing (response).address may now be null'],
    ],
  ];
  for (const [name, change, expected] of cases) {
    test(`catches ${name}`, () => {
      assert.deepEqual(breakingChanges(released, planted(change)), expected);
    });
  }

  test('additions break nothing: a new operation, an optional request field, a response field, an enum value', () => {
    const grown = planted((d) => {
      d.paths['/v1/things'] = { get: { responses: { 200: { description: 'ok' } } } };
      schemas(d).ListingCreate.properties.region = { type: 'string' };
      schemas(d).Listing.properties.region = { type: 'string' };
      schemas(d).ListingStatus.enum.push('sold');
      schemas(d).ListingCreate.properties.address.maxLength = 1000;
    });
    assert.deepEqual(breakingChanges(released, grown), []);
  });
});

describe('declared changes', () => {
  test('a declared change passes; a declaration matching nothing is reported as stale', () => {
    const changes = ['removed-operation: GET /v1/listings/{id}', 'removed-field: Listing (response).address'];
    const declared = parseDeclared(
      JSON.stringify({
        changes: [
          { change: 'removed-operation: GET /v1/listings/{id}', reason: 'sunset on 2027-01-01 (deprecated since 0.2)' },
          { change: 'removed-field: Client (response).phone', reason: 'never filled' },
        ],
      }),
    );
    assert.deepEqual(undeclared(changes, declared), {
      breaking: ['removed-field: Listing (response).address'],
      stale: ['removed-field: Client (response).phone'],
    });
  });

  test('a declaration without a reason is refused', () => {
    assert.throws(
      () => parseDeclared(JSON.stringify({ changes: [{ change: 'removed-operation: GET /x' }] })),
      /reason/,
    );
    assert.throws(() => parseDeclared(JSON.stringify({ changes: [{ change: 'x', reason: ' ' }] })), /reason/);
  });

  test('the committed declarations all have reasons', () => {
    parseDeclared(readFileSync(path.join(ROOT, 'docs/openapi/declared-changes.json'), 'utf8'));
  });
});

describe('scripts/api-compat.ts, as ./run lint runs it', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'lightbox-api-compat-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const run = (...args: string[]) =>
    spawnSync(process.execPath, [path.join(ROOT, 'scripts/api-compat.ts'), ...args], { encoding: 'utf8' });

  test('exits 1 on a planted removal, naming it; 0 once it is declared with a reason', async () => {
    const current = path.join(dir, 'current.json');
    await writeFile(current, JSON.stringify(planted((d) => delete d.paths['/v1/listings/{id}'].delete)));
    const failed = run('--current', current);
    assert.equal(failed.status, 1, failed.stdout + failed.stderr);
    assert.match(failed.stderr, /^ {2}removed-operation: DELETE \/v1\/listings\/\{id\}$/m);
    assert.match(failed.stderr, /declared-changes\.json/);

    const declared = path.join(dir, 'declared.json');
    const change = 'removed-operation: DELETE /v1/listings/{id}';
    await writeFile(declared, JSON.stringify({ changes: [{ change, reason: 'galleries are archived instead' }] }));
    const passed = run('--current', current, '--declared', declared);
    assert.equal(passed.status, 0, passed.stdout + passed.stderr);
    assert.match(passed.stdout, /declared: removed-operation: DELETE \/v1\/listings\/\{id\} \(galleries are archived/);
  });

  test('the document the app serves today breaks nothing released', () => {
    const result = run();
    assert.equal(result.status, 0, result.stdout + result.stderr);
  });
});
