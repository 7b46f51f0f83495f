// Whether this node is busy answering requests, so that background work can give way to them
// (decisions/0015). Every HTTP request is counted (a field increment); while jobs run, a sampler
// looks every SAMPLE_MS at the event loop's utilisation since its last look. The node is busy
// when requests arrived at BUSY_REQUESTS_PER_SECOND or more in that window and the loop was at
// least BUSY_UTILISATION used: the requests then compete with background work for the one JS
// thread. With few requests (a worker node, a quiet API, a dashboard) background work never waits.
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

const SAMPLE_MS = 100;
const BUSY_UTILISATION = 0.8;
/** Requests a second below which the node is not busy with them (a dashboard, a poller). */
const BUSY_REQUESTS_PER_SECOND = 100;

export interface Foreground {
  /** One request arrived (called for every request, so it only counts). */
  request(): void;
  /** Requests arrived in the last sample and the event loop was busy: background work gives way. */
  busy(): boolean;
  /** Starts sampling (the job runners' start); stop() ends it. Without it busy() stays false. */
  start(): void;
  stop(): void;
}

export interface ForegroundOptions {
  sampleMs?: number;
  busyUtilisation?: number;
  busyRequestsPerSecond?: number;
}

export function createForeground(options: ForegroundOptions = {}): Foreground {
  const sampleMs = options.sampleMs ?? SAMPLE_MS;
  const threshold = options.busyUtilisation ?? BUSY_UTILISATION;
  const minRequests = ((options.busyRequestsPerSecond ?? BUSY_REQUESTS_PER_SECOND) * sampleMs) / 1000;
  let requests = 0;
  let busy = false;
  let last: EventLoopUtilization | undefined;
  let timer: NodeJS.Timeout | undefined;

  const sample = (): void => {
    const now = performance.eventLoopUtilization();
    const window = last === undefined ? now : performance.eventLoopUtilization(now, last);
    last = now;
    busy = requests >= minRequests && window.utilization >= threshold;
    requests = 0;
  };

  return {
    request() {
      requests += 1;
    },
    busy: () => busy,
    start() {
      if (timer !== undefined) return;
      last = performance.eventLoopUtilization();
      requests = 0;
      timer = setInterval(sample, sampleMs);
      timer.unref();
    },
    stop() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      busy = false;
    },
  };
}
