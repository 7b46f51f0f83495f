// Accounts are studios: a name used in emails, an owner email and a password.
import type { Deps } from '../../deps.ts';
import { AppError, notFound, validationError } from '../../errors.ts';
import { newId } from '../../lib/ids.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { isEmail, normalizeEmail } from '../../lib/email-address.ts';
import type { Executor } from '../../db/executor.ts';
import type { Writes } from '../../mechanisms/writes/writes.ts';
import { passwordHasher, verifyPassword } from '../../lib/password.ts';
import { deleteResetsOfUser } from './password-reset.repository.ts';
import { createSignInThrottle } from './sign-in.service.ts';
import { STUDIO_NAME_MAX_LENGTH } from './account.schemas.ts';
import { DEFAULT_CURRENCY, isCurrency } from '../money/money.ts';
import * as repo from './accounts.repository.ts';
import { DEFAULT_ROOM_ORDER, parseRoomOrder, roomOrderProblems, type Room } from '../analysis/analysis.room-order.ts';
import type { Account } from './accounts.repository.ts';
import * as users from './users.repository.ts';

export type { Account };

export interface CreateAccountInput {
  name: string;
  email: string;
  password: string;
}

export interface ChangePasswordInput {
  current: string;
  next: string;
  /** The client's address: failures are throttled per address too. */
  address: string;
}

export const MIN_PASSWORD_LENGTH = 10;

const toAccount = (row: repo.AccountRow): Account => ({
  id: row.id,
  name: row.name,
  email: row.email,
  sender_name: row.sender_name,
  currency: row.currency,
  created_at: row.created_at,
  updated_at: row.updated_at,
  livemode: row.live_account_id === null,
});

export interface StudioSettingsInput {
  name: string;
  /** The From name of notification emails; empty or null means the studio name. */
  senderName: string | null;
  /** ISO 4217 (docs/api.md §29); unchanged when absent. */
  currency?: string;
}

function checkName(field: string, value: string): void {
  if (value.length < 1 || value.length > STUDIO_NAME_MAX_LENGTH) {
    throw validationError(field, `must be 1 to ${STUDIO_NAME_MAX_LENGTH} characters`);
  }
}

/**
 * A person's new password takes effect: in the caller's transaction, every session of theirs
 * ends and every reset link of theirs stops working. Returns how many sessions ended.
 */
export async function storeNewPassword(trx: Executor, userId: string, hash: string, now: string): Promise<number> {
  await users.updatePassword(trx, userId, hash, now);
  await deleteResetsOfUser(trx, userId);
  return users.deleteSessionsOfUser(trx, userId);
}

/** The rules of every new password: setup, change, reset (the form's own field name in errors). */
export function checkNewPassword(field: string, password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw validationError(field, `must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  if (password.length > 1024) throw validationError(field, 'must be at most 1024 characters');
}

const setupDone = (): AppError =>
  new AppError('conflict', 'This Lightbox is already set up: sign in, or ask the operator for an account');

export type AccountsService = ReturnType<typeof createAccountsService>;

export function createAccountsService({
  db,
  clock,
  writes,
  passwords = passwordHasher(),
}: Pick<Deps, 'db' | 'clock'> & Partial<Pick<Deps, 'passwords'>> & { writes: Writes }) {
  const throttle = createSignInThrottle({ db, clock });
  /** Validates and hashes (slow, so never inside a transaction). */
  async function newRow(input: CreateAccountInput) {
    const name = input.name.trim();
    const email = input.email.trim();
    checkName('name', name);
    if (!isEmail(email)) throw validationError('email', 'must be a valid email address');
    checkNewPassword('password', input.password);
    const now = clock.iso();
    const id = newId('acc');
    const owner: users.NewUser = {
      // The owner's id follows the account's, as the migration made it for older studios.
      id: `usr_${id.slice(4)}`,
      account_id: id,
      email,
      email_normalized: normalizeEmail(email),
      role: 'owner',
      password_hash: await passwords.hash(input.password),
      totp_enabled: 0,
      created_at: now,
      updated_at: now,
    };
    const account = {
      id,
      name,
      email,
      email_normalized: normalizeEmail(email),
      // Passwords are the team's (users): the account's column is no longer read.
      password_hash: '!',
      sender_name: null,
      currency: DEFAULT_CURRENCY,
      room_order: null,
      watermark_logo_key: null,
      kit_music_key: null,
      kit_paper: null,
      created_at: now,
      updated_at: now,
      live_account_id: null,
    };
    return { account, owner };
  }

  async function requireRow(id: string): Promise<repo.AccountRow> {
    const row = await repo.findAccount(db.kysely, id);
    if (row === undefined) throw notFound('Account');
    return row;
  }

  return {
    async create(input: CreateAccountInput): Promise<Account> {
      const { account, owner } = await newRow(input);
      try {
        await writes.run(account.id, { now: account.created_at }, async ({ trx }) => {
          await repo.insertAccount(trx, account);
          await users.insertUser(trx, owner);
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw new AppError('conflict', 'An account with this email already exists');
        throw err;
      }
      return toAccount(account);
    },

    /** Whether the first account exists (the dashboard's setup form is offered until then). */
    async isSetUp(): Promise<boolean> {
      return repo.hasAnyAccount(db.kysely);
    },

    /**
     * The dashboard's one-time setup: creates the first account, or answers conflict when any
     * account exists. The setup marker's primary key makes concurrent setups create exactly one.
     */
    async createFirst(input: CreateAccountInput): Promise<Account> {
      const { account, owner } = await newRow(input);
      try {
        await writes.run(account.id, { now: account.created_at }, async ({ trx }) => {
          if (await repo.hasAnyAccount(trx)) throw setupDone();
          await repo.insertSetupMarker(trx, account.id, account.created_at);
          await repo.insertAccount(trx, account);
          await users.insertUser(trx, owner);
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw setupDone();
        throw err;
      }
      return toAccount(account);
    },

    async findByEmail(email: string): Promise<Account> {
      const row = await repo.findAccountByEmail(db.kysely, normalizeEmail(email));
      if (row === undefined) throw notFound('Account');
      return toAccount(row);
    },

    async get(id: string): Promise<Account> {
      return toAccount(await requireRow(id));
    },

    /** Studio name (emails name the studio) and sender name (the From name of those emails). */
    async updateStudio(id: string, input: StudioSettingsInput): Promise<Account> {
      const name = input.name.trim();
      const sender = input.senderName?.trim() ?? '';
      checkName('name', name);
      if (sender.length > STUDIO_NAME_MAX_LENGTH) {
        throw validationError('sender_name', `must be at most ${STUDIO_NAME_MAX_LENGTH} characters`);
      }
      const currency = input.currency?.trim().toUpperCase();
      if (currency !== undefined && !isCurrency(currency)) {
        throw validationError('currency', 'must be an ISO 4217 currency code, such as USD, EUR or JPY');
      }
      const values = {
        name,
        sender_name: sender === '' ? null : sender,
        ...(currency === undefined ? {} : { currency }),
        updated_at: clock.iso(),
      };
      const updated = await writes.run(id, { now: values.updated_at }, ({ trx }) => repo.updateStudio(trx, id, values));
      if (!updated) throw notFound('Account');
      return toAccount(await requireRow(id));
    },

    /**
     * docs/api.md §30: the studio's room order (the live account's: a test key's suggestions
     * follow the same Settings), the default until one is saved.
     */
    async roomOrder(id: string): Promise<readonly Room[]> {
      const stored = await repo.findRoomOrder(db.kysely, id);
      if (stored === undefined) throw notFound('Account');
      return parseRoomOrder(stored);
    },

    /** Saves the studio's room order: each of the 14 rooms exactly once, else validation_error. */
    async setRoomOrder(id: string, order: readonly string[]): Promise<readonly Room[]> {
      const problems = roomOrderProblems(order);
      if (problems.length > 0) {
        throw new AppError(
          'validation_error',
          `room_order ${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`,
          problems.map((message) => ({ field: 'room_order', message })),
        );
      }
      // The default is stored as null, so a later change of the default reaches studios that kept it.
      const same = order.every((room, i) => room === DEFAULT_ROOM_ORDER[i]);
      const values = { room_order: same ? null : JSON.stringify(order), updated_at: clock.iso() };
      const updated = await writes.run(id, { now: values.updated_at }, ({ trx }) =>
        repo.updateRoomOrder(trx, id, values),
      );
      if (!updated) throw notFound('Account');
      return order as readonly Room[];
    },

    /**
     * Changes a person's password after checking the current one, and ends every session of
     * theirs in the same transaction (the caller starts a fresh one for whoever changed it).
     */
    async changePassword(userId: string, input: ChangePasswordInput): Promise<void> {
      const row = await users.findUser(db.kysely, userId);
      if (row === undefined) throw notFound('User');
      checkNewPassword('new_password', input.next);
      // A stolen session must not become a way to guess the password at speed: failures count
      // against the sign-in limits (this account, this address) and are refused past them.
      const checked = await throttle.attempt({ email: row.email, address: input.address }, async () =>
        (await verifyPassword(input.current, row.password_hash)) ? true : null,
      );
      if (checked.outcome === 'throttled') {
        throw new AppError(
          'rate_limited',
          `Too many attempts; try again in ${checked.retryAfterSeconds} s`,
          undefined,
          { 'retry-after': String(checked.retryAfterSeconds) },
        );
      }
      if (checked.outcome === 'invalid') throw validationError('current_password', 'is not your current password');
      const hash = await passwords.hash(input.next);
      const now = clock.iso();
      await writes.run(row.account_id, { now }, ({ trx }) => storeNewPassword(trx, userId, hash, now));
    },

    /**
     * The operator's reset (`lightbox accounts reset-password`): no current password, every
     * session ended, and the account's sign-in failures forgotten so its owner can sign in at once.
     * Resolves to how many sessions ended.
     */
    async resetPassword(email: string, password: string): Promise<{ account: Account; sessionsEnded: number }> {
      const user = await users.findUserByEmail(db.kysely, normalizeEmail(email));
      if (user === undefined) throw notFound('Account');
      checkNewPassword('password', password);
      const hash = await passwords.hash(password);
      const now = clock.iso();
      const sessionsEnded = await writes.run(user.account_id, { now }, ({ trx }) =>
        storeNewPassword(trx, user.id, hash, now),
      );
      await throttle.forgive(user.email);
      return { account: { ...toAccount(await requireRow(user.account_id)), email: user.email }, sessionsEnded };
    },

    /** Every account, oldest first. */
    async list(): Promise<Account[]> {
      return (await repo.listAccounts(db.kysely)).map(toAccount);
    },
  };
}
