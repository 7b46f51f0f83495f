// lb.invoices: invoices of a gallery's client, their payments and their PDF (docs/api.md §29).
// Every amount is an integer in the account currency's minor unit; there are no floats.
import type { Conditional, GetOptions, HttpClient, RequestOptions } from '../core.ts';
import { at, iteratePages, segment } from '../pagination.ts';
import type {
  Invoice,
  InvoiceCreate,
  InvoiceUpdate,
  Page,
  Payment,
  PaymentCreate,
  QueryParams,
  ResponseInfo,
  WithResponse,
} from '../types.ts';

export type InvoiceListParams = QueryParams<'listInvoices'>;
export type PaymentListParams = QueryParams<'listPayments'>;

export class Invoices {
  readonly #http: HttpClient;
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /**
   * POST /v1/invoices: a draft for the gallery's client (ConflictError when the gallery has none).
   * Each item is a `product_id` (its name and price copied) or a `description` and `unit_amount`.
   */
  create(body: InvoiceCreate, options?: RequestOptions): Promise<WithResponse<Invoice>> {
    return this.#http.json({ method: 'POST', path: '/v1/invoices', json: body, options });
  }

  /** GET /v1/invoices/:id. */
  get<O extends GetOptions | undefined = undefined>(id: string, options?: O): Promise<Conditional<O, Invoice>> {
    return this.#http.get<Invoice, O>(`/v1/invoices/${segment(id)}`, undefined, options as O);
  }

  /** PATCH /v1/invoices/:id: a draft only (ConflictError otherwise). */
  update(id: string, body: InvoiceUpdate, options?: RequestOptions): Promise<WithResponse<Invoice>> {
    return this.#http.json({ method: 'PATCH', path: `/v1/invoices/${segment(id)}`, json: body, options });
  }

  /** DELETE /v1/invoices/:id (204): a draft only (ConflictError otherwise). */
  delete(id: string, options?: RequestOptions): Promise<ResponseInfo> {
    return this.#http.empty({ method: 'DELETE', path: `/v1/invoices/${segment(id)}`, options });
  }

  /** GET /v1/invoices: one page, newest first; filters `listing_id`, `client_id`, `status`. */
  list<O extends GetOptions | undefined = undefined>(
    params: InvoiceListParams = {},
    options?: O,
  ): Promise<Conditional<O, Page<Invoice>>> {
    return this.#http.get<Page<Invoice>, O>('/v1/invoices', params, options as O);
  }

  /** Every invoice matching `params`, across pages. */
  iterate(params: InvoiceListParams = {}, options?: RequestOptions): AsyncGenerator<Invoice, void, undefined> {
    return iteratePages((position, limit) => this.list(at(params, position, limit), options), params);
  }

  /** POST /v1/invoices/:id/issue (draft → open): numbered and emailed to the client with its PDF. */
  issue(id: string, options?: RequestOptions): Promise<WithResponse<Invoice>> {
    return this.#http.json({ method: 'POST', path: `/v1/invoices/${segment(id)}/issue`, options });
  }

  /** POST /v1/invoices/:id/void (open → void); any other transition is a ConflictError. */
  void(id: string, options?: RequestOptions): Promise<WithResponse<Invoice>> {
    return this.#http.json({ method: 'POST', path: `/v1/invoices/${segment(id)}/void`, options });
  }

  /**
   * POST /v1/invoices/:id/payments (201): money received outside, `amount` 1..amount_due; reaching
   * the total makes the invoice `paid`.
   */
  createPayment(id: string, body: PaymentCreate, options?: RequestOptions): Promise<WithResponse<Payment>> {
    return this.#http.json({ method: 'POST', path: `/v1/invoices/${segment(id)}/payments`, json: body, options });
  }

  /** GET /v1/invoices/:id/payments: one page of the invoice's payments, newest first. */
  listPayments<O extends GetOptions | undefined = undefined>(
    id: string,
    params: PaymentListParams = {},
    options?: O,
  ): Promise<Conditional<O, Page<Payment>>> {
    return this.#http.get<Page<Payment>, O>(`/v1/invoices/${segment(id)}/payments`, params, options as O);
  }

  /** Every payment of an invoice, across pages. */
  iteratePayments(
    id: string,
    params: PaymentListParams = {},
    options?: RequestOptions,
  ): AsyncGenerator<Payment, void, undefined> {
    return iteratePages((position, limit) => this.listPayments(id, at(params, position, limit), options), params);
  }

  /**
   * GET /v1/invoices/:id/pdf: the invoice as a PDF; answers the fetch `Response` (`application/pdf`,
   * stream `res.body` or read `res.arrayBuffer()`); 304 with `ifNoneMatch` when unchanged.
   */
  downloadPdf(id: string, options: GetOptions = {}): Promise<Response> {
    const { ifNoneMatch, ...rest } = options;
    const headers: Record<string, string> = { accept: 'application/pdf' };
    if (ifNoneMatch !== undefined) headers['if-none-match'] = ifNoneMatch;
    return this.#http.send({
      method: 'GET',
      path: `/v1/invoices/${segment(id)}/pdf`,
      headers,
      options: rest,
      accept: [304],
    });
  }
}
