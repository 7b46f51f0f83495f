import type { IDataObject, IExecuteFunctions, IHttpRequestMethods, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { lightboxRequest } from '../shared';

// The Product resource (docs/api.md §29): the studio's catalogue (photos, video, drone, floor plan...).
// A price is an integer in the account currency's minor unit (cents: 2500 is 25.00), never a float.

const show = (operation: string[]) => ({ show: { resource: ['product'], operation } });

const details: INodeProperties[] = [
  {
    displayName: 'Active',
    name: 'active',
    type: 'boolean',
    default: true,
    description: 'Whether the product is offered for new invoices in the dashboard',
  },
  {
    displayName: 'Description',
    name: 'description',
    type: 'string',
    typeOptions: { rows: 3 },
    default: '',
  },
];

export const productOperations: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['product'] } },
    default: 'create',
    options: [
      { name: 'Create', value: 'create', action: 'Create a product' },
      {
        name: 'Delete',
        value: 'delete',
        action: 'Delete a product',
        description: 'Invoices keep the name and price they copied from it',
      },
      { name: 'Get', value: 'get', action: 'Get a product' },
      { name: 'Get Many', value: 'getAll', action: 'Get many products' },
      { name: 'Update', value: 'update', action: 'Update a product' },
    ],
  },
];

export const productFields: INodeProperties[] = [
  {
    displayName: 'Product ID',
    name: 'productId',
    type: 'string',
    required: true,
    default: '',
    placeholder: 'prd_...',
    displayOptions: show(['delete', 'get', 'update']),
  },
  {
    displayName: 'Name',
    name: 'name',
    type: 'string',
    required: true,
    default: '',
    placeholder: 'Twilight photos',
    description: 'What the studio sells, as invoices show it',
    displayOptions: show(['create']),
  },
  {
    displayName: 'Price (Cents)',
    name: 'unit_amount',
    type: 'number',
    required: true,
    typeOptions: { minValue: 0, numberPrecision: 0 },
    default: 0,
    description: "The price of one, in the currency's minor unit: 2500 is 25.00",
    displayOptions: show(['create']),
  },
  {
    displayName: 'Additional Fields',
    name: 'additionalFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    displayOptions: show(['create']),
    options: details,
  },
  {
    displayName: 'Update Fields',
    name: 'updateFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    displayOptions: show(['update']),
    options: [
      ...details,
      { displayName: 'Name', name: 'name', type: 'string', default: '' },
      {
        displayName: 'Price (Cents)',
        name: 'unit_amount',
        type: 'number',
        typeOptions: { minValue: 0, numberPrecision: 0 },
        default: 0,
        description: "The price of one, in the currency's minor unit: 2500 is 25.00",
      },
    ],
  },
  {
    displayName: 'Return All',
    name: 'returnAll',
    type: 'boolean',
    default: false,
    description: 'Whether to return all results or only up to a given limit',
    displayOptions: show(['getAll']),
  },
  {
    displayName: 'Limit',
    name: 'limit',
    type: 'number',
    typeOptions: { minValue: 1 },
    default: 50,
    description: 'Max number of results to return',
    displayOptions: { show: { resource: ['product'], operation: ['getAll'], returnAll: [false] } },
  },
];

/**
 * Money (in the minor unit), quantities and rates are whole numbers: "25.5" is refused with the
 * field's label, never rounded.
 */
export function whole(this: IExecuteFunctions, value: unknown, label: string, i: number): number {
  const n = typeof value === 'number' ? value : Number(String(value).trim());
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new NodeOperationError(this.getNode(), `"${String(value)}" is not a whole number (${label})`, {
      itemIndex: i,
    });
  }
  return n;
}

/** Walks a list by cursor (docs/api.md §19), newest first, in pages of at most 100. */
export async function walk(
  this: IExecuteFunctions,
  path: string,
  i: number,
  qs: IDataObject = {},
): Promise<IDataObject[]> {
  const wanted = (this.getNodeParameter('returnAll', i) as boolean)
    ? Infinity
    : (this.getNodeParameter('limit', i) as number);
  const out: IDataObject[] = [];
  let cursor: string | null = null;
  do {
    const limit = Math.min(100, wanted - out.length);
    const query: IDataObject = cursor === null ? { ...qs, limit } : { ...qs, limit, cursor };
    const page = (await lightboxRequest.call(this, 'GET', path, { qs: query, itemIndex: i })).body;
    out.push(...((page.data ?? []) as IDataObject[]));
    cursor = ((page.pagination as IDataObject | undefined)?.next_cursor as string | null) ?? null;
  } while (cursor !== null && out.length < wanted);
  return out;
}

function fieldsOf(this: IExecuteFunctions, fields: IDataObject, i: number): IDataObject {
  const out: IDataObject = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    if (key === 'unit_amount') out[key] = whole.call(this, value, 'Price (Cents)', i);
    else if (key === 'description') out[key] = String(value).trim() === '' ? null : String(value).trim();
    else out[key] = typeof value === 'string' ? value.trim() : value;
  }
  return out;
}

export async function runProduct(this: IExecuteFunctions, operation: string, i: number): Promise<IDataObject[]> {
  const one = () => `/v1/products/${encodeURIComponent((this.getNodeParameter('productId', i) as string).trim())}`;
  const req = async (method: IHttpRequestMethods, path: string, o: { body?: IDataObject } = {}) =>
    (await lightboxRequest.call(this, method, path, { ...o, itemIndex: i })).body;

  switch (operation) {
    case 'create': {
      const fields = fieldsOf.call(this, this.getNodeParameter('additionalFields', i) as IDataObject, i);
      const name = (this.getNodeParameter('name', i) as string).trim();
      const price = whole.call(this, this.getNodeParameter('unit_amount', i), 'Price (Cents)', i);
      return [await req('POST', '/v1/products', { body: { ...fields, name, unit_amount: price } })];
    }
    case 'get':
      return [await req('GET', one())];
    case 'getAll':
      return walk.call(this, '/v1/products', i);
    case 'update': {
      const fields = fieldsOf.call(this, this.getNodeParameter('updateFields', i) as IDataObject, i);
      if (Object.keys(fields).length === 0) {
        throw new NodeOperationError(this.getNode(), 'Add at least one field to change', { itemIndex: i });
      }
      return [await req('PATCH', one(), { body: fields })];
    }
    case 'delete': {
      const id = (this.getNodeParameter('productId', i) as string).trim();
      await req('DELETE', one());
      return [{ id, deleted: true }];
    }
  }
  throw new NodeOperationError(this.getNode(), `Unknown operation ${operation} of product`, { itemIndex: i });
}
