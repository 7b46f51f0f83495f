// The maintained counts, by name, and the changes each kind of write makes to them. Services
// collect these while they write and apply them last in the same transaction (counts.repository).
import type { EventType, ListingStatus, NotificationStatus } from '../../db/schema.ts';

export type Counter =
  | 'listings'
  | `listings:${ListingStatus}`
  | 'clients'
  | 'media'
  | 'notifications'
  | `notifications:${NotificationStatus}`
  | 'events'
  | `events:${EventType}`;

/** Signed changes to some counters of one account. */
export type CountDeltas = Partial<Record<Counter, number>>;

export const listingsCounter = (status?: ListingStatus): Counter =>
  status === undefined ? 'listings' : `listings:${status}`;
export const notificationsCounter = (status?: NotificationStatus): Counter =>
  status === undefined ? 'notifications' : `notifications:${status}`;

export const listingsAdded = (status: ListingStatus, n = 1): CountDeltas => ({
  listings: n,
  [listingsCounter(status)]: n,
});

export const listingMoved = (from: ListingStatus, to: ListingStatus): CountDeltas =>
  from === to ? {} : { [listingsCounter(from)]: -1, [listingsCounter(to)]: 1 };

export const notificationsMoved = (from: NotificationStatus, to: NotificationStatus, n = 1): CountDeltas =>
  from === to || n === 0 ? {} : { [notificationsCounter(from)]: -n, [notificationsCounter(to)]: n };

export const notificationsQueued = (n = 1): CountDeltas => ({ notifications: n, 'notifications:queued': n });

/** The sum of several changes, without the zeros, in a fixed (sorted) counter order. */
export function mergeDeltas(...changes: CountDeltas[]): [Counter, number][] {
  const sum = new Map<Counter, number>();
  for (const change of changes) {
    for (const [counter, n] of Object.entries(change) as [Counter, number][]) {
      sum.set(counter, (sum.get(counter) ?? 0) + n);
    }
  }
  return [...sum].filter(([, n]) => n !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Events recorded (listed ones: webhook.test is never counted), by type. */
export const eventsRecorded = (types: readonly EventType[]): CountDeltas => {
  const deltas: Partial<Record<Counter, number>> = {};
  for (const type of types) {
    deltas.events = (deltas.events ?? 0) + 1;
    deltas[`events:${type}`] = (deltas[`events:${type}`] ?? 0) + 1;
  }
  return deltas;
};
