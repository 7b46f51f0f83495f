import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { lightboxBytes, lightboxRequest } from '../shared';

// The Listing Kit resource (docs/api.md §32): a gallery's MLS pack, slideshows, reel, teaser, flyer
// and social images. Build starts it in the background (the Lightbox Trigger's listing.kit_ready
// says when it is done); Download Item puts one item's file in a binary field.

const show = (operation: string[]) => ({ show: { resource: ['listingKit'], operation } });

/** The items GET /v1/listings/:id/kit/:name serves, and the file name Lightbox gives each. */
const ITEMS: [string, string, string][] = [
  ['mls_zip', 'MLS Pack (ZIP)', 'mls-pack.zip'],
  ['flyer', 'Flyer (PDF)', 'flyer.pdf'],
  ['slideshow', 'Slideshow (MP4)', 'slideshow.mp4'],
  ['slideshow_unbranded', 'Unbranded Slideshow (MP4)', 'slideshow-unbranded.mp4'],
  ['reel', 'Reel (Vertical MP4)', 'reel.mp4'],
  ['teaser', 'Teaser (MP4)', 'teaser.mp4'],
  ['social_square', 'Social Image: Square (JPEG)', 'social-square.jpg'],
  ['social_portrait', 'Social Image: Portrait (JPEG)', 'social-portrait.jpg'],
  ['social_story', 'Social Image: Story (JPEG)', 'social-story.jpg'],
];

export const listingKitOperations: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['listingKit'] } },
    default: 'get',
    options: [
      {
        name: 'Build',
        value: 'build',
        action: 'Build a listing kit',
        description:
          "Build or rebuild the kit in the background; the Lightbox Trigger's Kit Ready says when it is done",
      },
      {
        name: 'Download Item',
        value: 'downloadItem',
        action: 'Download a listing kit item',
        description: 'One item of a built kit as a file, in the binary property',
      },
      {
        name: 'Get',
        value: 'get',
        action: 'Get a listing kit',
        description: "The kit's status and its items",
      },
    ],
  },
];

export const listingKitFields: INodeProperties[] = [
  {
    displayName: 'Gallery ID',
    name: 'galleryId',
    type: 'string',
    required: true,
    default: '',
    placeholder: 'lst_...',
    description: 'The gallery, for example from a Lightbox Trigger or a Find step before this one',
    displayOptions: show(['build', 'downloadItem', 'get']),
  },
  {
    displayName: 'Item',
    name: 'item',
    type: 'options',
    required: true,
    default: 'mls_zip',
    options: ITEMS.map(([value, name]) => ({ name, value })),
    description: 'Which file of the kit',
    displayOptions: show(['downloadItem']),
  },
  {
    displayName: 'Put Output File in Field',
    name: 'binaryPropertyName',
    type: 'string',
    required: true,
    default: 'data',
    hint: 'The name of the output binary field to put the file in',
    displayOptions: show(['downloadItem']),
  },
];

/** Runs one operation on item `i`: JSON items, and for Download Item the kit with the file as binary. */
export async function runListingKit(
  this: IExecuteFunctions,
  operation: string,
  i: number,
): Promise<INodeExecutionData[]> {
  const gallery = encodeURIComponent((this.getNodeParameter('galleryId', i) as string).trim());
  const path = `/v1/listings/${gallery}/kit`;
  const kit = async (method: 'GET' | 'POST') =>
    (await lightboxRequest.call(this, method, path, { itemIndex: i })).body as IDataObject;

  switch (operation) {
    case 'get':
      return [{ json: await kit('GET'), pairedItem: { item: i } }];
    case 'build':
      return [{ json: await kit('POST'), pairedItem: { item: i } }];
    case 'downloadItem': {
      const name = this.getNodeParameter('item', i) as string;
      const known = ITEMS.find(([value]) => value === name);
      if (known === undefined) {
        throw new NodeOperationError(this.getNode(), `Unknown kit item ${name}`, { itemIndex: i });
      }
      const json = await kit('GET');
      const { data, contentType } = await lightboxBytes.call(this, `${path}/${encodeURIComponent(name)}`, i);
      const field = (this.getNodeParameter('binaryPropertyName', i) as string).trim() || 'data';
      const binary = await this.helpers.prepareBinaryData(data, known[2], contentType.split(';')[0]);
      return [{ json, binary: { [field]: binary }, pairedItem: { item: i } }];
    }
  }
  throw new NodeOperationError(this.getNode(), `Unknown operation ${operation} of listing kit`, { itemIndex: i });
}
