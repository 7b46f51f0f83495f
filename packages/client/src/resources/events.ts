// lb.events: what happened in the account, newest first, kept 30 days (docs/api.md §15).
import type { Conditional, GetOptions, HttpClient, RequestOptions } from '../core.ts';
import { at, iteratePages, segment } from '../pagination.ts';
import type { Event, Page, QueryParams } from '../types.ts';

export type EventListParams = QueryParams<'listEvents'>;

export class Events {
  readonly #http: HttpClient;
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /** GET /v1/events/:id. */
  get<O extends GetOptions | undefined = undefined>(id: string, options?: O): Promise<Conditional<O, Event>> {
    return this.#http.get<Event, O>(`/v1/events/${segment(id)}`, undefined, options as O);
  }

  /** GET /v1/events: one page; `type` filters by event type. */
  list<O extends GetOptions | undefined = undefined>(
    params: EventListParams = {},
    options?: O,
  ): Promise<Conditional<O, Page<Event>>> {
    return this.#http.get<Page<Event>, O>('/v1/events', params, options as O);
  }

  /** Every event matching `params`, across pages. */
  iterate(params: EventListParams = {}, options?: RequestOptions): AsyncGenerator<Event, void, undefined> {
    return iteratePages((position, limit) => this.list(at(params, position, limit), options), params);
  }
}
