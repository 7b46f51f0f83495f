// Answers compressed when the client asks (docs/api.md §33: the RESO feed's pages are large and
// repetitive, 10-20x smaller gzipped). A route opts in with this onSend hook: a 200 whose client
// accepts gzip (Accept-Encoding, q > 0) is sent gzipped with `Vary: Accept-Encoding`; anything else
// as it is. Request bodies are never decompressed (src/http/security-headers.ts).
import { gzipSync } from 'node:zlib';
import type { onSendHookHandler } from 'fastify';

/** Smaller bodies go as they are: gzip's header and trailer would outweigh the saving. */
const MIN_BYTES = 1024;

/** Whether an Accept-Encoding value accepts gzip (RFC 9110 12.5.3: `gzip`, `x-gzip` or `*`, q > 0). */
function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  let star: boolean | undefined;
  for (const part of header.toLowerCase().split(',')) {
    const [coding = '', ...params] = part.split(';').map((s) => s.trim());
    const q = params.find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    const accepted = Number.isFinite(weight) && weight > 0;
    if (coding === 'gzip' || coding === 'x-gzip') return accepted;
    if (coding === '*') star = accepted;
  }
  return star === true;
}

export const gzipWhenAsked: onSendHookHandler = (request, reply, payload, done) => {
  void reply.header('vary', 'Accept-Encoding');
  if (reply.statusCode !== 200 || !acceptsGzip(request.headers['accept-encoding'])) {
    done(null, payload);
    return;
  }
  const body = typeof payload === 'string' ? Buffer.from(payload) : Buffer.isBuffer(payload) ? payload : undefined;
  if (body === undefined || body.length < MIN_BYTES) {
    done(null, payload);
    return;
  }
  void reply.header('content-encoding', 'gzip').removeHeader('content-length');
  done(null, gzipSync(body));
};
