import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClientCreateBody } from '../modules/clients/clients.schemas.ts';
import { ListingCreateBody } from '../modules/listings/listings.schemas.ts';
import { WebhookEndpointCreateBody } from '../modules/webhooks/webhooks.schemas.ts';
import { FormFields, maxLengthOf, minLengthOf, parseForm, schemaFieldErrors } from './form.ts';
import { ClientLinkUpdateBody } from '../modules/listings/listings.schemas.ts';

describe('form fields checked by the /v1 schemas', () => {
  it('says each refused field in words, with the limits the schema holds', () => {
    const errors = schemaFieldErrors(
      ListingCreateBody,
      {
        address: '',
        status: 'sold',
        beds: -1,
        baths: 'many',
        sqft: 10_000_001,
        mls_number: 'm'.repeat(51),
        description: 'd'.repeat(10_001),
      },
      { address: { empty: 'Enter the address' }, status: { choice: 'Choose draft, active or archived' } },
    );
    assert.deepEqual(errors, {
      address: 'Enter the address',
      status: 'Choose draft, active or archived',
      beds: 'Enter a number from 0 to 1,000',
      baths: 'Enter a number from 0 to 1,000',
      sqft: 'Enter a number from 0 to 10,000,000',
      mls_number: 'Use at most 50 characters',
      description: 'Use at most 10,000 characters',
    });
  });

  it('accepts exactly what the API accepts: the limits themselves, and null for an empty field', () => {
    const limits = {
      address: 'a'.repeat(500),
      status: 'active',
      beds: 1000,
      baths: 0,
      sqft: null,
      mls_number: 'm'.repeat(50),
      description: null,
    };
    assert.deepEqual(schemaFieldErrors(ListingCreateBody, limits), {});
  });

  it('one message per field, the most telling first; a pattern or format has its own words', () => {
    assert.deepEqual(schemaFieldErrors(ListingCreateBody, { address: `${'a'.repeat(501)}\n` }), {
      address: 'Use at most 500 characters',
    });
    assert.deepEqual(
      schemaFieldErrors(ListingCreateBody, { address: 'a\nb' }, { address: { invalid: 'Use one line' } }),
      {
        address: 'Use one line',
      },
    );
    assert.deepEqual(schemaFieldErrors(ClientCreateBody, { name: 'A\u0000', email: 'not-an-email' }), {
      name: 'Remove the control characters',
      email: 'Enter an email address like name@example.com',
    });
    assert.deepEqual(schemaFieldErrors(ClientCreateBody, {}, { name: { empty: 'Enter the name' } }), {
      name: 'Enter the name',
      email: 'Fill this in',
    });
    const url = (value: unknown) => (String(value).startsWith('http') ? 'spaces' : 'scheme');
    assert.deepEqual(schemaFieldErrors(WebhookEndpointCreateBody, { url: 'ftp://x' }, { url: { invalid: url } }), {
      url: 'scheme',
    });
    assert.deepEqual(schemaFieldErrors(WebhookEndpointCreateBody, { url: 'https://a b' }, { url: { invalid: url } }), {
      url: 'spaces',
    });
  });

  it("reads a field's limits from its schema, a nullable or optional one included", () => {
    assert.equal(maxLengthOf(ListingCreateBody, 'address'), 500);
    assert.equal(maxLengthOf(ListingCreateBody, 'description'), 10_000);
    assert.deepEqual(
      [minLengthOf(ClientLinkUpdateBody, 'password'), maxLengthOf(ClientLinkUpdateBody, 'password')],
      [8, 200],
    );
    assert.throws(() => maxLengthOf(ListingCreateBody, 'beds'), /no maxLength/);
  });

  it('a repeated name gives its first value, and every value in order to all()', () => {
    const form = new FormFields(parseForm('media_id=med_a&_csrf=t&media_id=med_b&media_id=med_a&action=hide'));
    assert.equal(form.get('media_id'), 'med_a');
    assert.deepEqual(form.all('media_id'), ['med_a', 'med_b', 'med_a']);
    assert.deepEqual(form.all('action'), ['hide']);
    assert.deepEqual(form.all('missing'), []);
    // A body not from the parser (built by hand) still answers with its one value.
    assert.deepEqual(new FormFields({ media_id: 'med_c' }).all('media_id'), ['med_c']);
  });
});
