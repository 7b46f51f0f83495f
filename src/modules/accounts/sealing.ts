// Secrets kept at rest sealed (AES-256-GCM under the deployment's totp_secret_key, made by the team
// migration): a person's TOTP secret (docs/api.md §27) and a studio's Stripe keys (§29). Each is
// bound to its owner's id (the GCM additional data): a sealed value copied to another row opens nothing.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Deps } from '../../deps.ts';
import type { Executor } from '../../db/executor.ts';
import { instanceSecret } from './users.repository.ts';

/** A per-deployment secret made by a migration (instance_secrets), as raw bytes. */
export const deploymentKey = async (db: Executor, name: string): Promise<Buffer> =>
  Buffer.from(await instanceSecret(db, name), 'base64url');

/** The deployment's sealing key, read once per database handle. */
const sealingKeys = new WeakMap<object, Promise<Buffer>>();

export function sealingKey(db: Deps['db']): Promise<Buffer> {
  let key = sealingKeys.get(db.kysely);
  if (key === undefined) {
    key = instanceSecret(db.kysely, 'totp_secret_key').then((value) => Buffer.from(value, 'base64url'));
    key.catch(() => sealingKeys.delete(db.kysely));
    sealingKeys.set(db.kysely, key);
  }
  return key;
}

export function seal(key: Buffer, ownerId: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(ownerId));
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}

export function unseal(key: Buffer, ownerId: string, sealed: string | null): string | null {
  if (sealed === null || !sealed.startsWith('v1.')) return null;
  const bytes = Buffer.from(sealed.slice(3), 'base64url');
  if (bytes.length < 29) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12)).setAAD(Buffer.from(ownerId));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
