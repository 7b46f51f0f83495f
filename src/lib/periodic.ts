// A task run now and then in the serve process: once at start, then every `intervalMs`, and at
// once when woken; never two runs at once, wakes and ticks during a run make one more run after
// it, its faults logged (the next run tries again). stop() waits for a run in flight.
import type { Log } from './log.ts';

export interface Periodic {
  /** Runs the task as soon as the run in flight (if any) ends, instead of at the next tick. */
  wake(): void;
  stop(): Promise<void>;
}

export function every(intervalMs: number, run: () => Promise<void>, log: Log, what: string): Periodic {
  const once = (): Promise<void> =>
    run().catch((err: unknown) => {
      log.warn({ err }, `${what} failed`);
    });
  let stopped = false;
  let queued = false;
  let running = once();
  const again = (): void => {
    if (stopped || queued) return;
    queued = true;
    running = running.then(() => {
      queued = false;
      return stopped ? undefined : once();
    });
  };
  const timer = setInterval(again, intervalMs);
  timer.unref();
  return {
    wake: again,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
