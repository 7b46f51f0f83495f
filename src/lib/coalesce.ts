// Reads that many requests make at once, made once per turn of the event loop. A caller's read is
// joined to the batch that has not started yet; the batch starts at the next `setImmediate`
// (after every request whose bytes arrived in this turn has asked), so each caller's answer comes
// from a read that began after it asked. That is what makes sharing safe where a cache would not
// be: a write committed before a caller asked (by any node or process) is seen by its read.
// A read already under way is never joined: it may have begun before the caller asked.

export interface Coalescer<K, V> {
  /** The value for `key`, from a read that starts after this call (shared with this turn's other calls). */
  get(key: K): Promise<V>;
}

/**
 * `readMany` receives the distinct keys of one turn and answers a value for each (a key it leaves
 * out is an error for its callers). A failed read fails every caller of that batch, and only them.
 */
export function coalesce<K, V>(readMany: (keys: K[]) => Promise<Map<K, V>>): Coalescer<K, V> {
  type Waiter = { resolve: (value: V) => void; reject: (err: unknown) => void };
  let pending: Map<K, Waiter[]> | undefined;

  const flush = (batch: Map<K, Waiter[]>): void => {
    // From here on, callers start a new batch: this one's read is about to begin.
    pending = undefined;
    const keys = [...batch.keys()];
    const settle = (values: Map<K, V> | undefined, err: unknown): void => {
      for (const [key, waiters] of batch) {
        const found = values?.has(key) === true;
        for (const w of waiters) {
          if (found) w.resolve(values?.get(key) as V);
          else w.reject(err ?? new Error('coalesced read returned no value for a key'));
        }
      }
    };
    let read: Promise<Map<K, V>>;
    try {
      read = readMany(keys);
    } catch (err) {
      settle(undefined, err);
      return;
    }
    read.then(
      (values) => settle(values, undefined),
      (err: unknown) => settle(undefined, err),
    );
  };

  return {
    get(key) {
      return new Promise<V>((resolve, reject) => {
        let batch = pending;
        if (batch === undefined) {
          const fresh = new Map<K, Waiter[]>();
          batch = fresh;
          pending = fresh;
          setImmediate(() => flush(fresh));
        }
        const waiters = batch.get(key);
        if (waiters === undefined) batch.set(key, [{ resolve, reject }]);
        else waiters.push({ resolve, reject });
      });
    },
  };
}
