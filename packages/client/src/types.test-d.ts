// Type tests of the client, checked by `npm run typecheck` (never run): each `@ts-expect-error`
// line must be a compile error, so a wrong field, status, event type or option is caught before
// any request; the other lines pin the types results have.
/* eslint-disable @typescript-eslint/no-unused-vars, @typescript-eslint/no-meaningless-void-operator,
   @typescript-eslint/no-invalid-void-type, @typescript-eslint/no-unnecessary-type-parameters --
   values here exist for their types only. */
import {
  Lightbox,
  NotModified,
  type Event,
  type GetOptions,
  type Listing,
  type ListingItem,
  type Page,
  type WithResponse,
} from './index.ts';
import { Lightbox as NodeLightbox } from './node.ts';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(): T | void {
  return undefined;
}

export async function typeTests(): Promise<void> {
  const lb = new Lightbox({ apiKey: 'lbx_x', baseUrl: 'https://lightbox.example' });

  // @ts-expect-error baseUrl is required
  new Lightbox({ apiKey: 'lbx_x' });

  const listing = await lb.listings.create({ address: '1 Road', status: 'active' });
  expectType<Equal<typeof listing, WithResponse<Listing>>>();
  expectType<Equal<typeof listing.status, 'draft' | 'active' | 'archived'>>();
  // @ts-expect-error a status that does not exist
  await lb.listings.create({ address: '1 Road', status: 'published' });
  // @ts-expect-error address is required
  await lb.listings.create({ beds: 2 });
  // @ts-expect-error beds is a number, never a string
  await lb.listings.update('lst_1', { beds: '2' });
  // @ts-expect-error client_id is read-only: set by assignment
  await lb.listings.update('lst_1', { client_id: 'cli_1' });
  // @ts-expect-error no such field on a gallery
  void listing.price;

  const page = await lb.listings.list({ status: 'archived', limit: 50 });
  expectType<Equal<typeof page, WithResponse<Page<ListingItem>>>>();
  // @ts-expect-error a list filter value that does not exist
  await lb.listings.list({ status: 'deleted' });
  // @ts-expect-error not a query parameter of this list
  await lb.listings.list({ type: 'listing.created' });
  for await (const g of lb.listings.iterate({ status: 'active' })) {
    expectType<Equal<typeof g, ListingItem>>();
  }

  // A GET is NotModified only when it was conditional.
  const plain = await lb.listings.get('lst_1');
  expectType<Equal<typeof plain, WithResponse<Listing>>>();
  const conditional = await lb.listings.get('lst_1', { ifNoneMatch: 'W/"1"' });
  expectType<Equal<typeof conditional, WithResponse<Listing> | NotModified>>();
  // @ts-expect-error it may not have changed: narrow first
  void conditional.address;
  if (!(conditional instanceof NotModified)) void conditional.address;
  // Options typed as GetOptions may carry an ETag, so the result keeps NotModified.
  const kept: GetOptions = { ifNoneMatch: 'W/"1"' };
  const maybe = await lb.listings.get('lst_1', kept);
  expectType<Equal<typeof maybe, WithResponse<Listing> | NotModified>>();
  const timed = await lb.listings.get('lst_1', { timeout: 5_000 });
  expectType<Equal<typeof timed, WithResponse<Listing>>>();

  await lb.clients.assign('cli_1', 'lst_1', { notify: false });
  // @ts-expect-error notify is a boolean
  await lb.clients.assign('cli_1', 'lst_1', { notify: 'no' });
  // @ts-expect-error email is required
  await lb.clients.create({ name: 'Ada' });

  await lb.webhookEndpoints.create({ url: 'https://example.test/hook', events: ['listing.created'] });
  // @ts-expect-error an event type that does not exist
  await lb.webhookEndpoints.create({ url: 'https://example.test/hook', events: ['listing.exploded'] });
  // @ts-expect-error a delivery status that does not exist
  await lb.webhookEndpoints.deliveries('whe_1', { status: 'lost' });
  const events = await lb.events.list({ type: 'media.created' });
  expectType<Equal<(typeof events.data)[number], Event>>();
  // @ts-expect-error an event type that does not exist
  await lb.events.list({ type: 'media.eaten' });

  // Uploads: the core takes Blobs, bytes and web streams; file paths only from the Node entry point.
  await lb.media.upload('lst_1', [new Blob(['x']), new Uint8Array(1)]);
  // @ts-expect-error a path needs @lightbox/client/node
  await lb.media.upload('lst_1', '/tmp/photo.jpg');
  const node = new NodeLightbox({ apiKey: 'lbx_x', baseUrl: 'https://lightbox.example' });
  await node.media.upload('lst_1', ['/tmp/photo.jpg', { data: '/tmp/b.jpg', filename: 'b.jpg' }]);
  await node.media.uploadResumable('lst_1', '/tmp/video.mp4', {
    onProgress: (sent: number, total: number) => sent / total,
  });
  // @ts-expect-error a caption is a string
  await lb.media.update('lst_1', 'med_1', { caption: 3 });
}
