import type { IDataObject, IExecuteFunctions, IHttpRequestMethods, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { lightboxRequest } from '../shared';

// The Share Link resource (docs/api.md §28): a gallery's links besides its client's, each with its own
// label, controls, selection bounds and counters, and what was chosen at it. README.md names the
// Lightbox endpoint behind each operation.

const show = (operation: string[]) => ({ show: { resource: ['shareLink'], operation } });

/** The controls a link is made with and changed by (docs/api.md §28), under Lightbox's own names. */
const controls: INodeProperties[] = [
  {
    displayName: 'Allow Downloads',
    name: 'downloads_enabled',
    type: 'boolean',
    default: true,
    description: 'Whether originals and the ZIP can be downloaded at this link',
  },
  {
    displayName: 'Allow Favorites',
    name: 'favorites_enabled',
    type: 'boolean',
    default: true,
    description: 'Whether the page offers hearts, comments and sending a selection',
  },
  {
    displayName: 'Expires At',
    name: 'expires_at',
    type: 'dateTime',
    default: '',
    description: 'When the link stops working (a future time)',
  },
  {
    displayName: 'Fewest Photos to Choose',
    name: 'selection_min',
    type: 'number',
    typeOptions: { minValue: 1, maxValue: 10000 },
    default: 1,
    description: 'A selection with fewer photos cannot be sent',
  },
  {
    displayName: 'Most Photos to Choose',
    name: 'selection_max',
    type: 'number',
    typeOptions: { minValue: 1, maxValue: 10000 },
    default: 1,
    description: 'No more photos can be marked',
  },
  {
    displayName: 'Password',
    name: 'password',
    type: 'string',
    typeOptions: { password: true },
    default: '',
    description: 'What whoever opens the link must give (at least 8 characters)',
  },
];

export const shareLinkOperations: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['shareLink'] } },
    default: 'create',
    options: [
      {
        name: 'Create',
        value: 'create',
        action: 'Create a share link',
        description: "Make another link to a gallery besides the client's, and email it if you give an address",
      },
      {
        name: 'Delete',
        value: 'delete',
        action: 'Delete a share link',
        description: 'The link stops working at once',
      },
      { name: 'Get', value: 'get', action: 'Get a share link' },
      {
        name: 'Get Favorites',
        value: 'getFavorites',
        action: 'Get the favorites of a share link',
        description: 'The photos marked, the comments and the note sent at the link',
      },
      { name: 'Get Many', value: 'getAll', action: 'Get many share links' },
      {
        name: 'Rotate',
        value: 'rotate',
        action: 'Rotate a share link',
        description: 'Give the link a new address; the old one stops working',
      },
      {
        name: 'Send Email',
        value: 'sendEmail',
        action: 'Email a share link again',
        description: 'Email the link again to the address it was made with',
      },
      { name: 'Update', value: 'update', action: 'Update a share link' },
    ],
  },
];

export const shareLinkFields: INodeProperties[] = [
  {
    displayName: 'Gallery ID',
    name: 'galleryId',
    type: 'string',
    required: true,
    default: '',
    placeholder: 'lst_...',
    description: 'The gallery the link is to, for example from a Lightbox Trigger or a Find step before this one',
    displayOptions: { show: { resource: ['shareLink'] } },
  },
  {
    displayName: 'Share Link ID',
    name: 'shareLinkId',
    type: 'string',
    required: true,
    default: '',
    placeholder: 'shl_...',
    displayOptions: show(['delete', 'get', 'getFavorites', 'rotate', 'sendEmail', 'update']),
  },
  {
    displayName: 'Label',
    name: 'label',
    type: 'string',
    required: true,
    default: '',
    placeholder: 'Seller: Jo Marsh',
    description: 'What you call this link (only you see it)',
    displayOptions: show(['create']),
  },
  {
    displayName: 'Additional Fields',
    name: 'additionalFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    displayOptions: show(['create']),
    options: [
      ...controls.slice(0, 2),
      {
        displayName: 'Email the Link To',
        name: 'email',
        type: 'string',
        placeholder: 'name@email.com',
        default: '',
        description: 'Lightbox emails the link to this address (it cannot be changed later)',
      },
      ...controls.slice(2),
    ],
  },
  {
    displayName: 'Update Fields',
    name: 'updateFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    displayOptions: show(['update']),
    options: [
      ...controls.slice(0, 4),
      { displayName: 'Label', name: 'label', type: 'string', default: '' },
      ...controls.slice(4),
      {
        displayName: 'Remove',
        name: 'remove',
        type: 'multiOptions',
        default: [],
        description: 'Settings to take off the link',
        options: [
          { name: 'Expiry', value: 'expires_at' },
          { name: 'Fewest Photos to Choose', value: 'selection_min' },
          { name: 'Most Photos to Choose', value: 'selection_max' },
          { name: 'Password', value: 'password' },
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
    displayOptions: show(['getAll']),
  },
  {
    displayName: 'Limit',
    name: 'limit',
    type: 'number',
    typeOptions: { minValue: 1 },
    default: 50,
    description: 'Max number of results to return',
    displayOptions: { show: { resource: ['shareLink'], operation: ['getAll'], returnAll: [false] } },
  },
];

/** The fields given, in Lightbox's types: an empty text is left out, a time made ISO 8601 with its zone. */
function body(this: IExecuteFunctions, fields: IDataObject, i: number): IDataObject {
  const out: IDataObject = {};
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'remove' || value === undefined || value === null || value === '') continue;
    if (key === 'expires_at') {
      const time = new Date(String(value));
      if (Number.isNaN(time.getTime())) {
        throw new NodeOperationError(this.getNode(), `"${String(value)}" is not a date and time (Expires At)`, {
          itemIndex: i,
        });
      }
      out[key] = time.toISOString();
      continue;
    }
    out[key] = typeof value === 'string' && key !== 'password' ? value.trim() : value;
  }
  for (const key of (fields.remove ?? []) as string[]) out[key] = null;
  return out;
}

export async function runShareLink(this: IExecuteFunctions, operation: string, i: number): Promise<IDataObject[]> {
  const param = (name: string) => encodeURIComponent((this.getNodeParameter(name, i) as string).trim());
  const links = `/v1/listings/${param('galleryId')}/share_links`;
  const one = () => `${links}/${param('shareLinkId')}`;
  const req = async (method: IHttpRequestMethods, path: string, o: { body?: IDataObject; qs?: IDataObject } = {}) =>
    (await lightboxRequest.call(this, method, path, { ...o, itemIndex: i })).body;

  switch (operation) {
    case 'create': {
      const fields = body.call(this, this.getNodeParameter('additionalFields', i) as IDataObject, i);
      return [await req('POST', links, { body: { ...fields, label: this.getNodeParameter('label', i) as string } })];
    }
    case 'get':
      return [await req('GET', one())];
    case 'getAll': {
      const wanted = (this.getNodeParameter('returnAll', i) as boolean)
        ? Infinity
        : (this.getNodeParameter('limit', i) as number);
      const out: IDataObject[] = [];
      let cursor: string | null = null;
      // Newest first, walked by cursor (docs/api.md §19), pages of at most 100 (Lightbox's largest),
      // while more are wanted and more follow.
      do {
        const limit = Math.min(100, wanted - out.length);
        const page = await req('GET', links, { qs: cursor === null ? { limit } : { limit, cursor } });
        out.push(...((page.data ?? []) as IDataObject[]));
        cursor = ((page.pagination as IDataObject | undefined)?.next_cursor as string | null) ?? null;
      } while (cursor !== null && out.length < wanted);
      return out;
    }
    case 'update': {
      const fields = body.call(this, this.getNodeParameter('updateFields', i) as IDataObject, i);
      if (Object.keys(fields).length === 0) {
        throw new NodeOperationError(this.getNode(), 'Add at least one field to change', { itemIndex: i });
      }
      return [await req('PATCH', one(), { body: fields })];
    }
    case 'delete': {
      const id = (this.getNodeParameter('shareLinkId', i) as string).trim();
      await req('DELETE', one());
      return [{ id, deleted: true }];
    }
    case 'rotate':
      return [await req('POST', `${one()}/rotate`)];
    case 'sendEmail':
      return [await req('POST', `${one()}/notify`)];
    case 'getFavorites':
      return [await req('GET', `${one()}/favorites`)];
  }
  throw new NodeOperationError(this.getNode(), `Unknown operation ${operation} of shareLink`, { itemIndex: i });
}
