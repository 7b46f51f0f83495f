// lb.clients: the studio's clients (docs/api.md §7) and assignment of galleries (docs/api.md §7, §14).
import type { Conditional, GetOptions, HttpClient, RequestOptions } from '../core.ts';
import { at, iteratePages, segment } from '../pagination.ts';
import type {
  ClientCreate,
  ClientItem,
  ClientUpdate,
  Listing,
  ListingItem,
  Notification,
  Page,
  QueryParams,
  ResponseBody,
  ResponseInfo,
  WithResponse,
} from '../types.ts';

export type ClientListParams = QueryParams<'listClients'>;
export type ClientListingsParams = QueryParams<'listClientListings'>;

/** The single-client object: the client with its galleries (`listings`). */
export type ClientWithListings = ResponseBody<'getClient', 200>;

export interface AssignOptions extends RequestOptions {
  /** false: assign without the notification email (default true). */
  notify?: boolean;
}

export class Clients {
  readonly #http: HttpClient;
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /** POST /v1/clients (a duplicate email in the account is a ConflictError). */
  create(body: ClientCreate, options?: RequestOptions): Promise<WithResponse<ClientWithListings>> {
    return this.#http.json({ method: 'POST', path: '/v1/clients', json: body, options });
  }

  /** GET /v1/clients/:id, with the client's galleries. */
  get<O extends GetOptions | undefined = undefined>(
    id: string,
    options?: O,
  ): Promise<Conditional<O, ClientWithListings>> {
    return this.#http.get<ClientWithListings, O>(`/v1/clients/${segment(id)}`, undefined, options as O);
  }

  /** PATCH /v1/clients/:id. */
  update(id: string, body: ClientUpdate, options?: RequestOptions): Promise<WithResponse<ClientWithListings>> {
    return this.#http.json({ method: 'PATCH', path: `/v1/clients/${segment(id)}`, json: body, options });
  }

  /**
   * POST /v1/clients/:id/portal/rotate (docs/api.md §28): a new `portal_url` for the client's portal;
   * the old one stops working at once.
   */
  rotatePortal(id: string, options?: RequestOptions): Promise<WithResponse<ClientWithListings>> {
    return this.#http.json({ method: 'POST', path: `/v1/clients/${segment(id)}/portal/rotate`, options });
  }

  /** DELETE /v1/clients/:id: their galleries stay, unassigned; unsent emails are cancelled. */
  delete(id: string, options?: RequestOptions): Promise<ResponseInfo> {
    return this.#http.empty({ method: 'DELETE', path: `/v1/clients/${segment(id)}`, options });
  }

  /** GET /v1/clients: one page, newest first; `search` matches name or email. */
  list<O extends GetOptions | undefined = undefined>(
    params: ClientListParams = {},
    options?: O,
  ): Promise<Conditional<O, Page<ClientItem>>> {
    return this.#http.get<Page<ClientItem>, O>('/v1/clients', params, options as O);
  }

  /** Every client matching `params`, across pages. */
  iterate(params: ClientListParams = {}, options?: RequestOptions): AsyncGenerator<ClientItem, void, undefined> {
    return iteratePages((position, limit) => this.list(at(params, position, limit), options), params);
  }

  /**
   * GET /v1/clients/:id/listings: all the client's galleries (one page holds them all); with
   * `page`, `limit` or `cursor`, one page of them.
   */
  listings<O extends GetOptions | undefined = undefined>(
    clientId: string,
    params: ClientListingsParams = {},
    options?: O,
  ): Promise<Conditional<O, Page<ListingItem>>> {
    const query = Object.keys(params).length === 0 ? undefined : params;
    return this.#http.get<Page<ListingItem>, O>(`/v1/clients/${segment(clientId)}/listings`, query, options as O);
  }

  /** POST /v1/clients/:id/listings/:listing_id: the gallery's client becomes this one (emailed unless `notify: false`). */
  assign(clientId: string, listingId: string, options: AssignOptions = {}): Promise<WithResponse<Listing>> {
    const { notify, ...rest } = options;
    return this.#http.json({
      method: 'POST',
      path: `/v1/clients/${segment(clientId)}/listings/${segment(listingId)}`,
      query: notify === undefined ? undefined : { notify },
      options: rest,
    });
  }

  /** DELETE /v1/clients/:id/listings/:listing_id (NotFoundError unless assigned to that client). */
  unassign(clientId: string, listingId: string, options?: RequestOptions): Promise<ResponseInfo> {
    return this.#http.empty({
      method: 'DELETE',
      path: `/v1/clients/${segment(clientId)}/listings/${segment(listingId)}`,
      options,
    });
  }

  /** POST /v1/clients/:id/listings/:listing_id/notify: the email again; answers the new notification. */
  notify(clientId: string, listingId: string, options?: RequestOptions): Promise<WithResponse<Notification>> {
    return this.#http.json({
      method: 'POST',
      path: `/v1/clients/${segment(clientId)}/listings/${segment(listingId)}/notify`,
      options,
    });
  }
}
