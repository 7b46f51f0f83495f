import type { IDataObject, IExecuteFunctions, IHttpRequestMethods, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { lightboxRequest } from '../shared';
import { walk, whole } from './ProductDescription';

// The MLS Profile resource (docs/api.md §31): what a listing service accepts of a gallery's photos,
// and Get Compliance: a gallery checked against its profile (or one named).

const show = (operation: string[]) => ({ show: { resource: ['mlsProfile'], operation } });

const NUMBERS: [string, string, string, number][] = [
  ['max_long_edge', 'Max Long Edge (Px)', "The longest side of the gallery's MLS photos", 2048],
  ['min_long_edge', 'Min Long Edge (Px)', 'The shortest long side the service accepts', 1024],
  ['max_bytes', 'Max File Size (Bytes)', 'The largest file the service accepts', 10_000_000],
  ['max_photos', 'Max Photos', 'The most photos a listing may have', 50],
];
const FLAGS: [string, string, string][] = [
  ['forbid_text', 'Forbid Text', 'Whether words read in a photo fail it'],
  ['forbid_qr_codes', 'Forbid QR Codes', 'Whether a QR code in a photo fails it'],
  ['forbid_people', 'Forbid People', 'Whether a person in a photo fails it'],
  ['first_photo_exterior', 'First Photo Exterior', 'Whether the first photo must show the exterior'],
  ['disclose_staging', 'Disclose Staging', 'Whether virtually staged photos must say so'],
];

const details: INodeProperties[] = [
  ...FLAGS.map(([name, displayName, description]) => ({
    displayName,
    name,
    type: 'boolean' as const,
    default: true,
    description,
  })),
  ...NUMBERS.map(([name, displayName, description, value]) => ({
    displayName,
    name,
    type: 'number' as const,
    typeOptions: { minValue: 1, numberPrecision: 0 },
    default: value,
    description,
  })),
].sort((a, b) => a.displayName.localeCompare(b.displayName));

export const mlsProfileOperations: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['mlsProfile'] } },
    default: 'create',
    options: [
      { name: 'Create', value: 'create', action: 'Create an MLS profile' },
      {
        name: 'Delete',
        value: 'delete',
        action: 'Delete an MLS profile',
        description: 'The galleries that use it are left with none',
      },
      { name: 'Get', value: 'get', action: 'Get an MLS profile' },
      {
        name: 'Get Compliance',
        value: 'getCompliance',
        action: 'Get a gallery s compliance',
        description: "A gallery's photos checked against its MLS profile, or the one given",
      },
      { name: 'Get Many', value: 'getAll', action: 'Get many MLS profiles' },
      { name: 'Update', value: 'update', action: 'Update an MLS profile' },
    ],
  },
];

export const mlsProfileFields: INodeProperties[] = [
  {
    displayName: 'MLS Profile ID',
    name: 'mlsProfileId',
    type: 'string',
    required: true,
    default: '',
    placeholder: 'mlp_...',
    displayOptions: show(['delete', 'get', 'update']),
  },
  {
    displayName: 'Gallery ID',
    name: 'galleryId',
    type: 'string',
    required: true,
    default: '',
    placeholder: 'lst_...',
    displayOptions: show(['getCompliance']),
  },
  {
    displayName: 'Profile ID',
    name: 'profileId',
    type: 'string',
    default: '',
    placeholder: 'mlp_...',
    description: "A profile to check against instead of the gallery's own (needed when the gallery has none)",
    displayOptions: show(['getCompliance']),
  },
  {
    displayName: 'Name',
    name: 'name',
    type: 'string',
    required: true,
    default: '',
    placeholder: 'Bright MLS',
    description: 'The listing service it is for',
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
    options: [...details, { displayName: 'Name', name: 'name', type: 'string', default: '' }],
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
    displayOptions: { show: { resource: ['mlsProfile'], operation: ['getAll'], returnAll: [false] } },
  },
];

function fieldsOf(this: IExecuteFunctions, fields: IDataObject, i: number): IDataObject {
  const out: IDataObject = {};
  const labels = new Map(NUMBERS.map(([name, label]) => [name, label]));
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    const label = labels.get(key);
    if (label !== undefined) out[key] = whole.call(this, value, label, i);
    else out[key] = typeof value === 'string' ? value.trim() : value;
  }
  return out;
}

export async function runMlsProfile(this: IExecuteFunctions, operation: string, i: number): Promise<IDataObject[]> {
  const id = () => (this.getNodeParameter('mlsProfileId', i) as string).trim();
  const one = () => `/v1/mls_profiles/${encodeURIComponent(id())}`;
  const req = async (method: IHttpRequestMethods, path: string, o: { body?: IDataObject; qs?: IDataObject } = {}) =>
    (await lightboxRequest.call(this, method, path, { ...o, itemIndex: i })).body;

  switch (operation) {
    case 'create': {
      const fields = fieldsOf.call(this, this.getNodeParameter('additionalFields', i) as IDataObject, i);
      const name = (this.getNodeParameter('name', i) as string).trim();
      return [await req('POST', '/v1/mls_profiles', { body: { ...fields, name } })];
    }
    case 'get':
      return [await req('GET', one())];
    case 'getAll':
      return walk.call(this, '/v1/mls_profiles', i);
    case 'update': {
      const fields = fieldsOf.call(this, this.getNodeParameter('updateFields', i) as IDataObject, i);
      if (Object.keys(fields).length === 0) {
        throw new NodeOperationError(this.getNode(), 'Add at least one field to change', { itemIndex: i });
      }
      return [await req('PATCH', one(), { body: fields })];
    }
    case 'delete': {
      const deleted = id();
      await req('DELETE', one());
      return [{ id: deleted, deleted: true }];
    }
    case 'getCompliance': {
      const gallery = (this.getNodeParameter('galleryId', i) as string).trim();
      const profile = (this.getNodeParameter('profileId', i, '') as string).trim();
      const qs: IDataObject = profile === '' ? {} : { profile_id: profile };
      return [await req('GET', `/v1/listings/${encodeURIComponent(gallery)}/compliance`, { qs })];
    }
  }
  throw new NodeOperationError(this.getNode(), `Unknown operation ${operation} of MLS profile`, { itemIndex: i });
}
