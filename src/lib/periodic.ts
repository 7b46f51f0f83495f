// A task run now and then in the serve process: once at start, then every `intervalMs`, never
// two runs at once, its faults logged (the next run tries again). stop() waits for a run in flight.
import type { Log } from './log.ts';

export interface Periodic {
  stop(): Promise<void>;
}

export function every(intervalMs: number, run: () => Promise<void>, log: Log, what: string): Periodic {
  const once = (): Promise<void> =>
    run().catch((err: unknown) => {
      log.warn({ err }, `${what} failed`);
    });
  let running = once();
  const timer = setInterval(() => {
    running = running.then(once);
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
