// lb.listings: galleries (docs/api.md §5), their client link (docs/api.md §14) and property pages (docs/api.md §25).
import type { Conditional, GetOptions, HttpClient, RequestOptions } from '../core.ts';
import { at, iteratePages, segment } from '../pagination.ts';
import type {
  ClientLinkUpdate,
  ComplianceReport,
  Kit,
  Favorites,
  Listing,
  ListingCreate,
  ListingItem,
  ListingUpdate,
  Notification,
  Page,
  QueryParams,
  ShareLink,
  ShareLinkCreate,
  ShareLinkUpdate,
  ResponseInfo,
  WithResponse,
} from '../types.ts';

export type ListingListParams = QueryParams<'listListings'>;
export type ShareLinkListParams = QueryParams<'listShareLinks'>;
export type ComplianceParams = QueryParams<'getListingCompliance'>;

export class Listings {
  readonly #http: HttpClient;
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /** POST /v1/listings: a new gallery (status `draft` unless given). */
  create(body: ListingCreate, options?: RequestOptions): Promise<WithResponse<Listing>> {
    return this.#http.json({ method: 'POST', path: '/v1/listings', json: body, options });
  }

  /** GET /v1/listings/:id. */
  get<O extends GetOptions | undefined = undefined>(id: string, options?: O): Promise<Conditional<O, Listing>> {
    return this.#http.get<Listing, O>(`/v1/listings/${segment(id)}`, undefined, options as O);
  }

  /** PATCH /v1/listings/:id: at least one field. */
  update(id: string, body: ListingUpdate, options?: RequestOptions): Promise<WithResponse<Listing>> {
    return this.#http.json({ method: 'PATCH', path: `/v1/listings/${segment(id)}`, json: body, options });
  }

  /** DELETE /v1/listings/:id: the gallery, its media and their bytes. */
  delete(id: string, options?: RequestOptions): Promise<ResponseInfo> {
    return this.#http.empty({ method: 'DELETE', path: `/v1/listings/${segment(id)}`, options });
  }

  /** GET /v1/listings: one page, newest first. */
  list<O extends GetOptions | undefined = undefined>(
    params: ListingListParams = {},
    options?: O,
  ): Promise<Conditional<O, Page<ListingItem>>> {
    return this.#http.get<Page<ListingItem>, O>('/v1/listings', params, options as O);
  }

  /** Every gallery matching `params`, across pages: `for await (const g of lb.listings.iterate())`. */
  iterate(params: ListingListParams = {}, options?: RequestOptions): AsyncGenerator<ListingItem, void, undefined> {
    return iteratePages((position, limit) => this.list(at(params, position, limit), options), params);
  }

  /** POST /v1/listings/:id/client_link: a new link for the assigned client (the old one stops). */
  replaceClientLink(id: string, options?: RequestOptions): Promise<WithResponse<Listing>> {
    return this.#http.json({ method: 'POST', path: `/v1/listings/${segment(id)}/client_link`, options });
  }

  /**
   * PATCH /v1/listings/:id/client_link: the link's `expires_at`, `password` (null removes it; never
   * returned) and `downloads_enabled`. 409 when the gallery has no client.
   */
  updateClientLink(id: string, body: ClientLinkUpdate, options?: RequestOptions): Promise<WithResponse<Listing>> {
    return this.#http.json({ method: 'PATCH', path: `/v1/listings/${segment(id)}/client_link`, json: body, options });
  }

  /**
   * PUT /v1/listings/:id/property_page: publishes an active gallery as its two public pages
   * (`property_page.url`, `property_page.unbranded_url`); 409 unless the gallery is active.
   */
  publishPropertyPage(id: string, options?: RequestOptions): Promise<WithResponse<Listing>> {
    return this.#http.json({ method: 'PUT', path: `/v1/listings/${segment(id)}/property_page`, options });
  }

  /** DELETE /v1/listings/:id/property_page: both pages stop at once (publishing again gives new URLs). */
  unpublishPropertyPage(id: string, options?: RequestOptions): Promise<ResponseInfo> {
    return this.#http.empty({ method: 'DELETE', path: `/v1/listings/${segment(id)}/property_page`, options });
  }

  /**
   * GET /v1/listings/:id/compliance (docs/api.md §31): the gallery against its MLS profile, or the
   * one `profile_id` names (400 when neither).
   */
  getCompliance<O extends GetOptions | undefined = undefined>(
    id: string,
    params: ComplianceParams = {},
    options?: O,
  ): Promise<Conditional<O, ComplianceReport>> {
    return this.#http.get<ComplianceReport, O>(`/v1/listings/${segment(id)}/compliance`, params, options as O);
  }

  /** GET /v1/listings/:id/kit: the listing kit's status and items (docs/api.md §32). */
  getKit<O extends GetOptions | undefined = undefined>(id: string, options?: O): Promise<Conditional<O, Kit>> {
    return this.#http.get<Kit, O>(`/v1/listings/${segment(id)}/kit`, undefined, options as O);
  }

  /** POST /v1/listings/:id/kit: builds (or rebuilds) the kit in the background (202); `listing.kit_ready` when done. */
  buildKit(id: string, options?: RequestOptions): Promise<WithResponse<Kit>> {
    return this.#http.json({ method: 'POST', path: `/v1/listings/${segment(id)}/kit`, options });
  }

  /**
   * GET /v1/listings/:id/kit/:name: one item's bytes (`mls_zip`, `slideshow`, `flyer`, ...);
   * answers the fetch `Response` (stream `res.body`); Range and 304 with `ifNoneMatch` pass through.
   */
  downloadKitItem(id: string, name: string, options: GetOptions & { range?: string } = {}): Promise<Response> {
    const { ifNoneMatch, range, ...rest } = options;
    const headers: Record<string, string> = {};
    if (ifNoneMatch !== undefined) headers['if-none-match'] = ifNoneMatch;
    if (range !== undefined) headers.range = range;
    return this.#http.send({
      method: 'GET',
      path: `/v1/listings/${segment(id)}/kit/${segment(name)}`,
      headers,
      options: rest,
      accept: [206, 304],
    });
  }

  /** GET /v1/listings/:id/favorites: the photos the client marked (position order), the note, when sent. */
  favorites<O extends GetOptions | undefined = undefined>(id: string, options?: O): Promise<Conditional<O, Favorites>> {
    return this.#http.get<Favorites, O>(`/v1/listings/${segment(id)}/favorites`, undefined, options as O);
  }

  /** POST /v1/listings/:id/share_links: a share link (docs/api.md §28; at most 50 a gallery, else 409). */
  createShareLink(id: string, body: ShareLinkCreate, options?: RequestOptions): Promise<WithResponse<ShareLink>> {
    return this.#http.json({ method: 'POST', path: `/v1/listings/${segment(id)}/share_links`, json: body, options });
  }

  /** GET /v1/listings/:id/share_links: one page of the gallery's share links, newest first. */
  listShareLinks<O extends GetOptions | undefined = undefined>(
    id: string,
    params: ShareLinkListParams = {},
    options?: O,
  ): Promise<Conditional<O, Page<ShareLink>>> {
    return this.#http.get<Page<ShareLink>, O>(`/v1/listings/${segment(id)}/share_links`, params, options as O);
  }

  /** GET /v1/listings/:id/share_links/:share_link_id. */
  getShareLink<O extends GetOptions | undefined = undefined>(
    id: string,
    shareLinkId: string,
    options?: O,
  ): Promise<Conditional<O, ShareLink>> {
    return this.#http.get<ShareLink, O>(shareLinkPath(id, shareLinkId), undefined, options as O);
  }

  /** PATCH /v1/listings/:id/share_links/:share_link_id: any field but `email`. */
  updateShareLink(
    id: string,
    shareLinkId: string,
    body: ShareLinkUpdate,
    options?: RequestOptions,
  ): Promise<WithResponse<ShareLink>> {
    return this.#http.json({ method: 'PATCH', path: shareLinkPath(id, shareLinkId), json: body, options });
  }

  /** DELETE /v1/listings/:id/share_links/:share_link_id: the link stops at once. */
  deleteShareLink(id: string, shareLinkId: string, options?: RequestOptions): Promise<ResponseInfo> {
    return this.#http.empty({ method: 'DELETE', path: shareLinkPath(id, shareLinkId), options });
  }

  /** POST .../share_links/:share_link_id/rotate: a new token (the old URL stops; counters kept). */
  rotateShareLink(id: string, shareLinkId: string, options?: RequestOptions): Promise<WithResponse<ShareLink>> {
    return this.#http.json({ method: 'POST', path: `${shareLinkPath(id, shareLinkId)}/rotate`, options });
  }

  /** POST .../share_links/:share_link_id/notify: emails the link to its recipient again (202). */
  notifyShareLink(id: string, shareLinkId: string, options?: RequestOptions): Promise<WithResponse<Notification>> {
    return this.#http.json({ method: 'POST', path: `${shareLinkPath(id, shareLinkId)}/notify`, options });
  }

  /** GET .../share_links/:share_link_id/favorites: the photos marked, the comments, the note. */
  shareLinkFavorites<O extends GetOptions | undefined = undefined>(
    id: string,
    shareLinkId: string,
    options?: O,
  ): Promise<Conditional<O, Favorites>> {
    return this.#http.get<Favorites, O>(`${shareLinkPath(id, shareLinkId)}/favorites`, undefined, options as O);
  }
}

const shareLinkPath = (id: string, shareLinkId: string): string =>
  `/v1/listings/${segment(id)}/share_links/${segment(shareLinkId)}`;
