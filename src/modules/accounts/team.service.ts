// docs/api.md §27: a studio's team. The owner invites people by email (a link valid 7 days, of
// which only the SHA-256 of its token is kept); whoever follows it chooses a password and joins
// as a member. Removing a member deletes their sessions in the same transaction: they are
// signed out at once, on every node.
import { createHash, randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.ts';
import type { Writes } from '../../mechanisms/writes/writes.ts';
import type { UserRole } from '../../db/schema.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { AppError, notFound, validationError } from '../../errors.ts';
import { isoAt } from '../../lib/clock.ts';
import { isEmail, normalizeEmail } from '../../lib/email-address.ts';
import { newId } from '../../lib/ids.ts';
import { renderInvitationEmail } from '../../mail/templates.ts';
import { findAccount } from './accounts.repository.ts';
import { checkNewPassword } from './accounts.service.ts';
import { hashPassword } from './password.ts';
import { newToken, TOKEN_SHAPE } from './sessions.service.ts';
import * as repo from './users.repository.ts';

export const INVITATION_VALID_MS = 7 * 86_400_000;

export interface User {
  id: string;
  accountId: string;
  email: string;
  role: UserRole;
  twoFactor: boolean;
  createdAt: string;
}

export interface Invitation {
  id: string;
  email: string;
  role: UserRole;
  createdAt: string;
  expiresAt: string;
}

const toUser = (row: repo.UserRow): User => ({
  id: row.id,
  accountId: row.account_id,
  email: row.email,
  role: row.role,
  twoFactor: row.totp_enabled === 1,
  createdAt: row.created_at,
});

const toInvitation = (row: repo.InvitationRow): Invitation => ({
  id: row.id,
  email: row.email,
  role: row.role,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

const hashInvitationToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export type TeamService = ReturnType<typeof createTeamService>;

export function createTeamService(deps: Pick<Deps, 'db' | 'clock' | 'config' | 'mailer'> & { writes: Writes }) {
  const { db, clock, config, mailer, writes } = deps;
  const linkBase = new URL('/dashboard/invitations/accept', config.publicUrl);

  async function liveInvitation(token: string | undefined) {
    if (token === undefined || !TOKEN_SHAPE.test(token)) return undefined;
    return repo.findLiveInvitation(db.kysely, hashInvitationToken(token), clock.iso());
  }

  return {
    /** A person of the account, or null (removed, or of another account). */
    async get(accountId: string, userId: string): Promise<User | null> {
      const row = await repo.findUserOfAccount(db.kysely, accountId, userId);
      return row === undefined ? null : toUser(row);
    },

    async ownerOf(accountId: string): Promise<User> {
      const row = await repo.findOwner(db.kysely, accountId);
      if (row === undefined) throw notFound('Owner');
      return toUser(row);
    },

    /** The team (owner first) and the invitations still valid. */
    async list(accountId: string): Promise<{ users: User[]; invitations: Invitation[] }> {
      const [users, invitations] = await Promise.all([
        repo.listUsers(db.kysely, accountId),
        repo.listInvitations(db.kysely, accountId, clock.iso()),
      ]);
      return { users: users.map(toUser), invitations: invitations.map(toInvitation) };
    },

    /**
     * Invites `email` as a member and emails the link. An email that already signs in to a team
     * (this one or another) is refused: one person, one sign-in. A second invitation to the same
     * email replaces the first. Resolves once the email is sent; a failure to send rejects, and
     * the invitation stays listed (the owner can invite again).
     */
    async invite(accountId: string, input: { email: string; invitedBy: string }): Promise<Invitation> {
      const email = input.email.trim();
      if (!isEmail(email)) throw validationError('email', 'must be a valid email address');
      const normalized = normalizeEmail(email);
      if ((await repo.findUserByEmail(db.kysely, normalized)) !== undefined) {
        throw validationError('email', 'already signs in to a Lightbox team');
      }
      const account = await findAccount(db.kysely, accountId);
      if (account === undefined) throw notFound('Account');
      const token = newToken();
      const now = clock.now();
      const row = {
        id: newId('inv'),
        account_id: accountId,
        email,
        email_normalized: normalized,
        role: 'member' as const,
        token_hash: hashInvitationToken(token),
        created_at: isoAt(now),
        expires_at: isoAt(now + INVITATION_VALID_MS),
      };
      await writes.run(accountId, { now: row.created_at }, async (w) => {
        await repo.deleteExpiredInvitations(w.trx, row.created_at);
        await repo.insertInvitation(w.trx, row);
      });
      const url = new URL(linkBase);
      url.searchParams.set('token', token);
      const { subject, text, html } = renderInvitationEmail({
        studioName: account.name,
        invitedBy: input.invitedBy,
        acceptUrl: url.toString(),
        validDays: INVITATION_VALID_MS / 86_400_000,
      });
      const host = new URL(config.publicUrl).hostname || 'lightbox.local';
      await mailer.send({
        messageId: `<invitation-${randomUUID()}@${host}>`,
        from: {
          name: config.mail.from.name === '' ? 'Lightbox' : config.mail.from.name,
          address: config.mail.from.address,
        },
        to: email,
        subject,
        text,
        html,
      });
      return toInvitation(row);
    },

    async revokeInvitation(accountId: string, id: string): Promise<void> {
      const done = await writes.run(accountId, {}, (w) => repo.deleteInvitation(w.trx, accountId, id));
      if (!done) throw notFound('Invitation');
    },

    /** Who a link invites, while it is valid; null otherwise. */
    async inspectInvitation(token: string | undefined): Promise<{ email: string; studioName: string } | null> {
      const invitation = await liveInvitation(token);
      const account = invitation === undefined ? undefined : await findAccount(db.kysely, invitation.account_id);
      return invitation === undefined || account === undefined
        ? null
        : { email: invitation.email, studioName: account.name };
    },

    /**
     * Joins the team with a link, once, with a password of the person's choosing. Null when the
     * link is no longer valid; a password that breaks the rules is a validation_error on
     * `password`; an email that meanwhile signs in elsewhere is a conflict.
     */
    async acceptInvitation(token: string | undefined, password: string): Promise<User | null> {
      const invitation = await liveInvitation(token);
      if (token === undefined || invitation === undefined) return null;
      checkNewPassword('password', password);
      const hash = await hashPassword(password); // slow: never inside the transaction
      const now = clock.iso();
      const row = {
        id: newId('usr'),
        account_id: invitation.account_id,
        email: invitation.email,
        email_normalized: invitation.email_normalized,
        role: invitation.role,
        password_hash: hash,
        totp_secret: null,
        totp_enabled: 0,
        totp_last_step: null,
        created_at: now,
        updated_at: now,
      };
      try {
        const joined = await writes.run(invitation.account_id, { now }, async (w) => {
          if (!(await repo.consumeInvitation(w.trx, hashInvitationToken(token), now))) return false;
          await repo.insertUser(w.trx, row);
          return true;
        });
        return joined ? toUser(row) : null;
      } catch (err) {
        if (isUniqueViolation(err)) throw new AppError('conflict', 'This email already signs in to a Lightbox team');
        throw err;
      }
    },

    /** Removes a member (never the owner); their sessions end in the same transaction. */
    async removeMember(accountId: string, userId: string): Promise<{ sessionsEnded: number }> {
      const member = await repo.findUserOfAccount(db.kysely, accountId, userId);
      if (member?.role !== 'member') throw notFound('Member');
      const sessionsEnded = await writes.run(accountId, {}, (w) => repo.deleteMember(w.trx, accountId, userId));
      return { sessionsEnded };
    },
  };
}
