// What media uploads accept, and the multipart body they send. Blobs (and Files, and Node's
// file-backed Blobs from fs.openAsBlob) go in a FormData: fetch streams each part from its source
// and knows the length, and the request can be retried. Streams are framed by hand into one
// ReadableStream sent with `duplex: 'half'` (chunked, never retried: a stream is read once). Either
// way no file is held whole in memory. Runs wherever fetch does: no Node-only import here.

/** One file to upload: its bytes, and optionally its name and declared type. */
export interface UploadFile {
  data: Blob | Uint8Array | ReadableStream<Uint8Array>;
  /** The name the media gets (default: the File's name, else `upload`). */
  filename?: string;
  /** The declared type (the server sniffs the bytes whatever this says). */
  contentType?: string;
}

/** Anything `media.upload` takes as a file in the browser and edge runtimes. */
export type UploadInput = Blob | Uint8Array | ReadableStream<Uint8Array> | UploadFile;

/** A file ready to send. */
export interface UploadPart {
  data: Blob | ReadableStream<Uint8Array>;
  filename: string;
  contentType: string;
}

const OCTET_STREAM = 'application/octet-stream';

function isFile(value: unknown): value is Blob & { name: string } {
  return value instanceof Blob && typeof (value as { name?: unknown }).name === 'string';
}

/** Turns a browser-side input into a part (the Node entry point adds paths and Node streams). */
export function toPart(input: UploadInput): UploadPart {
  const file: UploadFile =
    input instanceof Blob || input instanceof Uint8Array || input instanceof ReadableStream ? { data: input } : input;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- needed under the DOM lib of the build
  const data = file.data instanceof Uint8Array ? new Blob([file.data as Uint8Array<ArrayBuffer>]) : file.data;
  const filename = file.filename ?? (isFile(file.data) ? file.data.name : 'upload');
  const declared = file.data instanceof Blob && file.data.type !== '' ? file.data.type : OCTET_STREAM;
  return { data, filename, contentType: file.contentType ?? declared };
}

/** A multipart request body, and its Content-Type when it is not a FormData's own. */
export interface MultipartBody {
  body: FormData | ReadableStream<Uint8Array>;
  contentType?: string;
}

/** The request body for these parts. */
export function multipartBody(parts: UploadPart[]): MultipartBody {
  if (parts.every((p) => p.data instanceof Blob)) {
    const form = new FormData();
    for (const part of parts) {
      const blob = part.data as Blob;
      const typed = blob.type === part.contentType ? blob : blob.slice(0, blob.size, part.contentType);
      form.append('files', typed, part.filename);
    }
    return { body: form };
  }
  const boundary = `----lightbox-${crypto.randomUUID()}`;
  return { body: streamedMultipart(parts, boundary), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** A filename as browsers put it in a quoted header parameter. */
export function quoted(name: string): string {
  return name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function streamedMultipart(parts: UploadPart[], boundary: string): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let index = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        if (reader !== null) {
          const { done, value } = await reader.read();
          if (!done) {
            controller.enqueue(value);
            return;
          }
          reader = null;
          controller.enqueue(encoder.encode('\r\n'));
          index += 1;
        }
        const part = parts[index];
        if (part === undefined) {
          controller.enqueue(encoder.encode(`--${boundary}--\r\n`));
          controller.close();
          return;
        }
        const head =
          `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${quoted(part.filename)}"\r\n` +
          `Content-Type: ${part.contentType}\r\n\r\n`;
        controller.enqueue(encoder.encode(head));
        reader = (part.data instanceof Blob ? part.data.stream() : part.data).getReader();
        return;
      }
    },
    async cancel(reason) {
      await reader?.cancel(reason);
    },
  });
}
