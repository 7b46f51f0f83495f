// The Lightbox client: one object per API key, a property per resource.
import { HttpClient, type ClientOptions, type GetOptions } from './core.ts';
import { Clients } from './resources/clients.ts';
import { Events } from './resources/events.ts';
import { Invoices } from './resources/invoices.ts';
import { Listings } from './resources/listings.ts';
import { MediaResource, type BlobResolver, type MultipartEncoder } from './resources/media.ts';
import { AccountResource } from './resources/account.ts';
import { Notifications } from './resources/notifications.ts';
import { Products } from './resources/products.ts';
import { MlsProfiles } from './resources/mls-profiles.ts';
import { TestData } from './resources/test-data.ts';
import { WebhookEndpoints } from './resources/webhook-endpoints.ts';
import type { Conditional } from './core.ts';
import { multipartBody, toPart, type UploadInput } from './uploads.ts';
import { Webhooks } from './webhooks.ts';

/** The client core, generic over what media uploads accept (the Node entry point widens it). */
export class LightboxBase<I, R> {
  readonly listings: Listings;
  readonly clients: Clients;
  readonly media: MediaResource<I, R>;
  readonly account: AccountResource;
  /** The studio's test data as a whole: `lb.testData.delete()`. */
  readonly testData: TestData;
  readonly notifications: Notifications;
  /** The studio's catalogue (docs/api.md §29). */
  readonly products: Products;
  /** Invoices, their payments and PDFs (docs/api.md §29). */
  readonly invoices: Invoices;
  /** What each listing service accepts (docs/api.md §31). */
  readonly mlsProfiles: MlsProfiles;
  readonly webhookEndpoints: WebhookEndpoints;
  readonly events: Events;
  readonly webhooks: Webhooks;
  /** The HTTP engine (retries, timeouts, errors) every resource goes through. */
  readonly http: HttpClient;

  constructor(options: ClientOptions, resolvers: { encode: MultipartEncoder<I>; blob: BlobResolver<R> }) {
    this.http = new HttpClient(options);
    this.listings = new Listings(this.http);
    this.clients = new Clients(this.http);
    this.media = new MediaResource(this.http, resolvers.encode, resolvers.blob);
    this.account = new AccountResource(this.http);
    this.testData = new TestData(this.http);
    this.notifications = new Notifications(this.http);
    this.products = new Products(this.http);
    this.invoices = new Invoices(this.http);
    this.mlsProfiles = new MlsProfiles(this.http);
    this.webhookEndpoints = new WebhookEndpoints(this.http);
    this.events = new Events(this.http);
    this.webhooks = new Webhooks();
  }

  /** GET /v1/openapi.json: the API's OpenAPI 3.1 document. */
  openapi<O extends GetOptions | undefined = undefined>(options?: O): Promise<Conditional<O, Record<string, unknown>>> {
    return this.http.get<Record<string, unknown>, O>('/v1/openapi.json', undefined, options as O);
  }
}

/**
 * The client for browsers, edge runtimes and Node: `new Lightbox({ apiKey, baseUrl })`. Uploads
 * take Blobs, Files, bytes and web streams; `@lightbox/client/node` adds file paths and Node streams.
 */
export class Lightbox extends LightboxBase<UploadInput, Blob> {
  constructor(options: ClientOptions) {
    super(options, {
      encode: (inputs) => Promise.resolve(multipartBody(inputs.map(toPart))),
      blob: (blob) =>
        Promise.resolve({ blob, filename: 'name' in blob && typeof blob.name === 'string' ? blob.name : undefined }),
    });
  }
}
