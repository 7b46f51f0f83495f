// The body `npm run bench:upload` sends: multipart/form-data around an MP4 of `size` bytes,
// generated on the fly from two preallocated chunks (never materialised), and the SHA-256 digests
// the servers must answer with, computed beforehand from the same generator.
import { createHash } from 'node:crypto';

interface Filler {
  /** The first chunk of the file: the MP4 header over the filler. */
  first: Buffer;
  /** Every later chunk (the last one is a prefix of it). */
  rest: Buffer;
}

export interface Body {
  boundary: string;
  preamble: Buffer;
  epilogue: Buffer;
  fileSize: number;
  /** Content-Length. */
  length: number;
  filler: Filler;
}

export interface Digests {
  /** SHA-256 of the file (what lightbox stores). */
  file: string;
  /** SHA-256 of the whole body (what the bare handler stores). */
  body: string;
}

/** Deterministic, incompressible-looking bytes (xorshift32), so that every run sends the same file. */
export function makeFiller(chunkSize: number): Buffer {
  const buffer = Buffer.allocUnsafe(chunkSize);
  let x = 0x9e3779b9;
  for (let i = 0; i < chunkSize; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    buffer[i] = x & 0xff;
  }
  return buffer;
}

/**
 * An `ftyp` box (major brand isom: file-type calls it video/mp4) and an `mdat` box with a 64-bit
 * size holding the rest of the file, so the whole file is a well-formed box sequence.
 */
function mp4Header(fileSize: number): Buffer {
  const ftyp = Buffer.concat([
    Buffer.from([0, 0, 0, 24]),
    Buffer.from('ftypisom', 'latin1'),
    Buffer.from([0, 0, 2, 0]),
    Buffer.from('isommp41', 'latin1'),
  ]);
  const mdat = Buffer.alloc(16);
  mdat.writeUInt32BE(1, 0);
  mdat.write('mdat', 4, 'latin1');
  mdat.writeBigUInt64BE(BigInt(fileSize - ftyp.length), 8);
  return Buffer.concat([ftyp, mdat]);
}

export function makeBody(fileSize: number, fillerBytes: Buffer, boundary: string): Body {
  const first = Buffer.from(fillerBytes);
  mp4Header(fileSize).copy(first, 0);
  const preamble = Buffer.from(
    `--${boundary}\r\n` +
      'Content-Disposition: form-data; name="files"; filename="bench.mp4"\r\n' +
      'Content-Type: video/mp4\r\n\r\n',
    'latin1',
  );
  const epilogue = Buffer.from(`\r\n--${boundary}--\r\n`, 'latin1');
  // The delimiter must never occur inside the file, nor across two chunks of it.
  const delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  for (const joined of [Buffer.concat([first, fillerBytes]), Buffer.concat([fillerBytes, fillerBytes])]) {
    if (joined.includes(delimiter)) throw new Error('the filler contains the multipart boundary; run again');
  }
  return {
    boundary,
    preamble,
    epilogue,
    fileSize,
    length: preamble.length + fileSize + epilogue.length,
    filler: { first, rest: fillerBytes },
  };
}

/** The file's bytes, chunk by chunk (a path that sends the bare file, not multipart, uses this). */
export function* fileChunks(body: Body): Generator<Buffer> {
  let offset = 0;
  let source = body.filler.first;
  while (offset < body.fileSize) {
    const n = Math.min(source.length, body.fileSize - offset);
    yield n === source.length ? source : source.subarray(0, n);
    offset += n;
    source = body.filler.rest;
  }
}

/** The whole multipart body, chunk by chunk. */
export function* bodyChunks(body: Body): Generator<Buffer> {
  yield body.preamble;
  yield* fileChunks(body);
  yield body.epilogue;
}

export function expectedDigests(body: Body): Digests {
  const file = createHash('sha256');
  const whole = createHash('sha256');
  whole.update(body.preamble);
  for (const chunk of fileChunks(body)) {
    file.update(chunk);
    whole.update(chunk);
  }
  whole.update(body.epilogue);
  return { file: file.digest('hex'), body: whole.digest('hex') };
}
