// What the security suite compares refusals with: an error without its request id, URLs whose
// ids exist nowhere, and a key of the right shape that no account holds.
import { randomBytes } from 'node:crypto';
import type { Response } from './test-app.ts';

/** The error body without its request id, to compare two refusals. */
export function errorWithoutRequestId(res: Response): unknown {
  const { error } = res.json<{ error: Record<string, unknown> }>();
  const rest = { ...error };
  delete rest.request_id;
  return { status: res.statusCode, error: rest };
}

/** The same URL with every resource id replaced by a well-formed id that does not exist. */
export const missingId = (prefix: string): string => `${prefix}_0000000000000000000000ZZZZ`;
export const withMissingIds = (url: string): string =>
  url.replace(/\b(lst|cli|med|ntf|whe|whd|evt|upl|shl|prd|ivc|pay|mlp)_[0-9A-Za-z]+/g, (_match, prefix: string) =>
    missingId(prefix),
  );

/** A live key's shape (lbx_ and 40 characters of base 62) that no account holds. */
export const wellFormedUnknownKey = (): string => {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  return `lbx_${Array.from(randomBytes(40), (b) => alphabet.charAt(b % 62)).join('')}`;
};
