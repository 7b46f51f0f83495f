// lb.account: the studio behind the API key, the key itself, and its test data (docs/api.md §20).
import type { Conditional, GetOptions, HttpClient, RequestOptions } from '../core.ts';
import type { ResponseBody, WithResponse } from '../types.ts';

export type Account = ResponseBody<'getAccount', 200>;
export type TestDataDeletion = ResponseBody<'deleteTestData', 202>;

export class AccountResource {
  readonly #http: HttpClient;
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /** GET /v1/account: `{id, name, email, livemode, key}`, to label a connection. */
  get<O extends GetOptions | undefined = undefined>(options?: O): Promise<Conditional<O, Account>> {
    return this.#http.get<Account, O>('/v1/account', undefined, options as O);
  }

  /**
   * DELETE /v1/test_data: removes every test object of the account, bytes included (202
   * `{deleted: true}`). A full test key (`lbx_test_`) only: a live key gets a ForbiddenError (403).
   */
  deleteTestData(options?: RequestOptions): Promise<WithResponse<TestDataDeletion>> {
    return this.#http.json({ method: 'DELETE', path: '/v1/test_data', options });
  }
}
