// The embedded default: each email becomes an .eml file under DATA_DIR/outbox, so the whole
// flow can be seen (and opened in any mail program) without an SMTP server.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Mailer } from './mailer.ts';

export function createFileMailer(dir: string): Mailer {
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    kind: 'file',
    async send(message) {
      const info = (await composer.sendMail({ ...message })) as { message: Buffer };
      await mkdir(dir, { recursive: true });
      // The Message-ID names the file, so a retry after a crash rewrites the same file.
      const name = `${message.messageId.replace(/[^A-Za-z0-9._-]/g, '')}.eml`;
      const file = path.join(dir, name);
      const partial = `${file}.partial`;
      await writeFile(partial, info.message);
      await rename(partial, file);
      return { detail: `written to ${file}` };
    },
    close: () => undefined,
  };
}
