// GET /v1/listings at a steady pace (an open loop) against a running `lightbox serve`: the probe
// the benches that ask "does the API stay quick while background work runs" (bench:analysis,
// bench:kit) measure with, idle first, then busy, the same requests both times.
import type http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { send } from './http.ts';
import { percentile } from './report.ts';

export interface Latency {
  p50: number;
  p99: number;
  requests: number;
  /** Requests that failed or were refused, and the first few reasons. */
  errors: number;
  firstErrors: string[];
}

export interface Measured {
  /** Sorted, in ms. */
  latencies: number[];
  errors: string[];
}

export const summary = ({ latencies, errors }: Measured): Latency => ({
  p50: percentile(latencies, 50),
  p99: percentile(latencies, 99),
  requests: latencies.length + errors.length,
  errors: errors.length,
  firstErrors: errors.slice(0, 3),
});

export interface ListingsProbe {
  /** GET /v1/listings at `rate` a second until `done()` says stop (checked every 100 ms). */
  measure(done: () => boolean): Promise<Measured>;
  /** GETs whose kept-alive connection was reset, sent again (and timed from the first try). */
  resets(): number;
}

export function listingsProbe(port: number, key: string, agent: http.Agent, rate: number): ListingsProbe {
  let resets = 0;
  /**
   * GET /v1/listings, timed from the first try. A kept-alive connection the server closed as the
   * request went out (its keep-alive timer fires late while its event loop is busy) is reset; a
   * browser sends such a GET again on a new connection, and so does this, once, counting it.
   */
  async function listings(): Promise<{ status: number; ms: number; text: string }> {
    const started = performance.now();
    try {
      return await send(port, 'GET', '/v1/listings', { agent, key });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNRESET') throw err;
      resets++;
      const again = await send(port, 'GET', '/v1/listings', { agent: false, key });
      return { status: again.status, ms: performance.now() - started, text: again.text };
    }
  }

  /** The latencies, sorted, and the requests that failed (counted, not thrown: one refusal must not end the run). */
  async function measure(done: () => boolean): Promise<Measured> {
    const latencies: number[] = [];
    const errors: string[] = [];
    const asked: Promise<void>[] = [];
    const ticker = setInterval(() => {
      asked.push(
        listings().then(
          (answer) => {
            if (answer.status === 200) latencies.push(answer.ms);
            else errors.push(`${answer.status} ${answer.text.slice(0, 200)}`);
          },
          (err: unknown) => {
            errors.push(err instanceof Error ? err.message : String(err));
          },
        ),
      );
    }, 1000 / rate);
    try {
      while (!done()) await sleep(100);
    } finally {
      clearInterval(ticker);
    }
    await Promise.all(asked);
    return { latencies: latencies.sort((a, b) => a - b), errors };
  }

  return { measure, resets: () => resets };
}
