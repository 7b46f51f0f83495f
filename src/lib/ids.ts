// Resource ids: a type prefix and a ULID. ULIDs sort by creation time (monotonic within a
// millisecond in this process), which gives "created_at desc, id desc" a stable, natural order.
// Clients must treat them as opaque.
import { monotonicFactory } from 'ulid';

const next = monotonicFactory();

export type IdPrefix = 'lst' | 'cli' | 'med' | 'key' | 'acc' | 'ntf' | 'job' | 'evt' | 'whe' | 'whd' | 'upl';

export const newId = (prefix: IdPrefix): string => `${prefix}_${next()}`;

const ID_SHAPE = /^[a-z]+_[0-9A-Za-z_-]+$/;

/**
 * Ids are a prefix and an opaque URL-safe string of at most 40 characters. A path id of any
 * other shape is simply not found, without a query (PostgreSQL would refuse a NUL in it: a 500).
 */
export const hasIdShape = (prefix: IdPrefix, id: string): boolean =>
  id.length <= 40 && id.startsWith(`${prefix}_`) && ID_SHAPE.test(id);
