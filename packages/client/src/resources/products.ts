// lb.products: the studio's catalogue of what it sells (docs/api.md §29). Prices are integers in
// the account currency's minor unit (2500 is 25.00 USD).
import type { Conditional, GetOptions, HttpClient, RequestOptions } from '../core.ts';
import { at, iteratePages, segment } from '../pagination.ts';
import type { Page, Product, ProductCreate, ProductUpdate, QueryParams, ResponseInfo, WithResponse } from '../types.ts';

export type ProductListParams = QueryParams<'listProducts'>;

export class Products {
  readonly #http: HttpClient;
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /** POST /v1/products: `name` and `unit_amount` (minor units) required. */
  create(body: ProductCreate, options?: RequestOptions): Promise<WithResponse<Product>> {
    return this.#http.json({ method: 'POST', path: '/v1/products', json: body, options });
  }

  /** GET /v1/products/:id. */
  get<O extends GetOptions | undefined = undefined>(id: string, options?: O): Promise<Conditional<O, Product>> {
    return this.#http.get<Product, O>(`/v1/products/${segment(id)}`, undefined, options as O);
  }

  /** PATCH /v1/products/:id: invoices already made keep the name and price they copied. */
  update(id: string, body: ProductUpdate, options?: RequestOptions): Promise<WithResponse<Product>> {
    return this.#http.json({ method: 'PATCH', path: `/v1/products/${segment(id)}`, json: body, options });
  }

  /** DELETE /v1/products/:id (204): invoices keep what they copied from it. */
  delete(id: string, options?: RequestOptions): Promise<ResponseInfo> {
    return this.#http.empty({ method: 'DELETE', path: `/v1/products/${segment(id)}`, options });
  }

  /** GET /v1/products: one page, newest first. */
  list<O extends GetOptions | undefined = undefined>(
    params: ProductListParams = {},
    options?: O,
  ): Promise<Conditional<O, Page<Product>>> {
    return this.#http.get<Page<Product>, O>('/v1/products', params, options as O);
  }

  /** Every product, across pages. */
  iterate(params: ProductListParams = {}, options?: RequestOptions): AsyncGenerator<Product, void, undefined> {
    return iteratePages((position, limit) => this.list(at(params, position, limit), options), params);
  }
}
