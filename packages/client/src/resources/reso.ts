// lb.reso: the studio's photos as a RESO Media feed for MLS systems (docs/api.md §33), in OData
// JSON. `media` answers one page; `iterateMedia` every record, following `@odata.nextLink`
// (a photo changed during the walk comes again later, never skipped).
import type { Conditional, GetOptions, HttpClient, RequestOptions } from '../core.ts';
import type { QueryParams, ResoMedia, ResoMediaFeed } from '../types.ts';

export type ResoMediaParams = QueryParams<'resoMedia'>;

export class Reso {
  readonly #http: HttpClient;
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /** GET /v1/reso/Media: one page (`$filter`, `$top` 1..1000, `$orderby`). */
  media<O extends GetOptions | undefined = undefined>(
    params: ResoMediaParams = {},
    options?: O,
  ): Promise<Conditional<O, ResoMediaFeed>> {
    return this.#http.get<ResoMediaFeed, O>('/v1/reso/Media', params, options as O);
  }

  /** Every record, page after page, following `@odata.nextLink`. */
  async *iterateMedia(
    params: ResoMediaParams = {},
    options?: RequestOptions,
  ): AsyncGenerator<ResoMedia, void, undefined> {
    let page = await this.media(params, options);
    for (;;) {
      yield* page.value;
      const next = page['@odata.nextLink'];
      if (next === undefined || page.value.length === 0) return;
      const cursor = new URL(next).searchParams.get('cursor');
      if (cursor === null) return;
      page = await this.media({ ...params, cursor }, options);
    }
  }
}
