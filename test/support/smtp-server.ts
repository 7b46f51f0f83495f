// A real SMTP server (smtp-server) on 127.0.0.1 for the notification suites and the outage
// script. It collects what it accepts, parsed with postal-mime (mailparser cannot be installed
// from this registry mirror), and can be switched between behaving and misbehaving:
//   accept  - takes every message (250)
//   refuse  - the listener is closed: connections are refused (ECONNREFUSED)
//   421     - the greeting is "421 ... closing channel" (a busy server), then the connection ends
//   451     - the whole message is received, then DATA is answered 451 (try again later);
//             the message is kept in `deferred`, so a test can see what was attempted
//   550     - RCPT TO is answered 550 (mailbox unavailable): a permanent refusal
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import PostalMime, { type Email } from 'postal-mime';

export type SmtpMode = 'accept' | 'refuse' | '421' | '451' | '550';

export interface ReceivedMail {
  envelopeFrom: string;
  envelopeTo: string[];
  /** The message as it arrived. */
  raw: string;
  /** The message parsed by postal-mime. */
  email: Email;
  messageId: string;
}

export interface SmtpSession {
  mode: Exclude<SmtpMode, 'refuse'>;
  at: number;
}

export interface TestSmtpServer {
  readonly port: number;
  /** SMTP_URL for this server. */
  readonly url: string;
  /** Messages accepted (250), in arrival order. */
  readonly received: ReceivedMail[];
  /** Messages received in full and then answered 451. */
  readonly deferred: ReceivedMail[];
  /** Every connection that got as far as a greeting, with the mode it met. */
  readonly sessions: SmtpSession[];
  mode(): SmtpMode;
  setMode(mode: SmtpMode): Promise<void>;
  /** Resolves once at least `count` messages are accepted; rejects after `timeoutMs`. */
  waitForReceived(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  /** Forgets what was received, deferred and seen. */
  reset(): void;
  close(): Promise<void>;
}

const temporary = (code: number, message: string): Error => Object.assign(new Error(message), { responseCode: code });

async function readAll(stream: SMTPServerDataStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function parse(raw: string, session: SMTPServerSession): Promise<ReceivedMail> {
  const email = await PostalMime.parse(raw);
  const envelope = session.envelope;
  return {
    envelopeFrom: envelope.mailFrom === false ? '' : envelope.mailFrom.address,
    envelopeTo: envelope.rcptTo.map((r) => r.address),
    raw,
    email,
    messageId: email.messageId ?? '',
  };
}

export async function startSmtpServer(initial: SmtpMode = 'accept'): Promise<TestSmtpServer> {
  let mode: SmtpMode = initial;
  const received: ReceivedMail[] = [];
  const deferred: ReceivedMail[] = [];
  const sessions: SmtpSession[] = [];
  const waiters = new Set<() => void>();
  const notify = (): void => {
    for (const waiter of waiters) waiter();
  };

  const server = new SMTPServer({
    authOptional: true,
    // SMTP_URL credentials are welcome (any user and password), over plain text on 127.0.0.1.
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username });
    },
    disabledCommands: ['STARTTLS'],
    logger: false,
    closeTimeout: 100,
    disableReverseLookup: true,
    onConnect(_session, callback) {
      if (mode === 'refuse') return callback(temporary(421, 'Service not available, closing transmission channel'));
      sessions.push({ mode, at: Date.now() });
      if (mode === '421') return callback(temporary(421, '4.3.2 Service not available, closing transmission channel'));
      callback();
    },
    onRcptTo(_address, _session, callback) {
      if (mode === '550') return callback(temporary(550, '5.1.1 Mailbox unavailable: no such user here'));
      callback();
    },
    onData(stream, session, callback) {
      // The mode at the start of DATA decides, whatever happens while the body arrives.
      const decision = mode;
      readAll(stream)
        .then((raw) => parse(raw, session))
        .then((mail) => {
          if (decision === '451') {
            deferred.push(mail);
            callback(temporary(451, '4.3.0 Temporary local problem, please try again later'));
          } else {
            received.push(mail);
            callback(null, `2.0.0 Ok: queued as ${received.length}`);
          }
          notify();
        })
        .catch((err: unknown) => callback(err instanceof Error ? err : new Error(String(err))));
    },
  });
  server.on('error', () => undefined);

  const listen = (port: number): Promise<number> =>
    new Promise((resolve, reject) => {
      server.server.once('error', reject);
      server.server.listen(port, '127.0.0.1', () => {
        server.server.off('error', reject);
        const address = server.server.address();
        resolve(typeof address === 'object' && address !== null ? address.port : port);
      });
    });

  const port = await listen(0);
  if (initial === 'refuse') server.server.close();

  const api: TestSmtpServer = {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received,
    deferred,
    sessions,
    mode: () => mode,
    async setMode(next) {
      const wasListening = mode !== 'refuse';
      mode = next;
      // Only the listener closes: sessions already open finish as the new mode says.
      if (next === 'refuse' && wasListening) server.server.close();
      if (next !== 'refuse' && !wasListening) await listen(port);
    },
    waitForReceived(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (received.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(received);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`expected ${count} messages, received ${received.length} in ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    reset() {
      received.length = 0;
      deferred.length = 0;
      sessions.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        mode = 'refuse';
        server.close(() => resolve());
      }),
  };
  return api;
}
