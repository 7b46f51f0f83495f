// Money (docs/api.md §29): the ONE place an invoice's amounts are computed, and the one place an
// amount is written for a person to read. Every amount is an integer count of the currency's minor
// unit (cents, yen, fils); no floating point touches one. Sums and products are taken in BigInt
// and handed back only when they are safe integers, so no rounding can slip in through a double.

/**
 * ISO 4217 codes in use, with their minor unit when it is not 2 (ISO 4217's own table: JPY and
 * KRW have none, BHD and KWD three, CLF and UYW four).
 */
const MINOR_UNITS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};
const TWO_DECIMALS = (
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF ' +
  'CHF CNY COP CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL ' +
  'HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP ' +
  'MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD ' +
  'SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD UYU UZS ' +
  'VES WST XCD YER ZAR ZMW ZWG'
).split(' ');

/** Every currency an account may have. */
export const CURRENCIES: readonly string[] = [...TWO_DECIMALS, ...Object.keys(MINOR_UNITS)].sort();
const KNOWN = new Set(CURRENCIES);

export const DEFAULT_CURRENCY = 'USD';

export function isCurrency(code: string): boolean {
  return KNOWN.has(code);
}

/** Digits after the decimal point in the currency's minor unit (2 for USD, 0 for JPY). */
export function minorUnits(currency: string): number {
  if (!KNOWN.has(currency)) throw new Error(`not an ISO 4217 currency: ${currency}`);
  return MINOR_UNITS[currency] ?? 2;
}

/**
 * Where Stripe's amounts are not in ISO 4217's minor unit (docs.stripe.com/currencies, "special
 * cases"): ISK has no minor unit in ISO but two decimals at Stripe (always `00`); MGA has two in
 * ISO but none at Stripe. Its three-decimal currencies take amounts whose last digit is 0.
 */
const STRIPE_SCALE: Readonly<Record<string, number>> = { ISK: 100, MGA: 1 / 100 };
const STRIPE_TENS = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

/**
 * An amount (the currency's ISO minor unit) as Stripe's API takes it, or null when Stripe cannot
 * charge exactly that amount (MGA below a whole ariary, a three-decimal amount not in tens).
 */
export function toStripeAmount(amount: number, currency: string): number | null {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new Error(`an amount is a safe integer, not ${amount}`);
  if (STRIPE_TENS.has(currency) && amount % 10 !== 0) return null;
  const scale = STRIPE_SCALE[currency] ?? 1;
  if (scale < 1) return amount % (1 / scale) === 0 ? amount * scale : null;
  return amount * scale;
}

/** An amount Stripe reports (a Checkout session's amount_total) in the currency's ISO minor unit; null when it has none. */
export function fromStripeAmount(amount: number, currency: string): number | null {
  if (!Number.isSafeInteger(amount) || amount < 0) return null;
  const scale = STRIPE_SCALE[currency] ?? 1;
  if (scale > 1) return amount % scale === 0 ? amount / scale : null;
  return amount / scale;
}

/** The amount in the currency's major unit for a reader: `USD 1,234.05`, `JPY 1,235`. Integers only. */
export function formatMoney(amount: number, currency: string): string {
  if (!Number.isSafeInteger(amount)) throw new Error(`an amount is a safe integer, not ${amount}`);
  const digits = minorUnits(currency);
  const sign = amount < 0 ? '-' : '';
  const text = String(Math.abs(amount)).padStart(digits + 1, '0');
  const major = text.slice(0, text.length - digits).replace(/\B(?=(\d{3})+$)/g, ',');
  const minor = digits === 0 ? '' : `.${text.slice(text.length - digits)}`;
  return `${currency} ${sign}${major}${minor}`;
}

/** The largest unit amount accepted: all 100 lines at the largest quantity still total a safe integer. */
export const MAX_UNIT_AMOUNT = 1_000_000_000;
export const MAX_QUANTITY = 10_000;
export const MAX_ITEMS = 100;
/** 10,000 basis points: 100 %. */
export const MAX_TAX_RATE_BPS = 10_000;

export interface LineInput {
  quantity: number;
  unit_amount: number;
}

export interface Totals {
  /** Each line's `amount`, in the items' order. */
  amounts: number[];
  subtotal: number;
  discount: number;
  tax: number;
  total: number;
}

function safe(value: bigint, what: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`${what} is beyond a safe integer`);
  return n;
}

function wholeAtLeastZero(value: number, what: string): bigint {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${what} must be a whole number >= 0`);
  return BigInt(value);
}

/** A line's `amount`: quantity × unit_amount. */
function lineAmount(line: LineInput): number {
  return safe(
    wholeAtLeastZero(line.quantity, 'quantity') * wholeAtLeastZero(line.unit_amount, 'unit_amount'),
    'amount',
  );
}

/** When the discount is larger than the subtotal (the caller answers 400 naming `discount`). */
export class DiscountTooLarge extends Error {}

/**
 * An invoice's amounts (docs/api.md §29): amount = quantity × unit_amount; subtotal = Σ amount;
 * tax = round half up of (subtotal − discount) × tax_rate_bps / 10,000; total = subtotal −
 * discount + tax. Never negative: a discount above the subtotal throws DiscountTooLarge.
 */
export function computeTotals(items: readonly LineInput[], discount: number, taxRateBps: number): Totals {
  const amounts = items.map(lineAmount);
  const subtotal = amounts.reduce((sum, a) => sum + BigInt(a), 0n);
  const off = wholeAtLeastZero(discount, 'discount');
  const rate = wholeAtLeastZero(taxRateBps, 'tax_rate_bps');
  if (rate > BigInt(MAX_TAX_RATE_BPS)) throw new RangeError('tax_rate_bps must be at most 10000');
  if (off > subtotal) throw new DiscountTooLarge('discount must be at most the subtotal');
  const taxed = subtotal - off;
  // Half up, in integers: adding half the divisor before the floor division rounds .5 up.
  const tax = (taxed * rate + 5_000n) / 10_000n;
  return {
    amounts,
    subtotal: safe(subtotal, 'subtotal'),
    discount: safe(off, 'discount'),
    tax: safe(tax, 'tax'),
    total: safe(taxed + tax, 'total'),
  };
}

/** What is still owed: total − amount_paid (never below 0). */
export function amountDue(total: number, amountPaid: number): number {
  const due = wholeAtLeastZero(total, 'total') - wholeAtLeastZero(amountPaid, 'amount_paid');
  return safe(due < 0n ? 0n : due, 'amount_due');
}

/** Why a typed amount was not read: not a number as written, or more decimals than the unit has. */
export type ParseRefusal = 'format' | 'precision';

/**
 * A decimal typed by a person ("1,234.5", "250", "0.99") as an integer count of 10^-digits,
 * read from the text itself (no floating point): `parseDecimal("12.5", 2)` is 1250. Thousands
 * separators are commas between groups of three; a leading sign is refused (amounts are >= 0).
 */
export function parseDecimal(text: string, digits: number): { amount: number } | { refused: ParseRefusal } {
  const match = /^(\d{1,3}(?:,\d{3})+|\d+)?(?:\.(\d*))?$/.exec(text.trim());
  if (match === null || (match[1] === undefined && (match[2] ?? '') === '')) return { refused: 'format' };
  const whole = (match[1] ?? '0').replace(/,/g, '');
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > digits) return { refused: 'precision' };
  const amount = Number(BigInt(whole) * 10n ** BigInt(digits) + BigInt(fraction.padEnd(digits, '0') || '0'));
  return Number.isSafeInteger(amount) ? { amount } : { refused: 'format' };
}

/** An amount typed in the currency's major unit ("25.00" USD) as its integer minor units (2500). */
export function parseMoney(text: string, currency: string): { amount: number } | { refused: ParseRefusal } {
  return parseDecimal(text, minorUnits(currency));
}

/** An integer amount as a person would type it back: 2500 USD is "25.00" (no code, no separators). */
export function moneyInput(amount: number, currency: string): string {
  return formatMoney(amount, currency)
    .slice(currency.length + 1)
    .replace(/,/g, '');
}
