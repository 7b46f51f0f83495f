// The client's types, all derived from the generated OpenAPI types (generated/openapi.ts, made by
// `npm run client:types`), so they cannot drift from the API. Operations are picked by their
// operationId: a route added to the API adds an operation here without touching these helpers.
import type { components, operations } from './generated/openapi.ts';

export type { components, operations, paths } from './generated/openapi.ts';

type Schemas = components['schemas'];

export type OperationId = keyof operations;

/** The JSON body an operation takes (never when it takes none). */
export type RequestBody<O extends OperationId> = operations[O] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/** The query parameters an operation takes. */
export type QueryParams<O extends OperationId> = NonNullable<operations[O]['parameters']['query']>;

/** The JSON an operation answers with a given status. */
export type ResponseBody<O extends OperationId, S extends number> =
  operations[O]['responses'] extends Record<S, { content: { 'application/json': infer B } }> ? B : never;

export type Listing = Schemas['Listing'];
export type ListingItem = Schemas['ListingItem'];
export type ListingCreate = Schemas['ListingCreate'];
export type ListingUpdate = Schemas['ListingUpdate'];
export type ListingStatus = Schemas['ListingStatus'];
export type ClientLink = Schemas['ClientLink'];
export type ClientLinkUpdate = Schemas['ClientLinkUpdate'];
export type Favorites = Schemas['Favorites'];
export type ShareLink = Schemas['ShareLink'];
export type ShareLinkCreate = Schemas['ShareLinkCreate'];
export type ShareLinkUpdate = Schemas['ShareLinkUpdate'];
export type Client = Schemas['Client'];
export type ClientItem = Schemas['ClientItem'];
export type ClientCreate = Schemas['ClientCreate'];
export type ClientUpdate = Schemas['ClientUpdate'];
export type Media = Schemas['Media'];
export type MediaKind = Schemas['MediaKind'];
export type MediaUpdate = Schemas['MediaUpdate'];
export type MediaVariants = Schemas['MediaVariants'];
/** A video's poster and web rendition (docs/api.md §25). */
export type MediaVideoVariants = Schemas['MediaVideoVariants'];
export type MediaVariant = Schemas['MediaVariant'];
/** A gallery's photos in a suggested order, and why (docs/api.md §30). */
export type SuggestedOrder = Schemas['SuggestedOrder'];
export type Notification = Schemas['Notification'];
export type NotificationStatus = Schemas['NotificationStatus'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type WebhookEndpointCreate = Schemas['WebhookEndpointCreate'];
export type WebhookEndpointUpdate = Schemas['WebhookEndpointUpdate'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookDeliveryStatus = Schemas['WebhookDeliveryStatus'];
export type Event = Schemas['Event'];
export type EventType = Schemas['EventType'];
export type EventSubscription = Schemas['EventSubscription'];
/** docs/api.md §29: amounts are integers in the account currency's minor unit. */
export type Product = Schemas['Product'];
export type ResoMedia = Schemas['ResoMedia'];
export type ResoMediaFeed = Schemas['ResoMediaFeed'];
export type ProductCreate = Schemas['ProductCreate'];
export type ProductUpdate = Schemas['ProductUpdate'];
export type Invoice = Schemas['Invoice'];
export type InvoiceItem = Schemas['InvoiceItem'];
export type InvoiceItemInput = Schemas['InvoiceItemInput'];
export type InvoiceCreate = Schemas['InvoiceCreate'];
export type InvoiceUpdate = Schemas['InvoiceUpdate'];
export type InvoiceStatus = Invoice['status'];
export type Payment = Schemas['Payment'];
export type PaymentCreate = Schemas['PaymentCreate'];
export type PaymentMethod = Payment['method'];
/** docs/api.md §31. */
export type MlsProfile = Schemas['MlsProfile'];
export type MlsProfileCreate = Schemas['MlsProfileCreate'];
export type MlsProfileUpdate = Schemas['MlsProfileUpdate'];
export type ComplianceReport = Schemas['ComplianceReport'];
export type Kit = Schemas['Kit'];
export type Pagination = Schemas['Pagination'];
export type ErrorCode = Schemas['Error']['error']['code'];
export type ErrorDetail = NonNullable<Schemas['Error']['error']['details']>[number];

/** What the client saw of the HTTP response that carried a result. */
export interface ResponseInfo {
  status: number;
  headers: Headers;
  /** `X-Request-Id`: quote it when asking for support. */
  requestId: string | null;
  /** The representation's `ETag`, when the server sent one: pass it back as `ifNoneMatch`. */
  etag: string | null;
}

/**
 * A result with the response it came in. `lastResponse` is not enumerable: it does not show in
 * JSON.stringify or in deep-equality checks of the object.
 */
export type WithResponse<T> = T & { readonly lastResponse: ResponseInfo };

/** One page of a list: `data`, `pagination` ({page, limit, total}) and the response. */
export type Page<T> = WithResponse<{ data: T[]; pagination: Pagination }>;
