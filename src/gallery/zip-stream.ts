// Streaming a planned archive (zip.ts) for any byte range: the generated header bytes, and the
// data of each entry inside the range, read from storage one entry at a time.
//
// One walk through the layout, two ways out. Read as a Readable (for await, toArray, piped into
// any other stream), entry data comes from `open` streams and goes through the stream's buffer.
// Piped into an http.ServerResponse (what Fastify does with a stream body), the archive writes
// into the response itself and, where storage can read into a caller's buffers (local files),
// reads entry data into a few buffers of its own, each used again once the response's socket
// has written it. A stream allocates a new buffer for every chunk: 2 GiB of them for a 2 GiB
// download, and with the app's heap behind them the full garbage collections they set off took
// 40% of the server's time during the download (docs/performance.md, "Client gallery").
import { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ZipPlan, ZipRange, ZipSegment } from './zip.ts';

/** Opens bytes [start, end] (inclusive, relative to the entry) of entry `index`'s data. */
export type OpenEntryRange = (index: number, start: number, end: number) => Promise<Readable>;

/** Random reads of one entry's data (positions relative to the entry) into the caller's buffer. */
export interface EntryReader {
  /** Reads up to `length` bytes from `position` into `buffer` at `offset`: how many, 0 at the end. */
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number>;
  close(): Promise<void>;
}

export interface ZipSources {
  open: OpenEntryRange;
  /** Entry `index` for reads into reused buffers where storage can; undefined: `open` it. */
  openReader?: (index: number) => Promise<EntryReader> | undefined;
}

/** Enough for one 1 MiB read to pass through without splitting, and bounded. */
const STREAM_BUFFER = 1024 * 1024;
/**
 * A response reads ahead into at most this many buffers of this size: one being read while the
 * socket writes the others. Also the bound on what a slow client holds in memory.
 */
const POOL_BUFFER_SIZE = 1024 * 1024;
const POOL_BUFFERS = 3;

/** Where the walk's bytes go: a Readable's buffer, or a response. */
interface Sink {
  /** Whether `release` is honoured: only then may a buffer be filled again after it is written. */
  readonly releases: boolean;
  /**
   * Hands `chunk` on. With `release`, the chunk's memory is the caller's to account for (a pooled
   * buffer, or bytes the plan holds anyway) and it is called once the memory may be used again;
   * without it, the returned promise (if any) is backpressure to wait for.
   */
  write(chunk: Uint8Array, release?: () => void): Promise<void> | undefined;
}

/** A chunk the plan holds for the archive's whole life (headers): nothing to give back. */
const HELD = (): void => {};

class Stopped extends Error {
  constructor() {
    super('the archive stream was destroyed');
  }
}

/** An item known to exist (the lists are built together); the check satisfies strict indexing. */
function item<T>(list: readonly T[], index: number): T {
  const value = list[index];
  if (value === undefined) throw new Error(`zip: no item ${index} in a list of ${list.length}`);
  return value;
}

/** Index of the segment holding byte `position` (segments are sorted and contiguous). */
function segmentAt(segments: readonly ZipSegment[], position: number): number {
  let lo = 0;
  let hi = segments.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (item(segments, mid).offset <= position) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Streams bytes [range.start, range.end] of the archive (all of it without a range).
 * Entry data is read one entry at a time, asking only for the slice inside the range. A
 * failure to open or read an entry, or a source that yields more or fewer bytes than asked,
 * destroys the stream with an error, so the HTTP layer aborts the response instead of ending a
 * corrupt archive cleanly.
 */
export function zipStream(plan: ZipPlan, sources: OpenEntryRange | ZipSources, range?: ZipRange): Readable {
  const start = range?.start ?? 0;
  const end = range?.end ?? plan.size - 1;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start || end >= plan.size) {
    throw new RangeError(`range ${start}-${end} is outside the archive of ${plan.size} bytes`);
  }
  return new ArchiveStream(plan.segments, typeof sources === 'function' ? { open: sources } : sources, start, end);
}

/** A few buffers used in turn; take() waits while every one is out. */
class BufferPool {
  readonly #free: Buffer[] = [];
  readonly #waiting: ((buffer: Buffer) => void)[] = [];
  #made = 0;

  take(stopped: AbortSignal): Buffer | Promise<Buffer> {
    const free = this.#free.pop();
    if (free !== undefined) return free;
    if (this.#made < POOL_BUFFERS) {
      this.#made++;
      // Outside Node's shared slab: the pool owns it alone.
      return Buffer.allocUnsafeSlow(POOL_BUFFER_SIZE);
    }
    return new Promise((resolve, reject) => {
      const onStop = (): void => reject(new Stopped());
      stopped.addEventListener('abort', onStop, { once: true });
      this.#waiting.push((buffer) => {
        stopped.removeEventListener('abort', onStop);
        resolve(buffer);
      });
    });
  }

  give(buffer: Buffer): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#free.push(buffer);
    else next(buffer);
  }
}

/**
 * Writes into a response. A pooled buffer is written at once, the pool bounding what is in
 * flight; a stream's chunk waits for 'drain' when the response is full, as pipe() would.
 * http.ServerResponse hands each chunk to its socket, which is done with it when the write's
 * callback runs; so only a ServerResponse gets reused buffers (a PassThrough, say, would keep
 * a reference to the chunk after its callback).
 */
function responseSink(response: ServerResponse, stopped: AbortSignal): Sink {
  const drained = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const settle = (err?: Error): void => {
        response.off('drain', onDrain).off('close', onClose);
        stopped.removeEventListener('abort', onStop);
        if (err === undefined) resolve();
        else reject(err);
      };
      const onDrain = (): void => settle();
      const onClose = (): void => settle(new Error('the response closed before the archive was written'));
      const onStop = (): void => settle(new Stopped());
      response.on('drain', onDrain).on('close', onClose);
      stopped.addEventListener('abort', onStop, { once: true });
    });
  return {
    releases: true,
    write(chunk, release) {
      if (response.destroyed) throw new Error('the response closed before the archive was written');
      const room = response.write(chunk, release === undefined ? undefined : () => release());
      return room || release !== undefined ? undefined : drained();
    },
  };
}

class ArchiveStream extends Readable {
  readonly #segments: readonly ZipSegment[];
  readonly #sources: ZipSources;
  readonly #start: number;
  readonly #end: number;
  /** Read as a Readable, or writing into a response (chosen by the first read or pipe). */
  #mode: 'idle' | 'read' | 'write' = 'idle';
  /** Read mode: the walk waits here for the consumer to want more. */
  #wanted: (() => void) | undefined;
  /** The entry stream being read, destroyed with the archive. */
  #source: Readable | undefined;
  #pool: BufferPool | undefined;
  /** Aborted when the archive is destroyed: wakes whatever the walk waits for. */
  readonly #stopped = new AbortController();

  constructor(segments: readonly ZipSegment[], sources: ZipSources, start: number, end: number) {
    super({ highWaterMark: STREAM_BUFFER });
    this.#segments = segments;
    this.#sources = sources;
    this.#start = start;
    this.#end = end;
  }

  override _read(): void {
    if (this.#mode === 'idle') {
      this.#mode = 'read';
      this.#run(this.#pushSink(), () => this.push(null));
    } else {
      const wanted = this.#wanted;
      this.#wanted = undefined;
      wanted?.();
    }
  }

  override pipe<T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T {
    if (this.#mode === 'write') throw new Error('an archive stream writing into a response has no bytes for another');
    if (!(destination instanceof ServerResponse) || this.#mode === 'read') return super.pipe(destination, options);
    this.#mode = 'write';
    destination.emit('pipe', this);
    this.#run(responseSink(destination, this.#stopped.signal), () => {
      if (options?.end !== false) destination.end();
      // Nothing went through our own buffer: end it, so that whoever watches this stream
      // (Fastify, pipeline) sees it end as a piped stream would.
      this.push(null);
      this.resume();
    });
    return destination;
  }

  #pushSink(): Sink {
    return {
      releases: false,
      write: (chunk) => {
        if (this.destroyed || this.push(chunk)) return undefined;
        return new Promise((resolve) => (this.#wanted = resolve));
      },
    };
  }

  #run(sink: Sink, done: () => void): void {
    this.#walk(sink).then(
      () => {
        if (!this.destroyed) done();
      },
      (err: unknown) => this.destroy(err instanceof Error ? err : new Error(String(err))),
    );
  }

  #checkAlive(): void {
    if (this.destroyed) throw new Stopped();
  }

  async #walk(sink: Sink): Promise<void> {
    let position = this.#start;
    for (let index = segmentAt(this.#segments, position); position <= this.#end; index++) {
      const seg = item(this.#segments, index);
      const from = position - seg.offset;
      const to = Math.min(seg.offset + seg.length - 1, this.#end) - seg.offset; // inclusive
      if (seg.kind === 'header') await sink.write(seg.bytes.subarray(from, to + 1), HELD);
      else await this.#copyEntry(seg.entry, from, to, sink);
      this.#checkAlive();
      position += to - from + 1;
    }
  }

  /** Bytes [from, to] (inclusive) of entry `index`'s data. */
  async #copyEntry(index: number, from: number, to: number, sink: Sink): Promise<void> {
    const expected = to - from + 1;
    const reader = sink.releases ? this.#sources.openReader?.(index) : undefined;
    if (reader !== undefined) {
      await this.#readInto(await reader, index, from, expected, sink);
      return;
    }
    const source = await this.#sources.open(index, from, to);
    if (this.destroyed) {
      source.destroy();
      throw new Stopped();
    }
    this.#source = source;
    let received = 0;
    try {
      for await (const chunk of source) {
        if (!(chunk instanceof Uint8Array)) {
          throw new TypeError(`zip entry ${index}: its source gave a ${typeof chunk}, not bytes`);
        }
        received += chunk.length;
        if (received > expected) {
          throw new Error(`zip entry ${index}: its source gave more than the ${expected} bytes asked`);
        }
        const room = sink.write(chunk);
        if (room !== undefined) await room;
        this.#checkAlive();
      }
    } finally {
      this.#source = undefined;
    }
    this.#checkAlive();
    if (received !== expected) {
      throw new Error(`zip entry ${index}: its source ended after ${received} of ${expected} bytes`);
    }
  }

  /** The pooled path: read into a free buffer, write it, read the next while the socket sends. */
  async #readInto(reader: EntryReader, index: number, from: number, expected: number, sink: Sink): Promise<void> {
    try {
      this.#checkAlive();
      const pool = (this.#pool ??= new BufferPool());
      for (let done = 0; done < expected;) {
        const buffer = await pool.take(this.#stopped.signal);
        let read: number;
        try {
          read = await reader.read(buffer, 0, Math.min(buffer.length, expected - done), from + done);
        } catch (err) {
          pool.give(buffer);
          throw err;
        }
        this.#checkAlive();
        if (read === 0) throw new Error(`zip entry ${index}: its source ended after ${done} of ${expected} bytes`);
        done += read;
        await sink.write(buffer.subarray(0, read), () => pool.give(buffer));
      }
    } finally {
      // A read-only handle: a failure to close it loses nothing, and the walk's outcome stands.
      await reader.close().catch(() => {});
    }
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.#stopped.abort();
    const wanted = this.#wanted;
    this.#wanted = undefined;
    wanted?.();
    const source = this.#source;
    this.#source = undefined;
    source?.destroy();
    callback(err);
  }
}
