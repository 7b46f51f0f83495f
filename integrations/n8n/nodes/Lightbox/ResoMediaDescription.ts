import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { lightboxRequest } from '../shared';

// The RESO Media resource (docs/api.md §33): the studio's photos as RESO Data Dictionary Media
// records, oldest change first, paged by the feed's @odata.nextLink. The feed takes only the OData
// subset syncing needs: `$filter` clauses on ResourceRecordKey, ResourceRecordID and
// MediaModificationTimestamp joined by `and`, and `$top` (1..1,000); the fields here build that.

const FEED = '/v1/reso/Media';
const MAX_TOP = 1000;

export const resoMediaOperations: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['resoMedia'] } },
    default: 'getAll',
    options: [
      {
        name: 'Get Many',
        value: 'getAll',
        action: 'Get many RESO media records',
        description: 'Photos as RESO Media records, oldest change first',
      },
    ],
  },
];

const show = { show: { resource: ['resoMedia'], operation: ['getAll'] } };

export const resoMediaFields: INodeProperties[] = [
  {
    displayName: 'Return All',
    name: 'returnAll',
    type: 'boolean',
    default: false,
    description: 'Whether to return all results or only up to a given limit',
    displayOptions: show,
  },
  {
    displayName: 'Limit',
    name: 'limit',
    type: 'number',
    typeOptions: { minValue: 1 },
    default: 50,
    description: 'Max number of results to return',
    displayOptions: { show: { resource: ['resoMedia'], operation: ['getAll'], returnAll: [false] } },
  },
  {
    displayName: 'Filters',
    name: 'filters',
    type: 'collection',
    placeholder: 'Add Filter',
    default: {},
    displayOptions: show,
    options: [
      {
        displayName: 'OData Filter',
        name: 'filter',
        type: 'string',
        default: '',
        placeholder: "ResourceRecordKey eq 'BRI-20431'",
        description:
          "An OData filter the feed takes: ResourceRecordKey eq '...', ResourceRecordID eq '...' and MediaModificationTimestamp gt or ge a timestamp, joined by and",
      },
      {
        displayName: 'Gallery ID (ResourceRecordID)',
        name: 'resourceRecordId',
        type: 'string',
        default: '',
        placeholder: 'lst_...',
        description: "Only this gallery's photos",
      },
      {
        displayName: 'Listing Key (ResourceRecordKey)',
        name: 'resourceRecordKey',
        type: 'string',
        default: '',
        description: 'Only the photos of the gallery with this MLS number (or, without one, this gallery ID)',
      },
      {
        displayName: 'Modified After',
        name: 'modifiedAfter',
        type: 'dateTime',
        default: '',
        description: 'Only records changed after this time (MediaModificationTimestamp gt), to sync what changed',
      },
    ],
  },
  {
    displayName: 'Options',
    name: 'options',
    type: 'collection',
    placeholder: 'Add Option',
    default: {},
    displayOptions: show,
    options: [
      {
        displayName: 'Page Size',
        name: 'pageSize',
        type: 'number',
        typeOptions: { minValue: 1, maxValue: MAX_TOP, numberPrecision: 0 },
        default: MAX_TOP,
        description: 'Records asked for per request ($top); smaller pages make smaller answers',
      },
    ],
  },
];

/** An OData string literal: quoted, a quote inside written twice. */
const literal = (value: string) => `'${value.replace(/'/g, "''")}'`;

/** The `$filter` the filters ask for, or undefined for none. */
function filterOf(this: IExecuteFunctions, filters: IDataObject, i: number): string | undefined {
  const clauses: string[] = [];
  const text = (key: string) => (typeof filters[key] === 'string' ? (filters[key] as string).trim() : '');
  if (text('filter') !== '') clauses.push(text('filter'));
  if (text('resourceRecordId') !== '') clauses.push(`ResourceRecordID eq ${literal(text('resourceRecordId'))}`);
  if (text('resourceRecordKey') !== '') clauses.push(`ResourceRecordKey eq ${literal(text('resourceRecordKey'))}`);
  if (text('modifiedAfter') !== '') {
    const at = new Date(text('modifiedAfter'));
    if (Number.isNaN(at.getTime())) {
      throw new NodeOperationError(
        this.getNode(),
        `"${text('modifiedAfter')}" is not a date and time (Modified After)`,
        {
          itemIndex: i,
        },
      );
    }
    clauses.push(`MediaModificationTimestamp gt ${at.toISOString()}`);
  }
  return clauses.length === 0 ? undefined : clauses.join(' and ');
}

/**
 * Get Many: page after page by `@odata.nextLink` (its `$filter` and cursor, asked of the
 * credential's address), each page at most what is still wanted.
 */
export async function runResoMedia(this: IExecuteFunctions, operation: string, i: number): Promise<IDataObject[]> {
  if (operation !== 'getAll') {
    throw new NodeOperationError(this.getNode(), `Unknown operation ${operation} of RESO media`, { itemIndex: i });
  }
  const wanted = (this.getNodeParameter('returnAll', i) as boolean)
    ? Infinity
    : (this.getNodeParameter('limit', i) as number);
  const filter = filterOf.call(this, this.getNodeParameter('filters', i, {}) as IDataObject, i);
  const options = this.getNodeParameter('options', i, {}) as IDataObject;
  const pageSize = Math.min(MAX_TOP, Math.max(1, Math.trunc(Number(options.pageSize ?? MAX_TOP)) || MAX_TOP));
  let query: IDataObject = filter === undefined ? {} : { $filter: filter };
  const out: IDataObject[] = [];
  for (;;) {
    const top = Math.min(pageSize, wanted - out.length);
    const page = (await lightboxRequest.call(this, 'GET', FEED, { qs: { ...query, $top: top }, itemIndex: i })).body;
    const records = (page.value ?? []) as IDataObject[];
    out.push(...records);
    const next = page['@odata.nextLink'];
    if (typeof next !== 'string' || records.length === 0 || out.length >= wanted) return out;
    query = Object.fromEntries(new URL(next).searchParams);
  }
}
