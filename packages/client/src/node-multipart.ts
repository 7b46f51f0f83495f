// Multipart bodies for the Node entry point. Files named by path (and fs.ReadStreams, which carry
// their path) are read by nodeFetch into one reused buffer and written once the previous write
// is flushed, so an upload of any size holds a few hundred KiB: a stream of fresh chunks would
// leave tens of MB of garbage waiting for the collector. Such a body has a known length and can
// be sent again on a retry. Anything else (Blobs, other streams) is streamed as it comes.
import { createReadStream, ReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { quoted, toPart, type MultipartBody, type UploadFile, type UploadInput } from './uploads.ts';

/** A byte range of a file on disk (`end` exclusive). */
export interface FileRange {
  path: string;
  start: number;
  end: number;
}

export type Segment = Uint8Array | FileRange | Blob | ReadableStream<Uint8Array>;

function isRange(segment: Segment): segment is FileRange {
  return typeof (segment as FileRange).path === 'string';
}

function segmentSize(segment: Segment): number | null {
  if (segment instanceof Uint8Array) return segment.byteLength;
  if (segment instanceof Blob) return segment.size;
  if (segment instanceof ReadableStream) return null;
  return segment.end - segment.start;
}

/**
 * A multipart body as its segments. It is also a web ReadableStream of the same bytes (for any
 * fetch), but nodeFetch writes the segments itself; `replayable` when no segment is a stream.
 */
export class NodeMultipart extends ReadableStream<Uint8Array> {
  readonly segments: Segment[];
  readonly replayable: boolean;
  readonly length: number | null;

  constructor(segments: Segment[]) {
    let index = 0;
    let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
    super({
      async pull(controller) {
        for (;;) {
          if (reader !== null) {
            const { done, value } = await reader.read();
            if (!done) return controller.enqueue(value);
            reader = null;
          }
          const segment = segments[index];
          index += 1;
          if (segment === undefined) return controller.close();
          if (segment instanceof Uint8Array) return controller.enqueue(segment);
          if (segment instanceof Blob) reader = segment.stream().getReader();
          else if (segment instanceof ReadableStream) reader = segment.getReader();
          else {
            const file = createReadStream(segment.path, { start: segment.start, end: segment.end - 1 });
            reader = (Readable.toWeb(file) as ReadableStream<Uint8Array>).getReader();
          }
        }
      },
    });
    this.segments = segments;
    this.replayable = segments.every((s) => !(s instanceof ReadableStream));
    const sizes = segments.map(segmentSize);
    this.length = sizes.includes(null) ? null : (sizes as number[]).reduce((a, b) => a + b, 0);
  }

  static isFileRange = isRange;
}

/** What `media.upload` takes in Node: a path, a Buffer, a Blob, a stream, or `{ data, filename }`. */
export type NodeUploadInput =
  string | Readable | UploadInput | (Omit<UploadFile, 'data'> & { data: string | Readable | UploadFile['data'] });

interface NodePart {
  data: FileRange | Blob | ReadableStream<Uint8Array>;
  filename: string;
  contentType: string;
}

const OCTET_STREAM = 'application/octet-stream';

async function fileRange(file: string, start = 0, end?: number): Promise<FileRange> {
  const { size } = await stat(file);
  return { path: file, start, end: end === undefined ? size : Math.min(size, end + 1) };
}

/** An fs.ReadStream not yet read from is its file (and range); any other stream stays a stream. */
async function fromStream(stream: Readable): Promise<{ data: NodePart['data']; name: string }> {
  if (stream instanceof ReadStream && typeof stream.path === 'string' && stream.bytesRead === 0) {
    const { start, end } = stream as ReadStream & { start?: number; end?: number };
    const range = await fileRange(stream.path, start ?? 0, end === Infinity ? undefined : end);
    stream.destroy();
    return { data: range, name: path.basename(stream.path) };
  }
  return { data: Readable.toWeb(stream) as ReadableStream<Uint8Array>, name: 'upload' };
}

async function nodePart(input: NodeUploadInput): Promise<NodePart> {
  if (typeof input === 'string') {
    return { data: await fileRange(input), filename: path.basename(input), contentType: OCTET_STREAM };
  }
  if (input instanceof Readable) {
    const { data, name } = await fromStream(input);
    return { data, filename: name, contentType: OCTET_STREAM };
  }
  if (input instanceof Blob || input instanceof Uint8Array || input instanceof ReadableStream) return toPart(input);
  const { data, ...rest } = input;
  if (typeof data === 'string') {
    return {
      data: await fileRange(data),
      filename: rest.filename ?? path.basename(data),
      contentType: rest.contentType ?? OCTET_STREAM,
    };
  }
  if (data instanceof Readable) {
    const { data: source, name } = await fromStream(data);
    return { data: source, filename: rest.filename ?? name, contentType: rest.contentType ?? OCTET_STREAM };
  }
  return toPart({ ...rest, data });
}

/** The Node encoder of `media.upload`: a NodeMultipart of the files. */
export async function nodeMultipartBody(inputs: NodeUploadInput[]): Promise<MultipartBody> {
  const parts = await Promise.all(inputs.map(nodePart));
  const boundary = `----lightbox-${crypto.randomUUID()}`;
  const encoder = new TextEncoder();
  const segments: Segment[] = [];
  for (const part of parts) {
    const head =
      `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${quoted(part.filename)}"\r\n` +
      `Content-Type: ${part.contentType}\r\n\r\n`;
    segments.push(encoder.encode(head), part.data, encoder.encode('\r\n'));
  }
  segments.push(encoder.encode(`--${boundary}--\r\n`));
  return { body: new NodeMultipart(segments), contentType: `multipart/form-data; boundary=${boundary}` };
}
