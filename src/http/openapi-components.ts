// Names the resource schemas in the OpenAPI document. The routes validate and serialise with
// plain TypeBox schemas, inlined by @fastify/swagger into every operation; each resource schema
// carries a `title` (Listing, ListingItem, Pagination, ...). This moves every titled schema to
// components.schemas under its title and leaves a $ref in its place, so generated clients
// (openapi-typescript and the like) get one named type per resource instead of anonymous copies.
// Only the document changes: validation and serialisation keep using the schemas as written.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface Document {
  components?: { schemas?: Record<string, Json> };
  paths?: Record<string, Json>;
}

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** JSON with object keys sorted, so that two copies of one schema compare equal. */
function canonical(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (!isObject(value)) return JSON.stringify(value);
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k] ?? null)}`).join(',')}}`;
}

/** A JSON Schema object, as opposed to a map of them (`properties`) or an operation. */
const isSchema = (value: JsonObject): boolean =>
  typeof value.type === 'string' || Array.isArray(value.type) || Array.isArray(value.anyOf) || 'enum' in value;

/** The document with every titled schema a component, referenced by `$ref` wherever it was. */
export function withNamedSchemas<T extends object>(input: T): T {
  const doc = input as Document;
  const named = new Map<string, { schema: JsonObject; canonical: string }>();

  const hoist = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(hoist);
    if (!isObject(node)) return node;
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(node)) out[key] = hoist(value);
    const { title } = out;
    if (typeof title !== 'string' || !isSchema(out)) return out;
    const form = canonical(out);
    const seen = named.get(title);
    // Two different schemas under one name would give a client one type for both: refuse to build.
    if (seen !== undefined && seen.canonical !== form) {
      throw new Error(`OpenAPI: two different schemas are titled ${title}; give each its own title`);
    }
    named.set(title, { schema: out, canonical: form });
    return { $ref: `#/components/schemas/${title}` };
  };

  const paths = hoist(doc.paths ?? {});
  doc.paths = isObject(paths) ? paths : {};
  const existing = doc.components?.schemas ?? {};
  const schemas: Record<string, Json> = {};
  // Schemas already named (Error) keep their place; what they hold is named too.
  for (const [name, schema] of Object.entries(existing)) {
    schemas[name] = isObject(schema)
      ? Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, hoist(v)]))
      : schema;
  }
  for (const [name, { schema }] of named) {
    if (name in existing) throw new Error(`OpenAPI: a schema titled ${name} would replace the component ${name}`);
    schemas[name] = schema;
  }
  doc.components = {
    ...doc.components,
    schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
  };
  return input;
}
