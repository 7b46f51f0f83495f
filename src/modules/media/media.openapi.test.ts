// docs/api.md §13 in the OpenAPI document: the bodies of PATCH .../media/:media_id, PUT .../media/order
// and the gallery's cover_media_id are documented as the API enforces them, and every string the
// media operations send or take is bounded (the rule `npm run lint:openapi` runs with Spectral:
// owasp:api4:2023-string-limit), so that rule's failures show up in `npm test` too.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { call, createTestContext, type TestContext } from '../../../test/support/test-app.ts';
import { resolve, type Document } from '../../../test/fuzz/contract.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
  minProperties?: number;
  maxLength?: number;
  minimum?: number;
  items?: Schema;
  anyOf?: Schema[];
  format?: string;
  title?: string;
}

interface Operation {
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}

let ctx: TestContext;
let doc: Document;

before(async () => {
  ctx = await createTestContext();
  const res = await call(ctx, 'GET', '/v1/openapi.json');
  assert.equal(res.statusCode, 200, res.body);
  doc = res.json<Document>();
});

after(async () => {
  await ctx.close();
});

const operation = (path: string, method: string): Operation => {
  const op = doc.paths[path]?.[method];
  assert.ok(op !== undefined, `${method.toUpperCase()} ${path} is not in the document`);
  return resolve(doc, op) as unknown as Operation;
};

const jsonBody = (op: Operation): Schema => {
  assert.equal(op.requestBody?.required, true);
  assert.deepEqual(Object.keys(op.requestBody.content), ['application/json']);
  return op.requestBody.content['application/json']!.schema;
};

/** A validator of the documented schema, to compare with what the API enforces. */
const documented = (schema: Schema) => addFormats(new Ajv({ strict: false, allErrors: true })).compile(schema);

describe('docs/api.md §13 in the OpenAPI document', () => {
  test('PATCH media documents caption, hidden, position and the staging fields, at least one, nothing else', () => {
    const op = operation('/v1/listings/{id}/media/{media_id}', 'patch');
    const body = jsonBody(op);
    assert.equal(body.title, 'MediaUpdate');
    assert.equal(body.additionalProperties, false);
    assert.equal(body.minProperties, 1);
    assert.deepEqual(Object.keys(body.properties ?? {}).sort(), [
      'caption',
      'hidden',
      'original_media_id',
      'position',
      'virtually_staged',
    ]);
    // docs/api.md §31.
    assert.equal(body.properties?.virtually_staged?.type, 'boolean');
    assert.deepEqual(body.properties?.original_media_id?.type, ['string', 'null']);
    assert.deepEqual(body.properties?.caption?.type, ['string', 'null']);
    assert.equal(body.properties?.caption?.maxLength, 2000);
    assert.equal(body.properties?.hidden?.type, 'boolean');
    assert.equal(body.properties?.position?.type, 'integer');
    assert.equal(body.properties?.position?.minimum, 1);
    for (const status of ['200', '400', '401', '403', '404']) assert.ok(op.responses[status], `no ${status}`);
    assert.equal(op.responses['200']?.content?.['application/json']?.schema.title, 'Media');

    const valid = documented(body);
    for (const ok of [
      { caption: 'Porch' },
      { caption: null },
      { hidden: true },
      { position: 3 },
      { virtually_staged: true, original_media_id: 'med_01A' },
      { original_media_id: null },
    ]) {
      assert.ok(valid(ok), JSON.stringify(ok));
    }
    for (const bad of [
      {},
      { position: 0 },
      { position: 1.5 },
      { position: '2' },
      { hidden: 'true' },
      { x: 1 },
      { virtually_staged: 1 },
    ]) {
      assert.ok(!valid(bad), JSON.stringify(bad));
    }
    assert.ok(!valid({ caption: 'x'.repeat(2001) }));
  });

  test('PUT order documents media_ids and answers the media list', () => {
    const op = operation('/v1/listings/{id}/media/order', 'put');
    const body = jsonBody(op);
    assert.equal(body.title, 'MediaOrder');
    assert.equal(body.additionalProperties, false);
    assert.deepEqual(body.required, ['media_ids']);
    assert.equal(body.properties?.media_ids?.type, 'array');
    assert.equal(body.properties?.media_ids?.items?.type, 'string');
    for (const status of ['200', '400', '401', '403', '404']) assert.ok(op.responses[status], `no ${status}`);
    const list = op.responses['200']?.content?.['application/json']?.schema;
    assert.equal(list?.title, 'MediaList');
    assert.equal(list?.properties?.data?.items?.title, 'Media');

    const valid = documented(body);
    assert.ok(valid({ media_ids: [] }));
    assert.ok(valid({ media_ids: ['med_01JAAAAAAAAAAAAAAAAAAAAAAA'] }));
    for (const bad of [{}, { media_ids: 'med_x' }, { media_ids: [7] }, { media_ids: [], extra: 1 }]) {
      assert.ok(!valid(bad), JSON.stringify(bad));
    }
  });

  test('the gallery takes and shows cover_media_id; the media object shows caption, hidden and position', () => {
    const update = jsonBody(operation('/v1/listings/{id}', 'patch'));
    assert.deepEqual(update.properties?.cover_media_id?.type, ['string', 'null']);
    const gallery = operation('/v1/listings/{id}', 'get').responses['200']?.content?.['application/json']?.schema;
    assert.ok(gallery?.required?.includes('cover_media_id'));
    assert.deepEqual(
      gallery?.properties?.cover_media_id?.anyOf?.map((s) => s.type),
      ['string', 'null'],
    );
    const media = operation('/v1/listings/{id}/media/{media_id}', 'get').responses['200']?.content?.['application/json']
      ?.schema;
    for (const field of ['caption', 'hidden', 'position']) assert.ok(media?.required?.includes(field), field);
  });

  test('every string the media operations take or answer is bounded (maxLength, enum or const)', () => {
    const unbounded: string[] = [];
    const walk = (value: unknown, where: string): void => {
      if (Array.isArray(value)) {
        value.forEach((v, i) => walk(v, `${where}[${i}]`));
        return;
      }
      if (typeof value !== 'object' || value === null) return;
      const node = value as Record<string, unknown>;
      const types = Array.isArray(node.type) ? (node.type as unknown[]) : [node.type];
      if (types.includes('string') && !('maxLength' in node) && !('enum' in node) && !('const' in node)) {
        unbounded.push(where);
      }
      for (const [key, child] of Object.entries(node)) walk(child, `${where}.${key}`);
    };
    const paths = Object.keys(doc.paths).filter((p) => p.startsWith('/v1/listings/{id}/media'));
    assert.ok(paths.length >= 5, paths.join(', '));
    for (const path of paths) walk(resolve(doc, doc.paths[path]), path);
    assert.deepEqual(unbounded, []);
  });

  test("a variant's documented size follows VARIANT_MLS_SIZE when that box is the largest", async () => {
    const variantMax = (of: Document): number[] => {
      const op = resolve(
        of,
        of.paths['/v1/listings/{id}/media/{media_id}/variants/{name}']?.get,
      ) as unknown as Operation;
      // The images (photos' variants, a video's poster); a video's web rendition is bounded by
      // the per-file limit instead (docs/api.md §25), checked below.
      return ['200', '206'].flatMap((status) =>
        Object.entries(op.responses[status]?.content ?? {})
          .filter(([type]) => type.startsWith('image/'))
          .map(([, c]) => c.schema.maxLength ?? -1),
      );
    };
    const videoMax = (of: Document): number[] => {
      const op = resolve(
        of,
        of.paths['/v1/listings/{id}/media/{media_id}/variants/{name}']?.get,
      ) as unknown as Operation;
      return ['200', '206'].flatMap((status) =>
        Object.entries(op.responses[status]?.content ?? {})
          .filter(([type]) => type.startsWith('video/'))
          .map(([, c]) => c.schema.maxLength ?? -1),
      );
    };
    assert.deepEqual(videoMax(doc), [ctx.config.media.maxFileBytes, ctx.config.media.maxFileBytes]);
    // The default boxes: `large` (2048x2048) is the largest.
    assert.deepEqual(variantMax(doc), Array(4).fill(2048 * 2048 * 4 + 65_536));
    const wide = await createTestContext({ VARIANT_MLS_SIZE: '4000x3000' });
    try {
      const res = await call(wide, 'GET', '/v1/openapi.json');
      assert.deepEqual(variantMax(res.json<Document>()), Array(4).fill(4000 * 3000 * 4 + 65_536));
    } finally {
      await wide.close();
    }
  });
});
