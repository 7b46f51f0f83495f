// Where media bytes live. Two implementations: a local folder (default) and S3-compatible
// object storage. Built once at start-up (src/deps.ts); services only see this interface.
import type { Readable } from 'node:stream';

/** Inclusive byte range, as in an HTTP Range header. */
export interface ByteRange {
  start: number;
  end: number;
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
