// docs/api.md §29's arithmetic, property-tested: any items, discount and tax rate give total =
// subtotal − discount + tax, never negative, with tax rounded half up in integers; and amounts
// are written in the currency's minor unit without floating point.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  amountDue,
  computeTotals,
  CURRENCIES,
  DiscountTooLarge,
  formatMoney,
  MAX_ITEMS,
  MAX_QUANTITY,
  MAX_TAX_RATE_BPS,
  MAX_UNIT_AMOUNT,
  minorUnits,
  toStripeAmount,
  fromStripeAmount,
  moneyInput,
  parseDecimal,
  parseMoney,
} from './money.ts';

const runs = Number(process.env.FC_RUNS ?? 500);
const line = fc.record({
  quantity: fc.integer({ min: 1, max: MAX_QUANTITY }),
  unit_amount: fc.oneof(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: MAX_UNIT_AMOUNT })),
});
const items = fc.array(line, { minLength: 1, maxLength: MAX_ITEMS });
const rate = fc.oneof(
  fc.constantFrom(0, 1, 5_000, 825, MAX_TAX_RATE_BPS),
  fc.integer({ min: 0, max: MAX_TAX_RATE_BPS }),
);

/** Half up, by another road: the exact quotient's digits, written out in decimal. */
function halfUpByDigits(base: bigint, bps: bigint): bigint {
  const scaled = base * bps; // tax × 10,000
  const whole = scaled / 10_000n;
  const rest = scaled % 10_000n;
  return rest >= 5_000n ? whole + 1n : whole;
}

describe('computeTotals', () => {
  test('total = subtotal − discount + tax, never negative, tax rounded half up', () => {
    fc.assert(
      fc.property(items, rate, fc.double({ min: 0, max: 1, noNaN: true }), (lines, bps, share) => {
        const subtotal = lines.reduce((s, l) => s + BigInt(l.quantity) * BigInt(l.unit_amount), 0n);
        // Any discount from 0 to the whole subtotal.
        const discount = Number((subtotal * BigInt(Math.floor(share * 1_000_000))) / 1_000_000n);
        const t = computeTotals(lines, discount, bps);
        for (const n of [t.subtotal, t.discount, t.tax, t.total, ...t.amounts]) {
          assert.ok(Number.isSafeInteger(n) && n >= 0, `${n} is a whole amount >= 0`);
        }
        assert.deepEqual(
          t.amounts,
          lines.map((l) => l.quantity * l.unit_amount),
        );
        assert.equal(BigInt(t.subtotal), subtotal);
        assert.equal(t.total, t.subtotal - t.discount + t.tax);
        assert.equal(BigInt(t.tax), halfUpByDigits(subtotal - BigInt(discount), BigInt(bps)));
        assert.ok(t.tax <= t.subtotal - t.discount, 'at most 100 % tax');
      }),
      { numRuns: runs },
    );
  });

  test('a discount above the subtotal is refused, never a negative total', () => {
    fc.assert(
      fc.property(items, rate, fc.integer({ min: 1, max: 1_000_000 }), (lines, bps, extra) => {
        const subtotal = lines.reduce((s, l) => s + l.quantity * l.unit_amount, 0);
        assert.throws(() => computeTotals(lines, subtotal + extra, bps), DiscountTooLarge);
      }),
      { numRuns: runs },
    );
  });

  test('rounding at the half: 0.5 goes up, 0.4999 goes down', () => {
    // 1 × 10 at 5 % is 0.5 of a cent: 1. 1 × 9,999 at 0.01 % is 0.9999: 1. 1 × 4,999 at 1 bp: 0.4999: 0.
    assert.equal(computeTotals([{ quantity: 1, unit_amount: 10 }], 0, 500).tax, 1);
    assert.equal(computeTotals([{ quantity: 1, unit_amount: 9_999 }], 0, 1).tax, 1);
    assert.equal(computeTotals([{ quantity: 1, unit_amount: 4_999 }], 0, 1).tax, 0);
    assert.equal(computeTotals([{ quantity: 1, unit_amount: 5_000 }], 0, 1).tax, 1);
    // 19.99 × 3 − 5.00 at 8.25 %: (5997 − 500) × 0.0825 = 453.5025 → 454; total 5951.
    const t = computeTotals([{ quantity: 3, unit_amount: 1_999 }], 500, 825);
    assert.deepEqual(t, { amounts: [5_997], subtotal: 5_997, discount: 500, tax: 454, total: 5_951 });
  });

  test('fractions and unsafe integers are refused', () => {
    assert.throws(() => computeTotals([{ quantity: 1, unit_amount: 1.5 }], 0, 0), RangeError);
    assert.throws(() => computeTotals([{ quantity: 1, unit_amount: 100 }], 0.5, 0), RangeError);
    assert.throws(() => computeTotals([{ quantity: 1, unit_amount: 100 }], 0, 10_001), RangeError);
    assert.throws(() => computeTotals([{ quantity: 1, unit_amount: Number.MAX_SAFE_INTEGER + 1 }], 0, 0), RangeError);
  });

  test('the largest invoice the contract allows stays a safe integer', () => {
    const lines = Array.from({ length: MAX_ITEMS }, () => ({ quantity: MAX_QUANTITY, unit_amount: MAX_UNIT_AMOUNT }));
    const t = computeTotals(lines, 0, MAX_TAX_RATE_BPS);
    assert.equal(t.total, 2 * MAX_ITEMS * MAX_QUANTITY * MAX_UNIT_AMOUNT);
    assert.ok(Number.isSafeInteger(t.total));
  });
});

describe('amountDue', () => {
  test('total − amount_paid, never below zero', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), (total, paid) => {
        const due = amountDue(total, paid);
        assert.equal(due, Math.max(0, total - paid));
      }),
      { numRuns: runs },
    );
  });
});

describe('Stripe amounts (docs.stripe.com/currencies, special cases)', () => {
  test('ISK is sent in hundredths, MGA in whole ariary, three-decimal currencies in tens; the rest as they are', () => {
    assert.equal(toStripeAmount(12_345, 'USD'), 12_345);
    assert.equal(toStripeAmount(500, 'JPY'), 500);
    assert.equal(toStripeAmount(4_990, 'ISK'), 499_000);
    assert.equal(toStripeAmount(150_000, 'MGA'), 1_500);
    assert.equal(toStripeAmount(150_050, 'MGA'), null, 'Stripe has no fraction of an ariary');
    assert.equal(toStripeAmount(5_120, 'KWD'), 5_120);
    assert.equal(toStripeAmount(5_124, 'KWD'), null, 'Stripe takes KWD in tens of fils');
    assert.equal(fromStripeAmount(499_000, 'ISK'), 4_990);
    assert.equal(fromStripeAmount(499_050, 'ISK'), null);
    assert.equal(fromStripeAmount(1_500, 'MGA'), 150_000);
    assert.equal(fromStripeAmount(12_345, 'USD'), 12_345);
    assert.throws(() => toStripeAmount(1.5, 'USD'));
  });

  test('whatever Stripe is sent, it reports back as the same amount', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e12 }), fc.constantFrom(...CURRENCIES), (n, cur) => {
        const sent = toStripeAmount(n, cur);
        if (sent === null) return;
        assert.ok(Number.isSafeInteger(sent));
        assert.equal(fromStripeAmount(sent, cur), n);
      }),
      { numRuns: runs },
    );
  });
});

describe('formatMoney', () => {
  test('the minor unit by ISO 4217: USD 2, JPY 0, KWD 3', () => {
    assert.equal(minorUnits('USD'), 2);
    assert.equal(minorUnits('JPY'), 0);
    assert.equal(minorUnits('KWD'), 3);
    assert.equal(formatMoney(123_456, 'USD'), 'USD 1,234.56');
    assert.equal(formatMoney(5, 'USD'), 'USD 0.05');
    assert.equal(formatMoney(0, 'EUR'), 'EUR 0.00');
    assert.equal(formatMoney(1_234_567, 'JPY'), 'JPY 1,234,567');
    assert.equal(formatMoney(1_005, 'KWD'), 'KWD 1.005');
    assert.equal(formatMoney(-250, 'GBP'), 'GBP -2.50');
    assert.throws(() => formatMoney(1.5, 'USD'));
    assert.throws(() => minorUnits('XXX'));
  });

  test('the digits written are the integer’s own: reading them back gives the amount', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.constantFrom(...CURRENCIES), (n, cur) => {
        const text = formatMoney(n, cur);
        assert.ok(text.startsWith(`${cur} `));
        const digits = text.slice(4).replaceAll(',', '').replace('.', '');
        assert.equal(BigInt(digits), BigInt(n));
        const decimals = text.includes('.') ? text.length - text.indexOf('.') - 1 : 0;
        assert.equal(decimals, minorUnits(cur));
      }),
      { numRuns: runs },
    );
  });
});

describe('amounts typed by a person (the dashboard forms)', () => {
  test('read from the text, never through a float', () => {
    assert.deepEqual(parseMoney('25', 'USD'), { amount: 2500 });
    assert.deepEqual(parseMoney(' 1,234.5 ', 'USD'), { amount: 123450 });
    assert.deepEqual(parseMoney('0.10', 'USD'), { amount: 10 });
    assert.deepEqual(parseMoney('.5', 'USD'), { amount: 50 });
    assert.deepEqual(parseMoney('2,500', 'JPY'), { amount: 2500 });
    assert.deepEqual(parseMoney('1.005', 'KWD'), { amount: 1005 });
    // 0.1 + 0.2 style drift cannot happen: 19.99 is 1999 exactly.
    assert.deepEqual(parseMoney('19.99', 'EUR'), { amount: 1999 });
    assert.deepEqual(parseMoney('12.50', 'JPY'), { refused: 'precision' });
    assert.deepEqual(parseMoney('12.500', 'JPY'), { refused: 'precision' });
    assert.deepEqual(parseMoney('12.000', 'JPY'), { amount: 12 });
    assert.deepEqual(parseMoney('1.999', 'USD'), { refused: 'precision' });
    for (const bad of ['', '.', '-5', '1e3', '12,34', '1,2345', 'USD 5', '5 USD', '1.2.3', 'NaN', '9'.repeat(30)]) {
      assert.deepEqual(parseMoney(bad, 'USD'), { refused: 'format' }, bad);
    }
    assert.deepEqual(parseDecimal('8.25', 2), { amount: 825 });
  });

  test('what moneyInput writes, parseMoney reads back', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_UNIT_AMOUNT }), fc.constantFrom(...CURRENCIES), (amount, currency) => {
        assert.deepEqual(parseMoney(moneyInput(amount, currency), currency), { amount });
      }),
      { numRuns: runs },
    );
  });
});
