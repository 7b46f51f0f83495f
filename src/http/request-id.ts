import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const CALLER_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A caller-supplied X-Request-Id is echoed when it is safe to log; otherwise one is made. */
export function genReqId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && CALLER_ID.test(given) ? given : randomUUID();
}
