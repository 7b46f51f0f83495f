// The embedded default: each email becomes an .eml file under DATA_DIR/outbox, so the whole
// flow can be seen (and opened in any mail program) without an SMTP server.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Mailer } from './mailer.ts';

/** Longer names than this are cut (file systems refuse names over 255 bytes). */
const MAX_NAME = 200;

/**
 * The file's name: the Message-ID without its angle brackets, as docs/email.md documents
 * (`<ntf_01J…@studio.example>` is `ntf_01J…@studio.example.eml`), so a retry after a crash
 * rewrites the same file. Any character but letters, digits, `@`, `.`, `_` and `-` becomes `_`
 * and a leading dot does too, so no Message-ID can name another folder (no separator survives),
 * a hidden file, or a character some file system refuses (`:` of an IPv6 host on Windows).
 */
export function emlFileName(messageId: string): string {
  const id = messageId.trim().replace(/^<(.*)>$/s, '$1');
  const safe = id
    .replace(/[^A-Za-z0-9@._-]/g, '_')
    .replace(/^\.+/, (dots) => '_'.repeat(dots.length))
    .slice(0, MAX_NAME);
  return `${safe === '' ? '_' : safe}.eml`;
}

export function createFileMailer(dir: string): Mailer {
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    kind: 'file',
    async send(message) {
      const info = (await composer.sendMail({ ...message })) as { message: Buffer };
      await mkdir(dir, { recursive: true });
      const file = path.join(dir, emlFileName(message.messageId));
      const partial = `${file}.partial`;
      await writeFile(partial, info.message);
      await rename(partial, file);
      return { detail: `written to ${file}` };
    },
    close: () => undefined,
  };
}
