import type { MediaStorageConfig } from '../config.ts';
import { createLocalStorage } from './local.ts';
import { createS3Storage } from './s3.ts';
import type { MediaStorage } from './storage.ts';

/** Chooses the storage once, at start-up, from the configuration. */
export function createStorage(config: MediaStorageConfig): MediaStorage {
  if (config.kind === 'local') return createLocalStorage(config.dir);
  return createS3Storage({
    bucket: config.bucket,
    prefix: config.prefix,
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    ...(config.endpoint === undefined ? {} : { endpoint: config.endpoint }),
    ...(config.credentials === undefined ? {} : { credentials: config.credentials }),
  });
}
