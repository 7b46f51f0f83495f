// What both Lightbox nodes share: the request helper (Lightbox's error bodies become messages a
// studio owner can act on) and the Standard Webhooks signature check.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type {
  IDataObject,
  IExecuteFunctions,
  IHookFunctions,
  IHttpRequestMethods,
  IHttpRequestOptions,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

export const CREDENTIAL = 'lightboxApi';

export interface LightboxAnswer {
  status: number;
  body: IDataObject;
}

/** Calls Lightbox; answers the status and body. Statuses in `allowed` come back, others throw. */
export async function lightboxRequest(
  this: IExecuteFunctions | IHookFunctions,
  method: IHttpRequestMethods,
  path: string,
  options: { body?: IDataObject; qs?: IDataObject; allowed?: number[]; itemIndex?: number } = {},
): Promise<LightboxAnswer> {
  const credentials = await this.getCredentials(CREDENTIAL);
  const request: IHttpRequestOptions = {
    method,
    url: `${String(credentials.baseUrl).replace(/\/+$/, '')}${path}`,
    json: true,
    returnFullResponse: true,
    ignoreHttpStatusErrors: true,
  };
  if (options.body !== undefined) request.body = options.body;
  if (options.qs !== undefined) request.qs = options.qs;
  const response = (await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL, request)) as {
    statusCode: number;
    body: unknown;
  };
  const body = (response.body && typeof response.body === 'object' ? response.body : {}) as IDataObject;
  if (response.statusCode < 400 || options.allowed?.includes(response.statusCode)) {
    return { status: response.statusCode, body };
  }
  const error = (body.error ?? {}) as {
    code?: string;
    message?: string;
    details?: { field: string; message: string }[];
  };
  let description = error.details?.map((d) => `${d.field}: ${d.message}`).join('; ');
  if (response.statusCode === 401) {
    description = 'Create a new key in your Lightbox dashboard (API keys) and update the Lightbox API credential.';
  } else if (response.statusCode === 403) {
    description = 'Use an API key with full access, not a read-only key.';
  }
  throw new NodeApiError(
    this.getNode(),
    { code: error.code ?? '', message: error.message ?? `Lightbox answered ${response.statusCode}` },
    {
      message: error.message ?? `Lightbox answered ${response.statusCode}`,
      description,
      httpCode: String(response.statusCode),
      ...(options.itemIndex === undefined ? {} : { itemIndex: options.itemIndex }),
    },
  );
}

/** GETs bytes from Lightbox (an invoice's PDF); a refusal throws as lightboxRequest's do. */
export async function lightboxBytes(
  this: IExecuteFunctions,
  path: string,
  itemIndex: number,
): Promise<{ data: Buffer; contentType: string }> {
  const credentials = await this.getCredentials(CREDENTIAL);
  const response = (await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL, {
    method: 'GET',
    url: `${String(credentials.baseUrl).replace(/\/+$/, '')}${path}`,
    encoding: 'arraybuffer',
    returnFullResponse: true,
    ignoreHttpStatusErrors: true,
  })) as { statusCode: number; body: ArrayBuffer | Buffer; headers: Record<string, string | undefined> };
  const data = Buffer.from(response.body as ArrayBuffer);
  if (response.statusCode < 400) {
    return { data, contentType: response.headers['content-type'] ?? 'application/octet-stream' };
  }
  let error: { code?: string; message?: string } = {};
  try {
    error = ((JSON.parse(data.toString('utf8')) as IDataObject).error ?? {}) as typeof error;
  } catch {
    // Not Lightbox's error body: the status says enough.
  }
  const message = error.message ?? `Lightbox answered ${response.statusCode}`;
  throw new NodeApiError(
    this.getNode(),
    { code: error.code ?? '', message },
    { message, httpCode: String(response.statusCode), itemIndex },
  );
}

const TOLERANCE_SECONDS = 5 * 60;

const headerValue = (headers: Record<string, string | string[] | undefined>, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * Standard Webhooks (https://www.standardwebhooks.com): HMAC-SHA256 of `id.timestamp.body` with
 * the endpoint's `whsec_` secret, the timestamp within five minutes. Null when it verifies, else why not.
 */
export function verifySignature(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: string,
  now = Date.now(),
): string | null {
  const id = headerValue(headers, 'webhook-id');
  const timestamp = headerValue(headers, 'webhook-timestamp');
  const signatures = headerValue(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) return 'the Standard Webhooks headers are missing';
  const seconds = Number(timestamp);
  if (!Number.isInteger(seconds) || Math.abs(now / 1000 - seconds) > TOLERANCE_SECONDS) {
    return 'the timestamp is too far from now';
  }
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  for (const candidate of signatures.split(' ')) {
    const [version, value] = candidate.split(',');
    if (version !== 'v1' || !value) continue;
    const given = Buffer.from(value, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return null;
  }
  return 'no signature matches the secret';
}

/** What a workflow receives for an event: the object as of the event, and which event it was. */
export function eventItem(event: IDataObject): IDataObject {
  const data = (event.data ?? {}) as IDataObject;
  return {
    ...((data.object ?? {}) as IDataObject),
    event_id: event.id,
    event_type: event.type,
    event_created_at: event.created_at,
  };
}
