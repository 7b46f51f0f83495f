// The contract as the fuzz suite reads it: every operation of /v1/openapi.json with its
// parameters, body and documented responses, $refs resolved, and Ajv (draft 2020-12, the dialect
// of OpenAPI 3.1) to check values against those schemas.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { App } from '../../src/http/types.ts';
import type { Schema } from './arbitraries.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export interface Param {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Schema;
  /** For an id: the prefix its description names (`lst`, `cli`, ...). */
  prefix: string | undefined;
}

export interface DocumentedResponse {
  /** Media type -> schema (JSON bodies), or binary types; none for 204/304. */
  content: Record<string, Schema | undefined>;
  /** Header names (lower case) the document says are always there. */
  requiredHeaders: string[];
}

export interface Operation {
  operationId: string;
  method: string;
  /** OpenAPI form: /v1/listings/{id}. */
  path: string;
  params: Param[];
  body: { type: 'json' | 'multipart'; schema: Schema } | undefined;
  responses: Record<string, DocumentedResponse>;
  /** The operation needs an API key. */
  secured: boolean;
}

export interface Document {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: Record<string, Record<string, unknown>>;
  security?: unknown[];
}

export async function loadDocument(app: App): Promise<Document> {
  const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
  if (res.statusCode !== 200) throw new Error(`GET /v1/openapi.json answered ${res.statusCode}`);
  return res.json<Document>();
}

/** Every $ref replaced by what it points to (the API's schemas are not recursive). */
export function resolve<T>(doc: Document, value: T): T {
  if (Array.isArray(value)) return value.map((v: unknown) => resolve(doc, v)) as T;
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  if (typeof record.$ref === 'string') {
    const [, section = '', name = ''] = /^#\/components\/([^/]+)\/(.+)$/.exec(record.$ref) ?? [];
    const target = doc.components[section]?.[name];
    if (target === undefined) throw new Error(`dangling $ref ${record.$ref}`);
    const siblings = Object.fromEntries(Object.entries(record).filter(([k]) => k !== '$ref'));
    return { ...(resolve(doc, target) as object), ...siblings } as T;
  }
  // $id dropped: the same component inlined in many places must not clash in one Ajv.
  return Object.fromEntries(
    Object.entries(record)
      .filter(([k]) => k !== '$id')
      .map(([k, v]) => [k, resolve(doc, v)]),
  ) as T;
}

const PREFIX = /`([a-z]+)_\.\.\.`/;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function operations(doc: Document): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const raw = item[method];
      if (raw === undefined) continue;
      const op = resolve(doc, raw) as {
        operationId: string;
        tags?: string[];
        security?: unknown[];
        parameters?: { name: string; in: Param['in']; required?: boolean; schema: Schema; description?: string }[];
        requestBody?: { content: Record<string, { schema: Schema }> };
        responses: Record<
          string,
          { content?: Record<string, { schema?: Schema }>; headers?: Record<string, { required?: boolean }> }
        >;
      };
      // The tus protocol's operations (docs/api.md §16) speak headers, not JSON: their refusals are
      // tested in test/support/tus-cases.ts and by the security and tenant-isolation suites.
      if (op.tags?.includes('Uploads') === true) continue;
      // The upload's form is fuzzed; its JSON body (media from a URL, docs/api.md §21) makes the
      // service fetch a URL, and is tested with loopback servers in media.from-url.test.ts.
      const content = op.requestBody?.content ?? {};
      const body =
        content['multipart/form-data'] !== undefined
          ? { type: 'multipart' as const, schema: content['multipart/form-data'].schema }
          : content['application/json'] !== undefined
            ? { type: 'json' as const, schema: content['application/json'].schema }
            : undefined;
      out.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        params: (op.parameters ?? []).map((p) => ({
          name: p.name,
          in: p.in,
          required: p.required === true,
          schema: p.schema,
          prefix: PREFIX.exec(`${p.description ?? ''} ${JSON.stringify(p.schema.description ?? '')}`)?.[1],
        })),
        body,
        responses: Object.fromEntries(
          Object.entries(op.responses).map(([status, r]) => [
            status,
            {
              content: Object.fromEntries(Object.entries(r.content ?? {}).map(([type, m]) => [type, m.schema])),
              requiredHeaders: Object.entries(r.headers ?? {})
                .filter(([, h]) => h.required === true)
                .map(([name]) => name.toLowerCase()),
            },
          ]),
        ),
        secured: op.security === undefined ? (doc.security ?? []).length > 0 : op.security.length > 0,
      });
    }
  }
  return out;
}

/** One Ajv for the whole suite: strict types (no coercion), every format the document uses. */
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false, allowUnionTypes: true, validateFormats: true }));
// OpenAPI's own format for raw bytes: a body, not a JSON string to check.
ajv.addFormat('binary', true);
const compiled = new WeakMap<Schema, ValidateFunction>();

/** The validator of a schema of the (resolved) document, compiled once. */
export function validator(schema: Schema): ValidateFunction {
  let fn = compiled.get(schema);
  if (fn === undefined) {
    fn = ajv.compile(schema);
    compiled.set(schema, fn);
  }
  return fn;
}

/** Ajv's complaints, short enough for a failure message. */
export function explain(fn: ValidateFunction): string {
  return (fn.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}`)
    .join('; ');
}

/** Fastify's path form of an OpenAPI path: /v1/listings/{id} -> /v1/listings/:id. */
export const fastifyPath = (path: string): string => path.replace(/\{([^}]+)\}/g, ':$1');
