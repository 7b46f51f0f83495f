// List cursors (docs/api.md §19): an opaque token naming the last item of a page (its sort
// value and id), signed with the deployment's secret together with what the list was: its name,
// the account, the parent resource, the filters and the sort. A cursor is refused (400 naming
// `cursor`) when it was tampered with, or made for another list, filter set, sort or account:
// each of those changes the signed text. The next page starts strictly after the named position
// in the list's order (keyset pagination, src/db/keyset.ts), so its cost does not grow with depth.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { validationError } from '../errors.ts';

/** Where a page ended: the last item's sort value and id. */
export interface Position {
  value: string;
  id: string;
  /**
   * How many items the pages before this position held, for a list whose total counts through
   * the page (a search, docs/api.md §19): signed with the position, so it cannot be forged.
   */
  seen?: number;
}

/** What a cursor belongs to: a list, an account, and every parameter that shapes it except the page size. */
export interface CursorScope {
  list: string;
  accountId: string;
  params: Record<string, string | number | boolean | null | undefined>;
}

/** A cursor's longest accepted length (a position is two short strings). */
export const MAX_CURSOR_LENGTH = 512;
const MAC_LENGTH = 22;

function scopeText(scope: CursorScope): string {
  const params = Object.entries(scope.params)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([scope.list, scope.accountId, params]);
}

const refused = (why: string) => validationError('cursor', why);

export interface CursorCodec {
  encode(scope: CursorScope, position: Position): string;
  /** The position a cursor names, or a 400 `validation_error` naming `cursor`. */
  decode(scope: CursorScope, cursor: string): Position;
}

export function cursorCodec(secret: string): CursorCodec {
  const mac = (scope: CursorScope, body: string): string =>
    createHmac('sha256', secret)
      .update(scopeText(scope))
      .update('\n')
      .update(body)
      .digest('base64url')
      .slice(0, MAC_LENGTH);
  return {
    encode(scope, position) {
      const parts =
        position.seen === undefined ? [position.value, position.id] : [position.value, position.id, position.seen];
      const body = Buffer.from(JSON.stringify(parts)).toString('base64url');
      return `${body}.${mac(scope, body)}`;
    },
    decode(scope, cursor) {
      const dot = cursor.indexOf('.');
      if (cursor.length > MAX_CURSOR_LENGTH || dot < 1) throw refused('is not a cursor of this list');
      const body = cursor.slice(0, dot);
      const given = Buffer.from(cursor.slice(dot + 1));
      const expected = Buffer.from(mac(scope, body));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw refused('is not a cursor of this list, with these filters and sort, for this account');
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
      } catch {
        throw refused('is not a cursor of this list');
      }
      if (
        !Array.isArray(parsed) ||
        (parsed.length !== 2 && parsed.length !== 3) ||
        typeof parsed[0] !== 'string' ||
        typeof parsed[1] !== 'string' ||
        (parsed.length === 3 && !(Number.isSafeInteger(parsed[2]) && (parsed[2] as number) >= 0))
      ) {
        throw refused('is not a cursor of this list');
      }
      const position: Position = { value: parsed[0], id: parsed[1] };
      if (parsed.length === 3) position.seen = parsed[2] as number;
      return position;
    },
  };
}
