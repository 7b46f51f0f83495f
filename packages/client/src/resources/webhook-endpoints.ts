// lb.webhookEndpoints: where events are delivered, and their deliveries (docs/api.md §15).
import type { Conditional, GetOptions, HttpClient, RequestOptions } from '../core.ts';
import { at, iteratePages, segment } from '../pagination.ts';
import type {
  Page,
  QueryParams,
  ResponseInfo,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointUpdate,
  WebhookEndpointWithSecret,
  WithResponse,
} from '../types.ts';

export type WebhookEndpointListParams = QueryParams<'listWebhookEndpoints'>;
export type WebhookDeliveryListParams = QueryParams<'listWebhookDeliveries'>;

export class WebhookEndpoints {
  readonly #http: HttpClient;
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /** POST /v1/webhook_endpoints: the answer carries the signing `secret`, shown this once. */
  create(body: WebhookEndpointCreate, options?: RequestOptions): Promise<WithResponse<WebhookEndpointWithSecret>> {
    return this.#http.json({ method: 'POST', path: '/v1/webhook_endpoints', json: body, options });
  }

  /** GET /v1/webhook_endpoints/:id. */
  get<O extends GetOptions | undefined = undefined>(id: string, options?: O): Promise<Conditional<O, WebhookEndpoint>> {
    return this.#http.get<WebhookEndpoint, O>(`/v1/webhook_endpoints/${segment(id)}`, undefined, options as O);
  }

  /** PATCH /v1/webhook_endpoints/:id (`url`, `events`, `description`, `enabled`). */
  update(id: string, body: WebhookEndpointUpdate, options?: RequestOptions): Promise<WithResponse<WebhookEndpoint>> {
    return this.#http.json({ method: 'PATCH', path: `/v1/webhook_endpoints/${segment(id)}`, json: body, options });
  }

  /** DELETE /v1/webhook_endpoints/:id. */
  delete(id: string, options?: RequestOptions): Promise<ResponseInfo> {
    return this.#http.empty({ method: 'DELETE', path: `/v1/webhook_endpoints/${segment(id)}`, options });
  }

  /** GET /v1/webhook_endpoints: one page, newest first. */
  list<O extends GetOptions | undefined = undefined>(
    params: WebhookEndpointListParams = {},
    options?: O,
  ): Promise<Conditional<O, Page<WebhookEndpoint>>> {
    return this.#http.get<Page<WebhookEndpoint>, O>('/v1/webhook_endpoints', params, options as O);
  }

  /** Every endpoint, across pages. */
  iterate(
    params: WebhookEndpointListParams = {},
    options?: RequestOptions,
  ): AsyncGenerator<WebhookEndpoint, void, undefined> {
    return iteratePages((position, limit) => this.list(at(params, position, limit), options), params);
  }

  /** POST /v1/webhook_endpoints/:id/rotate_secret: a new secret (the old one signs for 24 more hours). */
  rotateSecret(id: string, options?: RequestOptions): Promise<WithResponse<WebhookEndpointWithSecret>> {
    return this.#http.json({ method: 'POST', path: `/v1/webhook_endpoints/${segment(id)}/rotate_secret`, options });
  }

  /** POST /v1/webhook_endpoints/:id/test: sends a `webhook.test` event to it (202, the delivery). */
  test(id: string, options?: RequestOptions): Promise<WithResponse<WebhookDelivery>> {
    return this.#http.json({ method: 'POST', path: `/v1/webhook_endpoints/${segment(id)}/test`, options });
  }

  /** GET /v1/webhook_endpoints/:id/deliveries: one page of its deliveries, newest first. */
  deliveries<O extends GetOptions | undefined = undefined>(
    id: string,
    params: WebhookDeliveryListParams = {},
    options?: O,
  ): Promise<Conditional<O, Page<WebhookDelivery>>> {
    return this.#http.get<Page<WebhookDelivery>, O>(
      `/v1/webhook_endpoints/${segment(id)}/deliveries`,
      params,
      options as O,
    );
  }

  /** Every delivery of an endpoint matching `params`, across pages. */
  iterateDeliveries(
    id: string,
    params: WebhookDeliveryListParams = {},
    options?: RequestOptions,
  ): AsyncGenerator<WebhookDelivery, void, undefined> {
    return iteratePages((position, limit) => this.deliveries(id, at(params, position, limit), options), params);
  }

  /** POST /v1/webhook_endpoints/:id/deliveries/:delivery_id/retry: sends it again now (202, the delivery). */
  retry(id: string, deliveryId: string, options?: RequestOptions): Promise<WithResponse<WebhookDelivery>> {
    return this.#http.json({
      method: 'POST',
      path: `/v1/webhook_endpoints/${segment(id)}/deliveries/${segment(deliveryId)}/retry`,
      options,
    });
  }
}
