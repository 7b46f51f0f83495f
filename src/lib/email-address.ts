// One definition of a valid email address for the API schemas and the services.
// The same pattern as ajv-formats' "email" format, so both layers agree.
const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;

export const MAX_EMAIL_LENGTH = 254;

export const isEmail = (value: string): boolean => value.length <= MAX_EMAIL_LENGTH && EMAIL.test(value);

/** Emails are unique per account compared case-insensitively. */
export const normalizeEmail = (value: string): string => value.trim().toLowerCase();
