// What a starting process says about itself, in one log line: the version, the database (its
// dialect and where, never a user or password), the media storage, the mailer (the SMTP host, or
// the outbox folder), the public URL and the dashboard's. Used by `lightbox serve` and `lightbox worker`.
import { readFileSync } from 'node:fs';
import type { Config } from './config.ts';
import { rootLinks } from './http/root.ts';
import { outboxPath } from './mail/index.ts';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/** `scheme://host:port/path` of a URL, without its user, password, query or fragment. */
function withoutCredentials(raw: string, keepPath: boolean): string {
  const url = new URL(raw);
  return `${url.protocol}//${url.host}${keepPath ? url.pathname.replace(/\/$/, '') : ''}`;
}

function describeDatabase(database: Config['database']): string {
  return database.kind === 'sqlite'
    ? `sqlite ${database.file}`
    : `postgresql ${withoutCredentials(database.url, true)}`;
}

function describeStorage(storage: Config['media']['storage']): string {
  if (storage.kind === 'local') return `local ${storage.dir}`;
  const where = `s3://${storage.bucket}${storage.prefix === '' ? '' : `/${storage.prefix}`}`;
  return storage.endpoint === undefined ? where : `${where} at ${withoutCredentials(storage.endpoint, false)}`;
}

function describeMailer(config: Config): string {
  const smtp = config.mail.smtpUrl;
  return smtp === undefined
    ? `outbox ${outboxPath(config)} (no SMTP_URL: emails are written there, not sent)`
    : withoutCredentials(smtp, false);
}

/** The fields and message of the start-up line; `role` says which process it is. */
export function startupLine(config: Config, role: 'serve' | 'worker'): { fields: Record<string, string>; msg: string } {
  const { dashboard, docs } = rootLinks(config.publicUrl);
  const fields: Record<string, string> = {
    version,
    database: describeDatabase(config.database),
    storage: describeStorage(config.media.storage),
    mailer: describeMailer(config),
    public_url: config.publicUrl,
    dashboard,
    docs,
  };
  const where = `public URL ${config.publicUrl}, dashboard ${dashboard}, API reference ${docs}`;
  const what = `database ${fields.database}; storage ${fields.storage}; mail ${fields.mailer}`;
  const head = role === 'serve' ? 'ready' : 'worker ready: running the background jobs';
  const msg = `${head}; Lightbox ${version}; ${where}; ${what}`;
  return { fields, msg };
}
