// The one source of time. Services, jobs and limits read it through Deps, so tests can move
// time (leases, retries, expiry) without waiting. Stored timestamps are ISO 8601 UTC with
// milliseconds: fixed width, so they sort as text on both dialects.
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  date(): Date;
  /** Now (or now plus `offsetMs`) as a stored timestamp: `2026-11-22T10:15:30.123Z`. */
  iso(offsetMs?: number): string;
}

/** A clock over any source of milliseconds (or Dates): the system's, or a test's. */
export function clockOf(read: () => number | Date): Clock {
  const now = (): number => {
    const t = read();
    return typeof t === 'number' ? t : t.getTime();
  };
  return {
    now,
    date: () => new Date(now()),
    iso: (offsetMs = 0) => new Date(now() + offsetMs).toISOString(),
  };
}

export const systemClock: Clock = clockOf(Date.now);

/** A stored timestamp for an instant given in milliseconds. */
export const isoAt = (ms: number): string => new Date(ms).toISOString();
