// @lightbox/client/node: the same client, with uploads from file paths and Node streams. A path
// becomes a file-backed Blob (fs.openAsBlob): read from disk as it is sent, never held whole, and
// sliceable, so resumable uploads resend from any offset. A Node Readable becomes a web stream.
import { openAsBlob } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { LightboxBase } from './client.ts';
import type { ClientOptions } from './core.ts';
import { toPart, type UploadFile, type UploadInput, type UploadPart } from './uploads.ts';

export * from './index.ts';

/** What `media.upload` takes in Node: a path, a Buffer, a Blob, a stream, or `{ data, filename }`. */
export type NodeUploadInput =
  string | Readable | UploadInput | (Omit<UploadFile, 'data'> & { data: string | Readable | UploadFile['data'] });

/** What `media.uploadResumable` takes in Node: a path or a Blob. */
export type NodeResumableInput = string | Blob;

async function fromPath(file: string): Promise<Blob> {
  return openAsBlob(file);
}

export async function nodePart(input: NodeUploadInput): Promise<UploadPart> {
  if (typeof input === 'string') return toPart({ data: await fromPath(input), filename: path.basename(input) });
  if (input instanceof Readable)
    return toPart({ data: Readable.toWeb(input) as ReadableStream<Uint8Array>, filename: streamName(input) });
  if (input instanceof Blob || input instanceof Uint8Array || input instanceof ReadableStream) return toPart(input);
  const { data, ...rest } = input;
  if (typeof data === 'string')
    return toPart({ ...rest, data: await fromPath(data), filename: rest.filename ?? path.basename(data) });
  if (data instanceof Readable)
    return toPart({
      ...rest,
      data: Readable.toWeb(data) as ReadableStream<Uint8Array>,
      filename: rest.filename ?? streamName(data),
    });
  return toPart({ ...rest, data });
}

/** A file stream's own name (fs.createReadStream keeps its path), else `upload`. */
function streamName(stream: Readable): string {
  const file = (stream as Readable & { path?: unknown }).path;
  return typeof file === 'string' ? path.basename(file) : 'upload';
}

/** The client for Node: `new Lightbox({ apiKey, baseUrl })`; uploads also take paths and Node streams. */
export class Lightbox extends LightboxBase<NodeUploadInput, NodeResumableInput> {
  constructor(options: ClientOptions) {
    super(options, {
      part: nodePart,
      blob: async (input) => {
        if (typeof input === 'string') return { blob: await fromPath(input), filename: path.basename(input) };
        return { blob: input, filename: 'name' in input && typeof input.name === 'string' ? input.name : undefined };
      },
    });
  }
}
