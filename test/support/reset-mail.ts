// The password reset emails written to a data folder's outbox (the file mailer, the embedded
// default), parsed as a mail program would, with the link and token each one carries.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import PostalMime from 'postal-mime';

export interface ResetMail {
  file: string;
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
  /** The link in the text part. */
  link: string;
  token: string;
}

const LINK = /^(https?:\/\/\S+\/dashboard\/reset-password\?token=(\S+))$/m;

/** Every reset email in DATA_DIR/outbox, in no particular order; other emails are skipped. */
export async function resetMails(dataDir: string): Promise<ResetMail[]> {
  const dir = path.join(dataDir, 'outbox');
  const files = await readdir(dir).catch(() => [] as string[]);
  const mails: ResetMail[] = [];
  for (const file of files.filter((f) => f.endsWith('.eml'))) {
    const email = await PostalMime.parse(await readFile(path.join(dir, file)));
    const match = LINK.exec(email.text ?? '');
    if (match === null) continue;
    mails.push({
      file,
      to: email.to?.map((a) => a.address).join(', ') ?? '',
      from: `${email.from?.name ?? ''} <${email.from?.address ?? ''}>`,
      subject: email.subject ?? '',
      text: email.text ?? '',
      html: email.html ?? '',
      link: match[1] ?? '',
      token: decodeURIComponent(match[2] ?? ''),
    });
  }
  return mails;
}
