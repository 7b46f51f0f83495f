// Where media bytes live. Two implementations: a local folder (default) and S3-compatible
// object storage. Built once at start-up (src/deps.ts); services only see this interface.
import type { Readable } from 'node:stream';

/** Inclusive byte range, as in an HTTP Range header. */
export interface ByteRange {
  start: number;
  end: number;
}

/** Random reads of one stored object into buffers the caller owns (see MediaStorage.openReader). */
export interface StoredReader {
  /**
   * Reads up to `length` bytes from `position` (in the object) into `buffer` at `offset`;
   * resolves with how many were read, 0 at the end of the object.
   */
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number>;
  close(): Promise<void>;
}

export interface StoredObject {
  key: string;
  size: number;
}

export interface MediaStorage {
  /** `local` or `s3`, for logs and /readyz. */
  readonly kind: 'local' | 's3';
  /**
   * Streams `body` to `key`, never holding it whole in memory. Resolves once the bytes are
   * durable; rejects (leaving nothing at `key`) if the body errors or the write fails.
   */
  put(key: string, body: Readable, options: { contentType: string }): Promise<void>;
  /** The bytes at `key` (or a range of them). Rejects with StorageNotFoundError when absent. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /**
   * The bytes at `key` read into the caller's own buffers, for a long download that sends them on
   * and uses the same few buffers again: a stream allocates a new buffer for every chunk, and in
   * the app's heap collecting those took 40% of the server's time in the gallery ZIP (docs/performance.md).
   * Storage with files has it; S3's client hands out its own buffers, so callers use get().
   * Rejects with StorageNotFoundError when absent.
   */
  openReader?(key: string): Promise<StoredReader>;
  /** Removes `key`; absent keys are not an error. Folders it leaves empty go with it. */
  delete(key: string): Promise<void>;
  /** Every key under `prefix` (for the orphan sweep). */
  list(prefix: string): AsyncIterable<StoredObject>;
  /**
   * Removes every empty folder under the root (not the root), for the sweep: those left by a
   * crash, or by an earlier version. Storage without folders (S3) has nothing to do.
   */
  removeEmptyFolders?(): Promise<void>;
  /** A local file path for `key` when the storage has one (lets sharp read headers lazily). */
  localPath?(key: string): string;
  /** Releases connections (S3's HTTP agent); called once at shutdown. */
  close?(): void;
}

export class StorageNotFoundError extends Error {
  constructor(key: string) {
    super(`no stored object at ${key}`);
    this.name = 'StorageNotFoundError';
  }
}

const KEY_SHAPE = /^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_-]+)*$/;

/**
 * Keys are built by the service from ids only (`acc_…/lst_…/med_…`), but every implementation
 * checks them again so that no name can ever walk out of its folder or bucket prefix.
 */
export const isSafeKey = (key: string): boolean => key.length <= 512 && KEY_SHAPE.test(key);

export function assertSafeKey(key: string): void {
  if (!isSafeKey(key)) throw new Error(`unsafe storage key ${JSON.stringify(key)}`);
}
