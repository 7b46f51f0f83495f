// Accounts are studios: a name used in emails, an owner email and a password.
import type { Deps } from '../../deps.ts';
import { AppError, notFound, validationError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { isEmail, normalizeEmail } from '../../email-address.ts';
import { hashPassword } from './password.ts';
import * as repo from './accounts.repository.ts';

export interface Account {
  id: string;
  name: string;
  email: string;
  sender_name: string | null;
  created_at: string;
  updated_at: string;
}

export interface CreateAccountInput {
  name: string;
  email: string;
  password: string;
}

export const MIN_PASSWORD_LENGTH = 10;

const toAccount = (row: repo.AccountRow): Account => ({
  id: row.id,
  name: row.name,
  email: row.email,
  sender_name: row.sender_name,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

export type AccountsService = ReturnType<typeof createAccountsService>;

export function createAccountsService({ db, clock }: Pick<Deps, 'db' | 'clock'>) {
  return {
    async create(input: CreateAccountInput): Promise<Account> {
      const name = input.name.trim();
      const email = input.email.trim();
      if (name.length < 1 || name.length > 200) throw validationError('name', 'must be 1 to 200 characters');
      if (!isEmail(email)) throw validationError('email', 'must be a valid email address');
      if (input.password.length < MIN_PASSWORD_LENGTH) {
        throw validationError('password', `must be at least ${MIN_PASSWORD_LENGTH} characters`);
      }
      if (input.password.length > 1024) throw validationError('password', 'must be at most 1024 characters');
      const now = clock().toISOString();
      const row = {
        id: newId('acc'),
        name,
        email,
        email_normalized: normalizeEmail(email),
        password_hash: await hashPassword(input.password),
        sender_name: null,
        created_at: now,
        updated_at: now,
      };
      try {
        await repo.insertAccount(db.kysely, row);
      } catch (err) {
        if (isUniqueViolation(err)) throw new AppError('conflict', 'An account with this email already exists');
        throw err;
      }
      return toAccount(row);
    },

    async findByEmail(email: string): Promise<Account> {
      const row = await repo.findAccountByEmail(db.kysely, normalizeEmail(email));
      if (row === undefined) throw notFound('Account');
      return toAccount(row);
    },

    async get(id: string): Promise<Account> {
      const row = await repo.findAccount(db.kysely, id);
      if (row === undefined) throw notFound('Account');
      return toAccount(row);
    },
  };
}
