import type {
  IDataObject,
  IExecuteFunctions,
  IHttpRequestMethods,
  INodeExecutionData,
  INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { lightboxBytes, lightboxRequest } from '../shared';
import { walk, whole } from './ProductDescription';

// The Invoice resource (docs/api.md §29): a draft for a gallery's client, issued (numbered and
// emailed), paid by payments recorded here or online, voided; its payments and its PDF. Every
// amount is an integer in the currency's minor unit (cents: 2500 is 25.00), never a float.

const show = (operation: string[]) => ({ show: { resource: ['invoice'], operation } });

/** One invoice line: a product (its name and price copied) or a description and a price. */
const itemsField = (required: boolean, operation: string): INodeProperties => ({
  displayName: required ? 'Items' : 'Replace Items',
  name: 'items',
  type: 'fixedCollection',
  typeOptions: { multipleValues: true },
  required,
  default: {},
  placeholder: 'Add Item',
  description: required
    ? 'What is invoiced (1 to 100 lines)'
    : "The invoice's new lines, replacing all of them (leave empty to keep them)",
  displayOptions: show([operation]),
  options: [
    {
      displayName: 'Item',
      name: 'item',
      values: [
        {
          displayName: 'Product ID',
          name: 'product_id',
          type: 'string',
          default: '',
          placeholder: 'prd_...',
          description: 'One of your products: its name and price are copied. Or leave empty and give the two below.',
        },
        {
          displayName: 'Description',
          name: 'description',
          type: 'string',
          default: '',
          description: 'What this line is, without a product',
        },
        {
          displayName: 'Price (Cents)',
          name: 'unit_amount',
          type: 'number',
          typeOptions: { minValue: 0, numberPrecision: 0 },
          default: 0,
          description: 'The price of one, without a product, in cents: 2500 is 25.00',
        },
        {
          displayName: 'Quantity',
          name: 'quantity',
          type: 'number',
          typeOptions: { minValue: 1, maxValue: 10000, numberPrecision: 0 },
          default: 1,
        },
      ],
    },
  ],
});

/** The invoice's terms, given on Create and changed by Update while it is a draft. */
const terms: INodeProperties[] = [
  {
    displayName: 'Discount (Cents)',
    name: 'discount',
    type: 'number',
    typeOptions: { minValue: 0, numberPrecision: 0 },
    default: 0,
    description: 'Taken off the subtotal, in cents (at most the subtotal)',
  },
  {
    displayName: 'Due At',
    name: 'due_at',
    type: 'dateTime',
    default: '',
    description: 'When payment is due',
  },
  {
    displayName: 'Note',
    name: 'note',
    type: 'string',
    typeOptions: { rows: 3 },
    default: '',
    description: 'Printed on the invoice for the client',
  },
  {
    displayName: 'Pay to Unlock',
    name: 'pay_to_unlock',
    type: 'boolean',
    default: true,
    description:
      'Whether, while the invoice is open, the gallery shows the client watermarked previews and no downloads',
  },
  {
    displayName: 'Tax Rate (Basis Points)',
    name: 'tax_rate_bps',
    type: 'number',
    typeOptions: { minValue: 0, maxValue: 10000, numberPrecision: 0 },
    default: 0,
    description: 'Hundredths of a percent: 825 is 8.25 %',
  },
];

export const invoiceOperations: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['invoice'] } },
    default: 'create',
    options: [
      {
        name: 'Create',
        value: 'create',
        action: 'Create an invoice',
        description: "Create a draft invoice for a gallery's client",
      },
      { name: 'Delete', value: 'delete', action: 'Delete an invoice', description: 'Delete a draft invoice' },
      {
        name: 'Download PDF',
        value: 'downloadPdf',
        action: 'Download an invoice as PDF',
        description: 'The invoice as a PDF file, in the binary property',
      },
      { name: 'Get', value: 'get', action: 'Get an invoice' },
      { name: 'Get Many', value: 'getAll', action: 'Get many invoices' },
      {
        name: 'Get Payments',
        value: 'getPayments',
        action: 'Get the payments of an invoice',
      },
      {
        name: 'Issue',
        value: 'issue',
        action: 'Issue an invoice',
        description: 'Number a draft and email it to the client (draft → open)',
      },
      {
        name: 'Record Payment',
        value: 'recordPayment',
        action: 'Record a payment of an invoice',
        description: 'Money received outside Lightbox; reaching the total marks the invoice paid',
      },
      { name: 'Update', value: 'update', action: 'Update an invoice', description: 'Change a draft invoice' },
      { name: 'Void', value: 'void', action: 'Void an invoice', description: 'Void an open invoice (open → void)' },
    ],
  },
];

export const invoiceFields: INodeProperties[] = [
  {
    displayName: 'Invoice ID',
    name: 'invoiceId',
    type: 'string',
    required: true,
    default: '',
    placeholder: 'ivc_...',
    displayOptions: show(['delete', 'downloadPdf', 'get', 'getPayments', 'issue', 'recordPayment', 'update', 'void']),
  },
  {
    displayName: 'Gallery ID',
    name: 'galleryId',
    type: 'string',
    required: true,
    default: '',
    placeholder: 'lst_...',
    description: 'The gallery invoiced; its client is the one invoiced (assign one first)',
    displayOptions: show(['create']),
  },
  itemsField(true, 'create'),
  {
    displayName: 'Additional Fields',
    name: 'additionalFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    displayOptions: show(['create']),
    options: terms,
  },
  itemsField(false, 'update'),
  {
    displayName: 'Update Fields',
    name: 'updateFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    displayOptions: show(['update']),
    options: terms,
  },
  {
    displayName: 'Amount (Cents)',
    name: 'amount',
    type: 'number',
    required: true,
    typeOptions: { minValue: 1, numberPrecision: 0 },
    default: 0,
    description: 'What was received, in cents (at most the amount due)',
    displayOptions: show(['recordPayment']),
  },
  {
    displayName: 'Method',
    name: 'method',
    type: 'options',
    required: true,
    default: 'bank_transfer',
    options: [
      { name: 'Bank Transfer', value: 'bank_transfer' },
      { name: 'Card', value: 'card' },
      { name: 'Cash', value: 'cash' },
      { name: 'Check', value: 'check' },
      { name: 'Other', value: 'other' },
    ],
    displayOptions: show(['recordPayment']),
  },
  {
    displayName: 'Additional Fields',
    name: 'paymentFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    displayOptions: show(['recordPayment']),
    options: [
      { displayName: 'Paid At', name: 'paid_at', type: 'dateTime', default: '', description: 'Default now' },
      {
        displayName: 'Reference',
        name: 'reference',
        type: 'string',
        default: '',
        description: 'A check number or transfer reference',
      },
    ],
  },
  {
    displayName: 'Filters',
    name: 'filters',
    type: 'collection',
    placeholder: 'Add Filter',
    default: {},
    displayOptions: show(['getAll']),
    options: [
      { displayName: 'Client ID', name: 'client_id', type: 'string', default: '', placeholder: 'cli_...' },
      { displayName: 'Gallery ID', name: 'listing_id', type: 'string', default: '', placeholder: 'lst_...' },
      {
        displayName: 'Status',
        name: 'status',
        type: 'options',
        default: 'open',
        options: [
          { name: 'Draft', value: 'draft' },
          { name: 'Open', value: 'open' },
          { name: 'Paid', value: 'paid' },
          { name: 'Void', value: 'void' },
        ],
      },
    ],
  },
  {
    displayName: 'Return All',
    name: 'returnAll',
    type: 'boolean',
    default: false,
    description: 'Whether to return all results or only up to a given limit',
    displayOptions: show(['getAll', 'getPayments']),
  },
  {
    displayName: 'Limit',
    name: 'limit',
    type: 'number',
    typeOptions: { minValue: 1 },
    default: 50,
    description: 'Max number of results to return',
    displayOptions: { show: { resource: ['invoice'], operation: ['getAll', 'getPayments'], returnAll: [false] } },
  },
  {
    displayName: 'Put Output File in Field',
    name: 'binaryPropertyName',
    type: 'string',
    required: true,
    default: 'data',
    hint: 'The name of the output binary field to put the PDF in',
    displayOptions: show(['downloadPdf']),
  },
];

const time = (ctx: IExecuteFunctions, value: unknown, label: string, i: number): string => {
  const parsed = new Date(String(value));
  if (Number.isNaN(parsed.getTime())) {
    throw new NodeOperationError(ctx.getNode(), `"${String(value)}" is not a date and time (${label})`, {
      itemIndex: i,
    });
  }
  return parsed.toISOString();
};

/** The lines of the Items field in Lightbox's shape. */
function lines(this: IExecuteFunctions, value: IDataObject, i: number): IDataObject[] {
  return ((value.item ?? []) as IDataObject[]).map((line, n) => {
    const quantity = whole.call(this, line.quantity ?? 1, `Quantity of item ${n + 1}`, i);
    const product = String(line.product_id ?? '').trim();
    if (product !== '') return { product_id: product, quantity };
    const description = String(line.description ?? '').trim();
    if (description === '') {
      throw new NodeOperationError(this.getNode(), `Item ${n + 1}: give a Product ID, or a Description and a Price`, {
        itemIndex: i,
      });
    }
    return { description, unit_amount: whole.call(this, line.unit_amount ?? 0, `Price of item ${n + 1}`, i), quantity };
  });
}

/** The terms given, in Lightbox's types (an empty note or due date left out). */
function termsOf(this: IExecuteFunctions, fields: IDataObject, i: number): IDataObject {
  const out: IDataObject = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null || value === '') continue;
    if (key === 'discount') out[key] = whole.call(this, value, 'Discount (Cents)', i);
    else if (key === 'tax_rate_bps') out[key] = whole.call(this, value, 'Tax Rate (Basis Points)', i);
    else if (key === 'due_at') out[key] = time(this, value, 'Due At', i);
    else out[key] = typeof value === 'string' ? value.trim() : value;
  }
  return out;
}

export async function runInvoice(this: IExecuteFunctions, operation: string, i: number): Promise<INodeExecutionData[]> {
  const id = () => (this.getNodeParameter('invoiceId', i) as string).trim();
  const one = () => `/v1/invoices/${encodeURIComponent(id())}`;
  const req = async (method: IHttpRequestMethods, path: string, o: { body?: IDataObject } = {}) =>
    (await lightboxRequest.call(this, method, path, { ...o, itemIndex: i })).body;
  const json = (objects: IDataObject[]): INodeExecutionData[] =>
    objects.map((o) => ({ json: o, pairedItem: { item: i } }));

  switch (operation) {
    case 'create': {
      const items = lines.call(this, this.getNodeParameter('items', i) as IDataObject, i);
      if (items.length === 0) {
        throw new NodeOperationError(this.getNode(), 'Add at least one item', { itemIndex: i });
      }
      const fields = termsOf.call(this, this.getNodeParameter('additionalFields', i) as IDataObject, i);
      const listing = (this.getNodeParameter('galleryId', i) as string).trim();
      return json([await req('POST', '/v1/invoices', { body: { ...fields, listing_id: listing, items } })]);
    }
    case 'get':
      return json([await req('GET', one())]);
    case 'getAll': {
      const filters = this.getNodeParameter('filters', i) as IDataObject;
      const qs: IDataObject = {};
      for (const [key, value] of Object.entries(filters)) {
        if (typeof value === 'string' && value.trim() !== '') qs[key] = value.trim();
      }
      return json(await walk.call(this, '/v1/invoices', i, qs));
    }
    case 'update': {
      const fields = termsOf.call(this, this.getNodeParameter('updateFields', i) as IDataObject, i);
      const items = lines.call(this, this.getNodeParameter('items', i, {}) as IDataObject, i);
      if (items.length > 0) fields.items = items;
      if (Object.keys(fields).length === 0) {
        throw new NodeOperationError(this.getNode(), 'Add at least one field to change', { itemIndex: i });
      }
      return json([await req('PATCH', one(), { body: fields })]);
    }
    case 'delete': {
      await req('DELETE', one());
      return json([{ id: id(), deleted: true }]);
    }
    case 'issue':
      return json([await req('POST', `${one()}/issue`)]);
    case 'void':
      return json([await req('POST', `${one()}/void`)]);
    case 'recordPayment': {
      const extra = this.getNodeParameter('paymentFields', i) as IDataObject;
      const body: IDataObject = {
        amount: whole.call(this, this.getNodeParameter('amount', i), 'Amount (Cents)', i),
        method: this.getNodeParameter('method', i) as string,
      };
      if (typeof extra.reference === 'string' && extra.reference.trim() !== '') body.reference = extra.reference.trim();
      if (extra.paid_at) body.paid_at = time(this, extra.paid_at, 'Paid At', i);
      return json([await req('POST', `${one()}/payments`, { body })]);
    }
    case 'getPayments':
      return json(await walk.call(this, `${one()}/payments`, i));
    case 'downloadPdf': {
      const invoice = await req('GET', one());
      const { data, contentType } = await lightboxBytes.call(this, `${one()}/pdf`, i);
      const name = `${String(invoice.number ?? invoice.id)}.pdf`;
      const field = (this.getNodeParameter('binaryPropertyName', i) as string).trim() || 'data';
      const binary = await this.helpers.prepareBinaryData(data, name, contentType.split(';')[0]);
      return [{ json: invoice, binary: { [field]: binary }, pairedItem: { item: i } }];
    }
  }
  throw new NodeOperationError(this.getNode(), `Unknown operation ${operation} of invoice`, { itemIndex: i });
}
