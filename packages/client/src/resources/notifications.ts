// lb.notifications: the emails sent to clients (docs/api.md §8).
import type { Conditional, GetOptions, HttpClient, RequestOptions } from '../core.ts';
import { at, iteratePages, segment } from '../pagination.ts';
import type { Notification, Page, QueryParams } from '../types.ts';

export type NotificationListParams = QueryParams<'listNotifications'>;

export class Notifications {
  readonly #http: HttpClient;
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /** GET /v1/notifications/:id. */
  get<O extends GetOptions | undefined = undefined>(id: string, options?: O): Promise<Conditional<O, Notification>> {
    return this.#http.get<Notification, O>(`/v1/notifications/${segment(id)}`, undefined, options as O);
  }

  /** GET /v1/notifications: one page, newest first. */
  list<O extends GetOptions | undefined = undefined>(
    params: NotificationListParams = {},
    options?: O,
  ): Promise<Conditional<O, Page<Notification>>> {
    return this.#http.get<Page<Notification>, O>('/v1/notifications', params, options as O);
  }

  /** Every notification matching `params`, across pages. */
  iterate(
    params: NotificationListParams = {},
    options?: RequestOptions,
  ): AsyncGenerator<Notification, void, undefined> {
    return iteratePages((position, limit) => this.list(at(params, position, limit), options), params);
  }
}
