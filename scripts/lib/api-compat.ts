// The breaking changes between two OpenAPI 3.1 documents (docs/api-stability.md): what an
// integrator's code, written against the released document, would trip on in the new one.
//   removed-operation   a method and path the released document had
//   removed-field       a property (request or response) or a parameter
//   removed-enum-value  a value an enum (or a union of consts) allowed
//   new-required-field  a request property or parameter now required, a body now required
//   narrowed-type       a request accepts less: a type, a limit, a pattern, an enum where none was;
//                       or a response may hold more types than before (null where there was none)
// Each change is one line, `<kind>: <where>`, the same on every run, so a deliberate one can be
// declared by that line in docs/openapi/declared-changes.json.

type Json = Record<string, unknown>;
type Direction = 'request' | 'response';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Json => (isObject(v) ? v : {});

/** Follows local $refs (#/components/...) to the schema or object they name. */
function resolver(doc: Json): (node: unknown) => Json {
  return (node) => {
    let current = obj(node);
    for (let hops = 0; typeof current.$ref === 'string' && hops < 32; hops += 1) {
      const ref = current.$ref;
      if (!ref.startsWith('#/')) break;
      current = obj(
        ref
          .slice(2)
          .split('/')
          .reduce<unknown>((at, part) => obj(at)[part.replaceAll('~1', '/').replaceAll('~0', '~')], doc),
      );
    }
    return current;
  };
}

/** A schema and the branches it unites (anyOf, oneOf, allOf), each resolved. */
function branches(schema: Json, resolve: (node: unknown) => Json): Json[] {
  const parts = [...arr(schema.anyOf), ...arr(schema.oneOf), ...arr(schema.allOf)].map(resolve);
  return parts.length === 0 ? [schema] : parts.flatMap((part) => branches(part, resolve));
}
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function typesOf(parts: Json[]): Set<string> {
  const types = new Set<string>();
  for (const part of parts) {
    if (typeof part.type === 'string') types.add(part.type);
    else if (Array.isArray(part.type)) for (const t of part.type) types.add(String(t));
    else if (part.const !== undefined) types.add(part.const === null ? 'null' : typeof part.const);
    else if (part.properties !== undefined) types.add('object');
    else types.add('any');
  }
  return types;
}

const covers = (types: Set<string>, t: string): boolean =>
  types.has('any') || types.has(t) || (t === 'integer' && types.has('number'));

/** The values a schema allows, when it lists them (enum, const, a union of those); else undefined. */
function enumOf(parts: Json[]): Set<string> | undefined {
  const values = new Set<string>();
  for (const part of parts) {
    if (part.type === 'null') continue;
    if (Array.isArray(part.enum)) for (const v of part.enum) values.add(JSON.stringify(v));
    else if (part.const !== undefined) values.add(JSON.stringify(part.const));
    else return undefined;
  }
  return values.size === 0 ? undefined : values;
}

const LIMITS_UPPER = ['maxLength', 'maxItems', 'maximum', 'exclusiveMaximum', 'maxProperties'] as const;
const LIMITS_LOWER = ['minLength', 'minItems', 'minimum', 'exclusiveMinimum', 'minProperties'] as const;

/** The first branch of a type, where its limits are. */
const branchOf = (parts: Json[], type: string): Json | undefined =>
  parts.find((p) => p.type === type || (Array.isArray(p.type) && p.type.includes(type)));

export function breakingChanges(released: Json, current: Json): string[] {
  const changes = new Set<string>();
  const oldResolve = resolver(released);
  const newResolve = resolver(current);
  const seen = new Set<string>();

  function compare(oldNode: unknown, newNode: unknown, dir: Direction, at: string): void {
    let where = at;
    const oldRef = obj(oldNode).$ref;
    const newRef = obj(newNode).$ref;
    if (typeof oldRef === 'string' && typeof newRef === 'string') {
      // A named schema is compared once per direction, under its own name: a change in it reads
      // the same whichever operation found it first, and recursive schemas end.
      const key = `${dir} ${oldRef} ${newRef}`;
      if (seen.has(key)) return;
      seen.add(key);
      const name = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);
      where = `${name(oldRef)}${oldRef === newRef ? '' : `->${name(newRef)}`} (${dir})`;
    }
    const oldParts = branches(oldResolve(oldNode), oldResolve);
    const newParts = branches(newResolve(newNode), newResolve);

    const oldTypes = typesOf(oldParts);
    const newTypes = typesOf(newParts);
    if (dir === 'request') {
      for (const t of oldTypes) if (!covers(newTypes, t)) changes.add(`narrowed-type: ${where} no longer accepts ${t}`);
    } else {
      for (const t of newTypes) if (!covers(oldTypes, t)) changes.add(`narrowed-type: ${where} may now be ${t}`);
    }

    const oldEnum = enumOf(oldParts);
    const newEnum = enumOf(newParts);
    if (oldEnum !== undefined && newEnum !== undefined) {
      for (const v of oldEnum) if (!newEnum.has(v)) changes.add(`removed-enum-value: ${where} ${v}`);
    } else if (oldEnum === undefined && newEnum !== undefined && dir === 'request' && !oldTypes.has('any')) {
      changes.add(`narrowed-type: ${where} is now limited to listed values`);
    }

    if (dir === 'request') {
      for (const type of ['string', 'number', 'integer', 'array', 'object']) {
        const before = branchOf(oldParts, type);
        const after = branchOf(newParts, type);
        if (before === undefined || after === undefined) continue;
        for (const limit of LIMITS_UPPER) {
          const b = before[limit];
          const a = after[limit];
          if (typeof a === 'number' && (typeof b !== 'number' || a < b))
            changes.add(`narrowed-type: ${where} ${limit} ${typeof b === 'number' ? String(b) : 'none'} -> ${a}`);
        }
        for (const limit of LIMITS_LOWER) {
          const b = before[limit];
          const a = after[limit];
          if (typeof a === 'number' && (typeof b !== 'number' || a > b))
            changes.add(`narrowed-type: ${where} ${limit} ${typeof b === 'number' ? String(b) : 'none'} -> ${a}`);
        }
        if (typeof after.pattern === 'string' && after.pattern !== before.pattern)
          changes.add(`narrowed-type: ${where} pattern ${after.pattern}`);
      }
    }

    const oldProps = propertiesOf(oldParts);
    const newProps = propertiesOf(newParts);
    for (const [name, schema] of oldProps.properties) {
      const next = newProps.properties.get(name);
      if (next === undefined) changes.add(`removed-field: ${where}.${name}`);
      else compare(schema, next, dir, `${where}.${name}`);
    }
    if (dir === 'request') {
      for (const name of newProps.required)
        if (!oldProps.required.has(name)) changes.add(`new-required-field: ${where}.${name}`);
    }
    const oldItems = oldParts.find((p) => p.items !== undefined)?.items;
    const newItems = newParts.find((p) => p.items !== undefined)?.items;
    if (oldItems !== undefined && newItems !== undefined) compare(oldItems, newItems, dir, `${where}[]`);
  }

  function propertiesOf(parts: Json[]): { properties: Map<string, unknown>; required: Set<string> } {
    const properties = new Map<string, unknown>();
    const required = new Set<string>();
    for (const part of parts) {
      for (const [name, schema] of Object.entries(obj(part.properties))) properties.set(name, schema);
      for (const name of arr(part.required)) required.add(String(name));
    }
    return { properties, required };
  }

  function parametersOf(resolve: (n: unknown) => Json, pathItem: Json, op: Json): Map<string, Json> {
    const params = new Map<string, Json>();
    for (const p of [...arr(pathItem.parameters), ...arr(op.parameters)].map(resolve))
      params.set(`${String(p.in)} parameter ${String(p.name)}`, p);
    return params;
  }

  const oldPaths = obj(released.paths);
  const newPaths = obj(current.paths);
  for (const [path, oldItemNode] of Object.entries(oldPaths)) {
    const oldItem = oldResolve(oldItemNode);
    const newItem = newResolve(newPaths[path]);
    for (const method of METHODS) {
      const oldOp = obj(oldItem[method]);
      if (oldItem[method] === undefined) continue;
      const name = `${method.toUpperCase()} ${path}`;
      if (newItem[method] === undefined) {
        changes.add(`removed-operation: ${name}`);
        continue;
      }
      const newOp = obj(newItem[method]);

      const oldParams = parametersOf(oldResolve, oldItem, oldOp);
      const newParams = parametersOf(newResolve, newItem, newOp);
      for (const [id, param] of oldParams) {
        const next = newParams.get(id);
        if (next === undefined) changes.add(`removed-field: ${name} ${id}`);
        else compare(param.schema, next.schema, 'request', `${name} ${id}`);
      }
      for (const [id, param] of newParams)
        if (param.required === true && oldParams.get(id)?.required !== true)
          changes.add(`new-required-field: ${name} ${id}`);

      const oldBody = oldResolve(oldOp.requestBody);
      const newBody = newResolve(newOp.requestBody);
      if (newBody.required === true && oldBody.required !== true)
        changes.add(`new-required-field: ${name} request body`);
      for (const [type, media] of Object.entries(obj(oldBody.content))) {
        const next = obj(newBody.content)[type];
        if (next === undefined) {
          if (newOp.requestBody !== undefined)
            changes.add(`narrowed-type: ${name} request body no longer takes ${type}`);
          continue;
        }
        compare(obj(media).schema, obj(next).schema, 'request', `${name} request body (${type})`);
      }

      const newResponses = obj(newOp.responses);
      for (const [status, responseNode] of Object.entries(obj(oldOp.responses))) {
        const next = newResolve(newResponses[status]);
        for (const [type, media] of Object.entries(obj(oldResolve(responseNode).content))) {
          const nextMedia = obj(next.content)[type];
          if (nextMedia === undefined) continue;
          compare(obj(media).schema, obj(nextMedia).schema, 'response', `${name} ${status} response (${type})`);
        }
      }
    }
  }
  return [...changes].sort();
}

export interface DeclaredChange {
  change: string;
  reason: string;
}

/** The file's declarations, checked: each names a change and gives a reason. */
export function parseDeclared(text: string): DeclaredChange[] {
  const parsed = JSON.parse(text) as { changes?: unknown };
  const list = arr(parsed.changes);
  return list.map((entry, i) => {
    const e = obj(entry);
    if (typeof e.change !== 'string' || typeof e.reason !== 'string' || e.reason.trim() === '')
      throw new Error(`declared change ${String(i)} needs a "change" and a non-empty "reason"`);
    return { change: e.change, reason: e.reason };
  });
}

/** The breaking changes no declaration covers, and declarations that match no change (stale). */
export function undeclared(
  changes: readonly string[],
  declared: readonly DeclaredChange[],
): { breaking: string[]; stale: string[] } {
  const names = new Set(declared.map((d) => d.change));
  const found = new Set(changes);
  return {
    breaking: changes.filter((c) => !names.has(c)),
    stale: declared.map((d) => d.change).filter((c) => !found.has(c)),
  };
}
