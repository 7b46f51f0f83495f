// The controls every link takes, whatever its kind (docs/api.md §25, §28): one reading of a PATCH or
// a create, for the client link's PATCH and the share links' create and PATCH alike.
import { AppError } from '../../errors.ts';
import type { PasswordHasher } from '../../lib/password.ts';
import type { LinkChanges } from './client-links.repository.ts';

export interface LinkControlsInput {
  label?: string | undefined;
  expires_at?: string | null | undefined;
  password?: string | null | undefined;
  downloads_enabled?: boolean | undefined;
  favorites_enabled?: boolean | undefined;
  selection_min?: number | null | undefined;
  selection_max?: number | null | undefined;
}

/**
 * The stored form of a link's controls: a future expiry (else 400), the password hashed (before the
 * transaction: scrypt takes tens of milliseconds), switches as 0 or 1. Only the fields given.
 */
export async function linkChanges(input: LinkControlsInput, now: number, passwords: PasswordHasher) {
  const changes: LinkChanges = {};
  if (input.label !== undefined) changes.label = input.label;
  if (input.expires_at !== undefined) {
    const at = input.expires_at === null ? null : Date.parse(input.expires_at);
    if (at !== null && !(at > now)) {
      throw new AppError('validation_error', 'expires_at must be in the future', [
        { field: 'expires_at', message: 'must be a time in the future, or null' },
      ]);
    }
    changes.expires_at = at === null ? null : new Date(at).toISOString();
  }
  if (input.password !== undefined) {
    changes.password_hash = input.password === null ? null : await passwords.hash(input.password);
  }
  if (input.downloads_enabled !== undefined) changes.downloads_enabled = input.downloads_enabled ? 1 : 0;
  if (input.favorites_enabled !== undefined) changes.favorites_enabled = input.favorites_enabled ? 1 : 0;
  if (input.selection_min !== undefined) changes.selection_min = input.selection_min;
  if (input.selection_max !== undefined) changes.selection_max = input.selection_max;
  return changes;
}

/**
 * docs/api.md §28: min <= max, as the link will be once changed (a PATCH of one bound is checked
 * against the other as stored). A 400 naming selection_min otherwise.
 */
export function checkSelectionBounds(
  current: { selection_min: number | null; selection_max: number | null },
  changes: LinkChanges,
): void {
  const min = changes.selection_min !== undefined ? changes.selection_min : current.selection_min;
  const max = changes.selection_max !== undefined ? changes.selection_max : current.selection_max;
  if (min !== null && max !== null && min > max) {
    throw new AppError('validation_error', 'selection_min must not be more than selection_max', [
      { field: 'selection_min', message: `must be at most selection_max (${max})` },
    ]);
  }
}
