// A studio's team in tests (docs/api.md §27): the invitation emails in a data folder's outbox,
// parsed as a mail program would, and a member added the way a person joins (invited, the link
// followed, a password chosen).
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import PostalMime from 'postal-mime';
import type { User } from '../../src/modules/accounts/team.service.ts';
import type { TestContext } from './test-app.ts';

export interface InvitationMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  link: string;
  token: string;
}

const LINK = /^(https?:\/\/\S+\/dashboard\/invitations\/accept\?token=(\S+))$/m;

/** Every invitation email in DATA_DIR/outbox, in no particular order; other emails are skipped. */
export async function invitationMails(dataDir: string): Promise<InvitationMail[]> {
  const dir = path.join(dataDir, 'outbox');
  const files = await readdir(dir).catch(() => [] as string[]);
  const mails: InvitationMail[] = [];
  for (const file of files.filter((f) => f.endsWith('.eml'))) {
    const email = await PostalMime.parse(await readFile(path.join(dir, file)));
    const match = LINK.exec(email.text ?? '');
    if (match === null) continue;
    mails.push({
      to: email.to?.map((a) => a.address).join(', ') ?? '',
      subject: email.subject ?? '',
      text: email.text ?? '',
      html: email.html ?? '',
      link: match[1] ?? '',
      token: decodeURIComponent(match[2] ?? ''),
    });
  }
  return mails;
}

/** Invites `email` to the account's team and accepts with `password`: a member, as a person joins. */
export async function addMember(ctx: TestContext, accountId: string, email: string, password: string): Promise<User> {
  const owner = await ctx.services.team.ownerOf(accountId);
  await ctx.services.team.invite(accountId, { email, invitedBy: owner.email });
  for (const mail of (await invitationMails(ctx.dataDir)).filter((m) => m.to === email)) {
    const joined = await ctx.services.team.acceptInvitation(mail.token, password);
    if (joined !== null) return joined;
  }
  throw new Error(`no working invitation emailed to ${email}`);
}
