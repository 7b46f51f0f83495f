// How notification emails leave: over SMTP, or (with no SMTP configured, the embedded default)
// as .eml files under DATA_DIR/outbox. Built once at start-up (src/deps.ts).

interface Address {
  name: string;
  address: string;
}

export interface MailMessage {
  /** `<id@host>`: one per notification, kept across retries so receivers can de-duplicate. */
  messageId: string;
  from: Address;
  /** Where replies go (the studio's own address); nodemailer writes the header. */
  replyTo?: Address;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Files sent with it (an invoice's PDF, docs/api.md §29). */
  attachments?: { filename: string; content: Buffer; contentType: string }[];
}

export interface Mailer {
  readonly kind: 'smtp' | 'file';
  /** Resolves once the message is accepted (by the SMTP server, or written to disk). */
  send(message: MailMessage): Promise<{ detail: string }>;
  close(): void;
}

export interface SendFailure {
  /** Worth trying again later: connection trouble, timeouts, 4xx replies. */
  transient: boolean;
  /** For last_error: the SMTP reply or the error's own words, never a password. */
  reason: string;
}

const TRANSIENT_CODES = new Set([
  'ECONNECTION',
  'ETIMEDOUT',
  'ESOCKET',
  'EDNS',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'EPROTOCOL',
]);

/** SMTP 4xx and connection trouble are transient; a 5xx reply is final. */
export function classifySendError(err: unknown): SendFailure {
  const e = (typeof err === 'object' && err !== null ? err : {}) as {
    responseCode?: unknown;
    response?: unknown;
    code?: unknown;
    message?: unknown;
  };
  const reply = typeof e.response === 'string' ? e.response : undefined;
  const message = typeof e.message === 'string' ? e.message : String(err);
  const reason = (reply ?? message).replace(/\s+/g, ' ').slice(0, 500);
  if (typeof e.responseCode === 'number') {
    return { transient: e.responseCode < 500, reason };
  }
  if (typeof e.code === 'string' && TRANSIENT_CODES.has(e.code)) return { transient: true, reason };
  // Anything else (a local fault writing a file, an unknown error) is retried: giving up is
  // only right when the receiving server has said no.
  return { transient: true, reason };
}
