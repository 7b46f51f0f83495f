// Amounts in the dashboard's forms (docs/api.md §29): typed as decimal text in the account's
// currency, read into integer minor units by the money module, refused in a person's words.
import { formatMoney, MAX_UNIT_AMOUNT, minorUnits, parseDecimal, parseMoney } from '../modules/money/money.ts';

/** The typed amount in minor units, or what to say beside the field. */
export type MoneyRead = { amount: number; error?: undefined } | { amount?: undefined; error: string };

const example = (currency: string): string => formatMoney(25_000, currency).slice(currency.length + 1);

/** A price or amount typed in `currency`; `max` defaults to the largest unit price. */
export function readMoney(text: string, currency: string, max = MAX_UNIT_AMOUNT, min = 0): MoneyRead {
  if (text.trim() === '') return { error: `Enter an amount, like ${example(currency)}` };
  const read = parseMoney(text, currency);
  if ('refused' in read) {
    const digits = minorUnits(currency);
    return {
      error:
        read.refused === 'precision'
          ? digits === 0
            ? `${currency} has no decimals: enter a whole amount, like ${example(currency)}`
            : `Use at most ${digits} decimals, like ${example(currency)}`
          : `Enter an amount in numbers, like ${example(currency)}`,
    };
  }
  if (read.amount > max) return { error: `Enter at most ${formatMoney(max, currency)}` };
  if (read.amount < min) return { error: `Enter at least ${formatMoney(min, currency)}` };
  return { amount: read.amount };
}

/** A tax rate typed as a percentage ("8.25") in basis points (825), 0 to 100 %. */
export function readPercent(text: string): { bps: number; error?: undefined } | { bps?: undefined; error: string } {
  if (text.trim() === '') return { bps: 0 };
  const read = parseDecimal(text.replace(/%\s*$/, ''), 2);
  if ('refused' in read) return { error: 'Enter a percentage from 0 to 100, with at most 2 decimals, like 8.25' };
  if (read.amount > 10_000) return { error: 'Enter a percentage from 0 to 100' };
  return { bps: read.amount };
}

/** 825 basis points as a person reads and types them: "8.25". */
export function percentText(bps: number): string {
  const whole = Math.floor(bps / 100);
  const rest = bps % 100;
  return rest === 0 ? String(whole) : `${whole}.${String(rest).padStart(2, '0').replace(/0$/, '')}`;
}
