// @lightbox/client/node: the same client, with uploads from file paths and Node streams (read
// through one reused buffer: node-multipart.ts) sent over node:http with backpressure
// (node-fetch.ts). uploadResumable takes a path as a file-backed Blob (fs.openAsBlob), sliceable.
import { openAsBlob } from 'node:fs';
import path from 'node:path';
import { LightboxBase } from './client.ts';
import { nodeFetch } from './node-fetch.ts';
import type { ClientOptions } from './core.ts';
import { nodeMultipartBody, type NodeUploadInput } from './node-multipart.ts';

export * from './index.ts';
export { nodeFetch } from './node-fetch.ts';
export type { NodeUploadInput } from './node-multipart.ts';

/** What `media.uploadResumable` takes in Node: a path or a Blob. */
export type NodeResumableInput = string | Blob;

/**
 * The client for Node: `new Lightbox({ apiKey, baseUrl })`; uploads also take paths and Node
 * streams, and are sent with backpressure (see nodeFetch) around the given or global fetch.
 */
export class Lightbox extends LightboxBase<NodeUploadInput, NodeResumableInput> {
  constructor(options: ClientOptions) {
    super(
      { ...options, fetch: nodeFetch(options.fetch) },
      {
        encode: nodeMultipartBody,
        blob: async (input) => {
          if (typeof input === 'string') return { blob: await openAsBlob(input), filename: path.basename(input) };
          return { blob: input, filename: 'name' in input && typeof input.name === 'string' ? input.name : undefined };
        },
      },
    );
  }
}
