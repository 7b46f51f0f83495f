// lb.testData: the studio's test data as a whole (docs/api.md §20).
import type { HttpClient, RequestOptions } from '../core.ts';
import type { ResponseBody, WithResponse } from '../types.ts';

export type TestDataDeletion = ResponseBody<'deleteTestData', 202>;

export class TestData {
  readonly #http: HttpClient;
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /**
   * DELETE /v1/test_data: removes every test object of the account, bytes included (202
   * `{deleted: true}`). A full test key (`lbx_test_`) only: a live key gets a PermissionError (403).
   */
  delete(options?: RequestOptions): Promise<WithResponse<TestDataDeletion>> {
    return this.#http.json({ method: 'DELETE', path: '/v1/test_data', options });
  }
}
