// lb.account: the studio behind the API key, and the key itself (docs/api.md §20). Its test data
// is lb.testData.
import type { Conditional, GetOptions, HttpClient } from '../core.ts';
import type { ResponseBody } from '../types.ts';

export type Account = ResponseBody<'getAccount', 200>;

export class AccountResource {
  readonly #http: HttpClient;
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /** GET /v1/account: `{id, name, email, livemode, key}`, to label a connection. */
  get<O extends GetOptions | undefined = undefined>(options?: O): Promise<Conditional<O, Account>> {
    return this.#http.get<Account, O>('/v1/account', undefined, options as O);
  }
}
