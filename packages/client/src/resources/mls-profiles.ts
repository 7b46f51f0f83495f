// lb.mlsProfiles: what each listing service (MLS) accepts of a gallery's photos (docs/api.md §31).
// A gallery's compliance with one is lb.listings.getCompliance.
import type { Conditional, GetOptions, HttpClient, RequestOptions } from '../core.ts';
import { at, iteratePages, segment } from '../pagination.ts';
import type {
  Page,
  MlsProfile,
  MlsProfileCreate,
  MlsProfileUpdate,
  QueryParams,
  ResponseInfo,
  WithResponse,
} from '../types.ts';

export type MlsProfileListParams = QueryParams<'listMlsProfiles'>;

export class MlsProfiles {
  readonly #http: HttpClient;
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /** POST /v1/mls_profiles: `name` required; the rest take their defaults. */
  create(body: MlsProfileCreate, options?: RequestOptions): Promise<WithResponse<MlsProfile>> {
    return this.#http.json({ method: 'POST', path: '/v1/mls_profiles', json: body, options });
  }

  /** GET /v1/mls_profiles/:id. */
  get<O extends GetOptions | undefined = undefined>(id: string, options?: O): Promise<Conditional<O, MlsProfile>> {
    return this.#http.get<MlsProfile, O>(`/v1/mls_profiles/${segment(id)}`, undefined, options as O);
  }

  /** PATCH /v1/mls_profiles/:id: new sizes make the galleries' `mls` variants again. */
  update(id: string, body: MlsProfileUpdate, options?: RequestOptions): Promise<WithResponse<MlsProfile>> {
    return this.#http.json({ method: 'PATCH', path: `/v1/mls_profiles/${segment(id)}`, json: body, options });
  }

  /** DELETE /v1/mls_profiles/:id (204): the galleries that used it are left with none. */
  delete(id: string, options?: RequestOptions): Promise<ResponseInfo> {
    return this.#http.empty({ method: 'DELETE', path: `/v1/mls_profiles/${segment(id)}`, options });
  }

  /** GET /v1/mls_profiles: one page, newest first. */
  list<O extends GetOptions | undefined = undefined>(
    params: MlsProfileListParams = {},
    options?: O,
  ): Promise<Conditional<O, Page<MlsProfile>>> {
    return this.#http.get<Page<MlsProfile>, O>('/v1/mls_profiles', params, options as O);
  }

  /** every MLS profile, across pages. */
  iterate(params: MlsProfileListParams = {}, options?: RequestOptions): AsyncGenerator<MlsProfile, void, undefined> {
    return iteratePages((position, limit) => this.list(at(params, position, limit), options), params);
  }
}
