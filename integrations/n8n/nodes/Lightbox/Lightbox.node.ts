import type {
  IDataObject,
  IExecuteFunctions,
  INodeExecutionData,
  JsonObject,
  INodeProperties,
  INodeType,
  INodeTypeDescription,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { CREDENTIAL, lightboxRequest } from '../shared';
import { invoiceFields, invoiceOperations, runInvoice } from './InvoiceDescription';
import { listingKitFields, listingKitOperations, runListingKit } from './ListingKitDescription';
import { productFields, productOperations, runProduct } from './ProductDescription';
import { mlsProfileFields, mlsProfileOperations, runMlsProfile } from './MlsProfileDescription';
import { resoMediaFields, resoMediaOperations, runResoMedia } from './ResoMediaDescription';
import { runShareLink, shareLinkFields, shareLinkOperations } from './ShareLinkDescription';

// The actions and searches of docs/api.md §24 (the same as the Zapier app's), as resources and
// operations, and share links (docs/api.md §28, in ./ShareLinkDescription.ts), the listing kit
// (§32, ./ListingKitDescription.ts) and the RESO media feed (§33, ./ResoMediaDescription.ts). README.md names the
// Lightbox endpoint behind each.

const galleryIdField = (operations: string[]): INodeProperties => ({
  displayName: 'Gallery ID',
  name: 'galleryId',
  type: 'string',
  required: true,
  default: '',
  placeholder: 'lst_...',
  description: 'The gallery, for example from a Lightbox Trigger or a Find step before this one',
  displayOptions: { show: { resource: ['gallery', 'media'], operation: operations } },
});

const galleryDetails = (name: string, displayName: string, operations: string[]): INodeProperties => ({
  displayName,
  name,
  type: 'collection',
  placeholder: 'Add Field',
  default: {},
  displayOptions: { show: { resource: ['gallery'], operation: operations } },
  options: [
    {
      displayName: 'Address',
      name: 'address',
      type: 'string',
      default: '',
      description: 'The address of the property, as your client sees it',
    },
    {
      displayName: 'Bathrooms',
      name: 'baths',
      type: 'number',
      typeOptions: { minValue: 0, numberPrecision: 1 },
      default: 0,
    },
    { displayName: 'Bedrooms', name: 'beds', type: 'number', typeOptions: { minValue: 0 }, default: 0 },
    {
      displayName: 'Description',
      name: 'description',
      type: 'string',
      typeOptions: { rows: 4 },
      default: '',
      description: 'Shown to your client on the gallery page',
    },
    { displayName: 'MLS Number', name: 'mls_number', type: 'string', default: '' },
    { displayName: 'Square Feet', name: 'sqft', type: 'number', typeOptions: { minValue: 0 }, default: 0 },
    {
      displayName: 'Status',
      name: 'status',
      type: 'options',
      default: 'draft',
      options: [
        { name: 'Draft', value: 'draft', description: 'Not shared yet' },
        { name: 'Active', value: 'active' },
        { name: 'Archived', value: 'archived' },
      ],
    },
  ],
});

export class Lightbox implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Lightbox',
    name: 'lightbox',
    icon: { light: 'file:lightbox.svg', dark: 'file:lightbox.dark.svg' },
    group: ['transform'],
    version: 1,
    subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
    description: "Create and deliver your studio's galleries and clients in Lightbox",
    defaults: { name: 'Lightbox' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: CREDENTIAL, required: true }],
    properties: [
      {
        displayName: 'Resource',
        name: 'resource',
        type: 'options',
        noDataExpression: true,
        default: 'gallery',
        options: [
          { name: 'Client', value: 'client' },
          { name: 'Gallery', value: 'gallery' },
          { name: 'Invoice', value: 'invoice' },
          { name: 'Listing Kit', value: 'listingKit' },
          { name: 'Media', value: 'media' },
          { name: 'MLS Profile', value: 'mlsProfile' },
          { name: 'Product', value: 'product' },
          { name: 'RESO Media', value: 'resoMedia' },
          { name: 'Share Link', value: 'shareLink' },
        ],
      },
      {
        displayName: 'Operation',
        name: 'operation',
        type: 'options',
        noDataExpression: true,
        displayOptions: { show: { resource: ['gallery'] } },
        default: 'create',
        options: [
          {
            name: 'Assign to Client',
            value: 'assign',
            action: 'Assign a gallery to a client',
            description: 'Give a client their gallery link and, unless you turn it off, email it to them',
          },
          { name: 'Create', value: 'create', action: 'Create a gallery' },
          {
            name: 'Find',
            value: 'find',
            action: 'Find a gallery',
            description: 'Find a gallery by MLS number or address, and create it if there is none',
          },
          { name: 'Get', value: 'get', action: 'Get a gallery' },
          {
            name: 'Resend Email',
            value: 'resendEmail',
            action: 'Resend the gallery email',
            description: 'Email the gallery link again to its client',
          },
          { name: 'Update', value: 'update', action: 'Update a gallery' },
        ],
      },
      {
        displayName: 'Operation',
        name: 'operation',
        type: 'options',
        noDataExpression: true,
        displayOptions: { show: { resource: ['client'] } },
        default: 'create',
        options: [
          { name: 'Create', value: 'create', action: 'Create a client' },
          {
            name: 'Find',
            value: 'find',
            action: 'Find a client',
            description: 'Find a client by email, and create them if there is none',
          },
        ],
      },
      {
        displayName: 'Operation',
        name: 'operation',
        type: 'options',
        noDataExpression: true,
        displayOptions: { show: { resource: ['media'] } },
        default: 'addFromUrl',
        options: [
          {
            name: 'Add From URL',
            value: 'addFromUrl',
            action: 'Add media from a URL',
            description: 'Add a photo, video or PDF to a gallery from a web address',
          },
          {
            name: 'Get Suggested Order',
            value: 'getSuggestedOrder',
            action: 'Get the suggested photo order',
            description:
              "The gallery's visible photos in your room order, similar ones together with the best first, and why",
          },
        ],
      },
      ...shareLinkOperations,
      ...productOperations,
      ...mlsProfileOperations,
      ...invoiceOperations,
      ...listingKitOperations,
      ...resoMediaOperations,

      // Gallery: create, find
      {
        displayName: 'Address',
        name: 'address',
        type: 'string',
        required: true,
        default: '',
        placeholder: '12 Harbour View, Brighton',
        description: 'The address of the property, as your client sees it',
        displayOptions: { show: { resource: ['gallery'], operation: ['create'] } },
      },
      galleryDetails('additionalFields', 'Additional Fields', ['create']),
      {
        displayName: 'Search By',
        name: 'searchBy',
        type: 'options',
        default: 'mls_number',
        options: [
          { name: 'MLS Number', value: 'mls_number', description: 'Exactly this MLS number' },
          {
            name: 'Address',
            value: 'address',
            description: 'Addresses that contain this text; an exact match comes first',
          },
        ],
        displayOptions: { show: { resource: ['gallery'], operation: ['find'] } },
      },
      {
        displayName: 'MLS Number',
        name: 'mlsNumber',
        type: 'string',
        required: true,
        default: '',
        displayOptions: { show: { resource: ['gallery'], operation: ['find'], searchBy: ['mls_number'] } },
      },
      {
        displayName: 'Address',
        name: 'address',
        type: 'string',
        required: true,
        default: '',
        displayOptions: { show: { resource: ['gallery'], operation: ['find'], searchBy: ['address'] } },
      },
      {
        displayName: 'Create If Not Found',
        name: 'createIfNotFound',
        type: 'boolean',
        default: false,
        description: 'Whether to create the gallery when none matches',
        displayOptions: { show: { resource: ['gallery', 'client'], operation: ['find'] } },
      },
      {
        displayName: 'Address for the New Gallery',
        name: 'newAddress',
        type: 'string',
        required: true,
        default: '',
        description: 'Used only when no gallery matches and one is created',
        displayOptions: {
          show: { resource: ['gallery'], operation: ['find'], searchBy: ['mls_number'], createIfNotFound: [true] },
        },
      },
      galleryDetails('newGalleryFields', 'New Gallery Fields', ['find']),

      // Gallery: get, update, assign, resend; media: add from URL, suggested order
      galleryIdField(['get', 'update', 'assign', 'resendEmail', 'addFromUrl', 'getSuggestedOrder']),
      galleryDetails('updateFields', 'Update Fields', ['update']),
      {
        displayName: 'Client ID',
        name: 'clientId',
        type: 'string',
        required: true,
        default: '',
        placeholder: 'cli_...',
        description: 'The client, for example from a Find Client step before this one',
        displayOptions: { show: { resource: ['gallery'], operation: ['assign'] } },
      },
      {
        displayName: 'Email the Gallery Link to the Client',
        name: 'sendEmail',
        type: 'boolean',
        default: true,
        description:
          'Whether Lightbox emails the client their link. Turn off to assign quietly, for example when you send the link yourself.',
        displayOptions: { show: { resource: ['gallery'], operation: ['assign'] } },
      },
      {
        displayName: 'File URL',
        name: 'url',
        type: 'string',
        required: true,
        default: '',
        placeholder: 'https://www.dropbox.com/...?dl=1',
        description:
          'A link Lightbox can download the file from directly: photos (JPEG, PNG, HEIC, WebP...), videos (MP4, MOV) and PDFs',
        displayOptions: { show: { resource: ['media'], operation: ['addFromUrl'] } },
      },
      {
        displayName: 'File Name',
        name: 'filename',
        type: 'string',
        default: '',
        description: 'The name your client sees. Leave empty to use the name the link gives.',
        displayOptions: { show: { resource: ['media'], operation: ['addFromUrl'] } },
      },

      // Client: create, find
      {
        displayName: 'Email',
        name: 'email',
        type: 'string',
        placeholder: 'name@email.com',
        required: true,
        default: '',
        description: 'Gallery links are emailed here. Each client has a different email address.',
        displayOptions: { show: { resource: ['client'] } },
      },
      {
        displayName: 'Name',
        name: 'name',
        type: 'string',
        required: true,
        default: '',
        displayOptions: { show: { resource: ['client'], operation: ['create'] } },
      },
      {
        displayName: 'Name for the New Client',
        name: 'name',
        type: 'string',
        required: true,
        default: '',
        description: 'Used only when no client has this email and one is created',
        displayOptions: { show: { resource: ['client'], operation: ['find'], createIfNotFound: [true] } },
      },
      {
        displayName: 'Additional Fields',
        name: 'clientFields',
        type: 'collection',
        placeholder: 'Add Field',
        default: {},
        displayOptions: { show: { resource: ['client'] } },
        options: [
          {
            displayName: 'Company',
            name: 'company',
            type: 'string',
            default: '',
            description: 'The agency or brokerage, if any',
          },
          {
            displayName: 'Notes',
            name: 'notes',
            type: 'string',
            typeOptions: { rows: 3 },
            default: '',
            description: 'For you only: your client never sees these',
          },
          { displayName: 'Phone', name: 'phone', type: 'string', default: '' },
        ],
      },

      ...shareLinkFields,
      ...productFields,
      ...mlsProfileFields,
      ...invoiceFields,
      ...listingKitFields,
      ...resoMediaFields,
    ],
  };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    const items = this.getInputData();
    const out: INodeExecutionData[] = [];
    for (let i = 0; i < items.length; i++) {
      try {
        const resource = this.getNodeParameter('resource', i) as string;
        const operation = this.getNodeParameter('operation', i) as string;
        // An invoice's PDF and a kit's items are binary items; every other answer is JSON.
        if (resource === 'invoice') {
          out.push(...(await runInvoice.call(this, operation, i)));
          continue;
        }
        if (resource === 'listingKit') {
          out.push(...(await runListingKit.call(this, operation, i)));
          continue;
        }
        const results = await run.call(this, resource, operation, i);
        out.push(...results.map((json) => ({ json, pairedItem: { item: i } })));
      } catch (error) {
        if (this.continueOnFail()) {
          out.push({ json: { error: (error as Error).message }, pairedItem: { item: i } });
          continue;
        }
        // Re-wrapping hands back the same error: Lightbox's refusals stay NodeApiErrors (status,
        // message, what to do), the node's own checks NodeOperationErrors.
        if (error instanceof NodeApiError) throw new NodeApiError(this.getNode(), error as unknown as JsonObject);
        throw new NodeOperationError(this.getNode(), error as Error, { itemIndex: i });
      }
    }
    return [out];
  }
}

/** Only fields with a value: Lightbox refuses empty strings where it wants a number or a status. */
function filled(fields: IDataObject): IDataObject {
  const out: IDataObject = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null || value === '') continue;
    out[key] = typeof value === 'string' ? value.trim() : value;
  }
  return out;
}

const same = (a: unknown, b: unknown): boolean =>
  String(a ?? '')
    .trim()
    .toLowerCase() ===
  String(b ?? '')
    .trim()
    .toLowerCase();

async function run(this: IExecuteFunctions, resource: string, operation: string, i: number): Promise<IDataObject[]> {
  const req = (method: 'GET' | 'POST' | 'PATCH', path: string, o: { body?: IDataObject; qs?: IDataObject } = {}) =>
    lightboxRequest.call(this, method, path, { ...o, itemIndex: i }).then((r) => r.body);
  const id = (name: string) => encodeURIComponent((this.getNodeParameter(name, i) as string).trim());

  if (resource === 'gallery') {
    switch (operation) {
      case 'create': {
        const body = {
          ...filled(this.getNodeParameter('additionalFields', i) as IDataObject),
          address: this.getNodeParameter('address', i) as string,
        };
        return [await req('POST', '/v1/listings', { body })];
      }
      case 'get':
        return [await req('GET', `/v1/listings/${id('galleryId')}`)];
      case 'update': {
        const body = filled(this.getNodeParameter('updateFields', i) as IDataObject);
        if (Object.keys(body).length === 0) {
          throw new NodeOperationError(this.getNode(), 'Add at least one field to change', { itemIndex: i });
        }
        return [await req('PATCH', `/v1/listings/${id('galleryId')}`, { body })];
      }
      case 'find': {
        const by = this.getNodeParameter('searchBy', i) as string;
        const value = (
          (by === 'mls_number' ? this.getNodeParameter('mlsNumber', i) : this.getNodeParameter('address', i)) as string
        ).trim();
        const qs = by === 'mls_number' ? { mls_number: value, limit: 10 } : { search: value, limit: 10 };
        const list = ((await req('GET', '/v1/listings', { qs })).data ?? []) as IDataObject[];
        const ordered =
          by === 'address'
            ? [...list].sort((a, b) => Number(same(b.address, value)) - Number(same(a.address, value)))
            : list;
        if (ordered.length > 0) {
          return Promise.all(ordered.map((g) => req('GET', `/v1/listings/${encodeURIComponent(String(g.id))}`)));
        }
        if (!(this.getNodeParameter('createIfNotFound', i) as boolean)) return [];
        const extra = filled(this.getNodeParameter('newGalleryFields', i, {}) as IDataObject);
        const body =
          by === 'mls_number'
            ? { ...extra, mls_number: value, address: this.getNodeParameter('newAddress', i) as string }
            : { ...extra, address: value };
        return [await req('POST', '/v1/listings', { body })];
      }
      case 'assign': {
        const notify = this.getNodeParameter('sendEmail', i) as boolean;
        return [
          await req(
            'POST',
            `/v1/clients/${id('clientId')}/listings/${id('galleryId')}`,
            notify ? {} : { qs: { notify: 'false' } },
          ),
        ];
      }
      case 'resendEmail': {
        const gallery = await req('GET', `/v1/listings/${id('galleryId')}`);
        if (!gallery.client_id) {
          throw new NodeOperationError(this.getNode(), 'This gallery is not assigned to a client yet', {
            itemIndex: i,
            description: 'Use Gallery › Assign to Client first.',
          });
        }
        return [
          await req(
            'POST',
            `/v1/clients/${encodeURIComponent(String(gallery.client_id))}/listings/${encodeURIComponent(String(gallery.id))}/notify`,
          ),
        ];
      }
    }
  }
  if (resource === 'client') {
    const email = (this.getNodeParameter('email', i) as string).trim();
    const fields = filled(this.getNodeParameter('clientFields', i, {}) as IDataObject);
    const create = async () => [
      await req('POST', '/v1/clients', {
        body: { ...fields, email, name: this.getNodeParameter('name', i) as string },
      }),
    ];
    if (operation === 'create') return create();
    if (operation === 'find') {
      const list = ((await req('GET', '/v1/clients', { qs: { search: email, limit: 100 } })).data ??
        []) as IDataObject[];
      const exact = list.filter((c) => same(c.email, email));
      if (exact.length > 0)
        return Promise.all(exact.map((c) => req('GET', `/v1/clients/${encodeURIComponent(String(c.id))}`)));
      return (this.getNodeParameter('createIfNotFound', i) as boolean) ? create() : [];
    }
  }
  if (resource === 'shareLink') return runShareLink.call(this, operation, i);
  if (resource === 'product') return runProduct.call(this, operation, i);
  if (resource === 'mlsProfile') return runMlsProfile.call(this, operation, i);
  if (resource === 'resoMedia') return runResoMedia.call(this, operation, i);
  if (resource === 'media' && operation === 'addFromUrl') {
    const body = filled({
      url: this.getNodeParameter('url', i) as string,
      filename: this.getNodeParameter('filename', i) as string,
    });
    const answer = await req('POST', `/v1/listings/${id('galleryId')}/media`, { body });
    return (answer.data ?? []) as IDataObject[];
  }
  // docs/api.md §30: one item, `{media_ids, reasons}`; apply it with PUT .../media/order.
  if (resource === 'media' && operation === 'getSuggestedOrder') {
    return [await req('GET', `/v1/listings/${id('galleryId')}/media/suggested_order`)];
  }
  throw new NodeOperationError(this.getNode(), `Unknown operation ${operation} of ${resource}`, { itemIndex: i });
}
