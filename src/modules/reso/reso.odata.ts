// docs/api.md §33: the OData subset the RESO media feed takes, and nothing else. `$filter` joins
// by `and` clauses of three forms: `ResourceRecordKey eq '...'`, `ResourceRecordID eq '...'` (a
// string literal, a quote inside written twice) and `MediaModificationTimestamp gt|ge <timestamp>`
// (an OData DateTimeOffset literal). Anything else is 400 `validation_error` naming `$filter` and
// the part refused.
import { validationError } from '../../errors.ts';

export interface FeedFilter {
  /** ResourceRecordKey values (the gallery's mls_number, else its id): every one must match. */
  recordKeys: string[];
  /** ResourceRecordID values (the gallery id): every one must match. */
  recordIds: string[];
  /** The stored timestamp a record's must be strictly after (the latest of the `gt`s and `ge`s). */
  after: string | undefined;
  /** The stored timestamp a record's must be at or after. */
  atOrAfter: string | undefined;
}

/** The longest `$filter` taken (a few clauses of short keys fit in far less). */
export const MAX_FILTER_LENGTH = 2_000;

const refuse = (message: string) => validationError('$filter', message);

// YYYY-MM-DDTHH:MM[:SS[.fraction]] then Z or an offset: OData's DateTimeOffset literal.
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.(\d{1,12}))?)?)(Z|[+-]\d{2}:\d{2})$/i;

/**
 * A DateTimeOffset as a bound on stored timestamps (UTC, whole milliseconds): `gt` or `ge` an
 * instant between two milliseconds both mean "after the earlier one".
 */
function timestampBound(text: string, op: 'gt' | 'ge'): { op: 'gt' | 'ge'; value: string } {
  const match = TIMESTAMP.exec(text);
  if (match === null) {
    throw refuse(
      `MediaModificationTimestamp must be compared with an ISO 8601 timestamp with a time zone, not ${text}`,
    );
  }
  const fraction = match[2] ?? '';
  const [y = 0, mo = 0, d = 0, h = 0] = (match[1] ?? '').split(/[-T:]/).map(Number);
  const day = new Date(Date.UTC(y, mo - 1, d));
  if (day.getUTCMonth() !== mo - 1 || day.getUTCDate() !== d || h > 23) throw refuse(`${text} is not a timestamp`);
  const ms = Date.parse(
    `${match[1]?.slice(0, 19).padEnd(19, ':00')}${fraction === '' ? '' : `.${fraction.slice(0, 3)}`}${match[3]}`,
  );
  const at = new Date(ms);
  if (Number.isNaN(ms) || at.getUTCFullYear() < 1 || at.getUTCFullYear() > 9999) {
    throw refuse(`${text} is not a timestamp`);
  }
  // Digits past the millisecond: stored values (whole milliseconds) are after it only if after its millisecond.
  const finer = /[1-9]/.test(fraction.slice(3));
  return { op: finer ? 'gt' : op, value: at.toISOString() };
}

/** `'...'` at the start of `text`: the string (`''` is one quote) and what follows it. */
function stringLiteral(text: string): { value: string; rest: string } | undefined {
  if (!text.startsWith("'")) return undefined;
  let value = '';
  let i = 1;
  while (i < text.length) {
    const c = text.charAt(i);
    if (c === "'") {
      if (text[i + 1] === "'") {
        value += "'";
        i += 2;
        continue;
      }
      return { value, rest: text.slice(i + 1) };
    }
    value += c;
    i += 1;
  }
  return undefined;
}

const CLAUSE = /^([A-Za-z_$][A-Za-z0-9_$/.]*)\s+([A-Za-z]+)\s+/;

export function parseFilter(raw: string | undefined): FeedFilter {
  const filter: FeedFilter = { recordKeys: [], recordIds: [], after: undefined, atOrAfter: undefined };
  if (raw === undefined) return filter;
  if (raw.length > MAX_FILTER_LENGTH) throw refuse(`must be at most ${MAX_FILTER_LENGTH} characters`);
  let rest = raw.trim();
  if (rest === '') throw refuse('must not be empty');
  for (;;) {
    const head = CLAUSE.exec(rest);
    if (head === null)
      throw refuse(`only "Field op value" clauses joined by "and" are supported, not: ${rest.slice(0, 80)}`);
    const [whole, field = '', op = ''] = head;
    rest = rest.slice(whole.length);
    if (field === 'ResourceRecordKey' || field === 'ResourceRecordID') {
      if (op !== 'eq') throw refuse(`${field} takes eq only, not ${op}`);
      const literal = stringLiteral(rest);
      if (literal === undefined) throw refuse(`${field} eq takes a quoted string ('...', a quote inside written '')`);
      (field === 'ResourceRecordKey' ? filter.recordKeys : filter.recordIds).push(literal.value);
      rest = literal.rest;
    } else if (field === 'MediaModificationTimestamp') {
      if (op !== 'gt' && op !== 'ge') throw refuse(`MediaModificationTimestamp takes gt or ge only, not ${op}`);
      const token = /^[^\s)]+/.exec(rest)?.[0] ?? '';
      rest = rest.slice(token.length);
      const bound = timestampBound(token, op);
      if (bound.op === 'gt')
        filter.after = filter.after === undefined || bound.value > filter.after ? bound.value : filter.after;
      else
        filter.atOrAfter =
          filter.atOrAfter === undefined || bound.value > filter.atOrAfter ? bound.value : filter.atOrAfter;
    } else {
      throw refuse(
        `filtering by ${field} is not supported (ResourceRecordKey, ResourceRecordID, MediaModificationTimestamp)`,
      );
    }
    const joined = /^\s+and\s+/.exec(rest);
    if (joined !== null) {
      rest = rest.slice(joined[0].length);
      continue;
    }
    if (rest.trim() === '') return filter;
    throw refuse(`clauses are joined by "and" only, not: ${rest.trim().slice(0, 80)}`);
  }
}
