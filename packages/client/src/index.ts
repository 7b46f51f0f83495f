// @lightbox/client: the TypeScript client for the Lightbox API (browsers, edge runtimes, Node 20+).
export { Lightbox, LightboxBase } from './client.ts';
export {
  HttpClient,
  NotModified,
  isNotModified,
  type ClientOptions,
  type Conditional,
  type GetOptions,
  type RequestOptions,
} from './core.ts';
export * from './errors.ts';
export { ITERATE_PAGE_SIZE } from './pagination.ts';
export type { Account } from './resources/account.ts';
export type { TestDataDeletion } from './resources/test-data.ts';
export type { AssignOptions, ClientListingsParams, ClientListParams, ClientWithListings } from './resources/clients.ts';
export type { EventListParams } from './resources/events.ts';
export type { InvoiceListParams, PaymentListParams } from './resources/invoices.ts';
export type { ComplianceParams, ListingListParams, ShareLinkListParams } from './resources/listings.ts';
export type { DownloadOptions, VariantName } from './resources/media.ts';
export type { NotificationListParams } from './resources/notifications.ts';
export type { ProductListParams } from './resources/products.ts';
export type { MlsProfileListParams } from './resources/mls-profiles.ts';
export type { WebhookDeliveryListParams, WebhookEndpointListParams } from './resources/webhook-endpoints.ts';
export type { ResumableUploadOptions } from './tus.ts';
export type * from './types.ts';
export type { UploadFile, UploadInput } from './uploads.ts';
export { verifyWebhook, type WebhookEvent, type WebhookHeaders } from './webhooks.ts';
