// Resource ids: a type prefix and a ULID. ULIDs sort by creation time (monotonic within a
// millisecond in this process), which gives "created_at desc, id desc" a stable, natural order.
// Clients must treat them as opaque.
import { monotonicFactory } from 'ulid';

const next = monotonicFactory();

export type IdPrefix = 'lst' | 'cli' | 'med' | 'key' | 'acc' | 'ntf';

export const newId = (prefix: IdPrefix): string => `${prefix}_${next()}`;
