// Every query a repository builds on an account-owned table is scoped by the account: a read,
// update or delete of such a table (a `selectFrom`, `updateTable` or `deleteFrom` chain) must
// filter on `account_id`, or be listed below with the reason it may not. An unscoped lookup
// (another account's row found by its id alone) was the bug of two fixes in a row; this check
// reads the repositories' source, so it catches one before any test has to stumble on it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * Repository functions whose queries may leave account_id out, by reason. Anything else unscoped
 * fails the check: scope it, or add it here under a reason that holds.
 */
const REASONS: Record<string, string[]> = {
  'a credential names the account (the caller has no account yet)': [
    'findApiKeyByHash',
    'touchApiKey',
    'byTokenQuery',
    'findSession',
    'touchSession',
    'setOneTime',
    'takeOneTime',
    'deleteSession',
    'findLiveReset',
    'consumeReset',
    // docs/api.md §27: the email typed at sign-in, an invitation link's token.
    'findUserByEmail',
    'findLiveInvitation',
    'consumeInvitation',
  ],
  "a person found by their session's, challenge's or link's own row, which names their account": [
    'findUser',
    'updatePassword',
    'deleteSessionsOfUser',
    'deleteResetsOfUser',
    'setPendingSecret',
    'enableTotp',
    'disableTotp',
    'useStep',
  ],
  'the operator names a row by id on the command line (lightbox keys revoke); the account is read from it': [
    'findApiKeyById',
  ],
  'upkeep across every account (expiry, pruning, the doctor)': [
    'deleteDeadSessions',
    'deleteExpiredResets',
    'deleteExpiredInvitations',
    'deleteExpired',
    'deleteEventsBefore',
    'storedCounts',
    'rewriteCounts',
    'wrongMediaCounts',
    'rewriteMediaCounts',
    'mediaKeysPage',
    'mediaKeysStill',
    'knownKeys',
    'stalledPhotosPage',
    'photosForRemake',
    'photosToAnalyse',
  ],
  'a job or the delivery runner acts on the row its queue entry names (the row carries its account)': [
    'findForDelivery',
    'markFinal',
    'markSent',
    'recordAttempt',
    'findMediaById',
    'findPhotoForVariants',
    'findPhotoForAnalysis',
    'largeVariantKey',
    'recordAnalysis',
    'failAnalysis',
    'failVariants',
    'setVariantsStatus',
    'deleteVariants',
    'setCrc32',
    'variantsOfMedia',
    'eventsToFanOut',
    'clearFanOut',
    'existingEndpointIds',
    'findDelivery',
    'attemptQuery',
    'toSendQuery',
    'markPendingNow',
    'pendingDeliveryIds',
    'disableGone',
  ],
  'a tus upload found by its id in the uploads row the route already checked against the account': [
    'findUploadById',
    'readInfo',
    'writeInfo',
    'readParts',
    'writeParts',
    'deleteUpload',
    'markCompleted',
    'tryLock',
    'renewLock',
    'unlock',
    'askRelease',
  ],
  "a gallery's media positions, changed under the gallery's lock the write took with its account": [
    'closeGap',
    'movePosition',
    'setPositions',
  ],
  "an endpoint's deliveries, after the endpoint was found in the account": ['listDeliveries'],
};
const UNSCOPED = new Set(Object.values(REASONS).flat());

/** Tables whose rows belong to one account (a non-null `account_id` column), from src/db/schema.ts. */
function ownedTables(): Set<string> {
  const source = readFileSync(path.join(ROOT, 'src/db/schema.ts'), 'utf8');
  const file = ts.createSourceFile('schema.ts', source, ts.ScriptTarget.Latest, true);
  const owned = new Set<string>();
  const tableOf = new Map<string, string>();
  file.forEachChild((node) => {
    if (!ts.isInterfaceDeclaration(node)) return;
    if (node.name.text === 'Database') {
      for (const member of node.members) {
        if (ts.isPropertySignature(member) && member.type !== undefined) {
          tableOf.set(member.type.getText(file), member.name.getText(file));
        }
      }
      return;
    }
    const accountId = node.members.find((m) => ts.isPropertySignature(m) && m.name.getText(file) === 'account_id');
    if (accountId !== undefined && ts.isPropertySignature(accountId) && accountId.type?.getText(file) === 'string') {
      owned.add(node.name.text);
    }
  });
  return new Set([...tableOf].filter(([type]) => owned.has(type)).map(([, table]) => table));
}

const STARTS = new Set(['selectFrom', 'updateTable', 'deleteFrom']);
// `.where('account_id', …)`, `.where('t.account_id', …)`, `eb('account_id', …)`, `eb.ref(...)`.
const SCOPED = /\b(where|eb|ref)\(\s*'([a-z_]+\.)?account_id'/;

export interface Unscoped {
  function: string;
  table: string;
  line: number;
}

function enclosingFunction(node: ts.Node): ts.Node | undefined {
  for (let n: ts.Node | undefined = node.parent; n !== undefined; n = n.parent) {
    if (
      ts.isFunctionDeclaration(n) ||
      ts.isArrowFunction(n) ||
      ts.isFunctionExpression(n) ||
      ts.isMethodDeclaration(n)
    ) {
      return n;
    }
  }
  return undefined;
}

/** The exported function (or top-level query constant) the query is in. */
function functionName(node: ts.Node): string {
  let name = '(top level)';
  for (let n: ts.Node | undefined = node; n !== undefined; n = n.parent) {
    if (ts.isFunctionDeclaration(n) && n.name !== undefined) name = n.name.text;
    else if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name)) name = n.name.text;
  }
  return name;
}

/** The account-owned queries of one repository file that never filter on account_id. */
export function unscopedQueries(fileName: string, source: string, owned: ReadonlySet<string>): Unscoped[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: Unscoped[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      STARTS.has(node.expression.name.text) &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      const table = node.arguments[0].text.split(/\s+as\s+/)[0] ?? '';
      if (owned.has(table)) {
        // The whole chain built on it: db.selectFrom(t).where(...).select(...)...
        let chain: ts.Node = node;
        while (
          (ts.isPropertyAccessExpression(chain.parent) && chain.parent.expression === chain) ||
          (ts.isCallExpression(chain.parent) && chain.parent.expression === chain)
        ) {
          chain = chain.parent;
        }
        let text = chain.getText(file);
        // A chain kept in a variable and extended (`let q = …; q = q.where(…)`) counts its extensions.
        const holder = chain.parent;
        if (ts.isVariableDeclaration(holder) && ts.isIdentifier(holder.name)) {
          const name = holder.name.text;
          const body = enclosingFunction(holder);
          const again = new RegExp(`\\b${name}\\s*=\\s*${name}\\b[^;]*`, 'g');
          text += (body?.getText(file).match(again) ?? []).join('\n');
        }
        if (!SCOPED.test(text)) {
          found.push({
            function: functionName(node),
            table,
            line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1,
          });
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function repositoryFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.repository.ts')) out.push(full);
    }
  };
  walk(path.join(ROOT, 'src'));
  return out;
}

test('the check finds a deliberately unscoped lookup, and passes its scoped twin', () => {
  const owned = new Set(['events', 'client_links']);
  const unscoped = `
    export async function findEventById(db: Executor, id: string) {
      return db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
    }
    const linkOfQuery = prepared((db, p: { listingId: string }) =>
      db.selectFrom('client_links').select(COLUMNS).where('listing_id', '=', p.listingId),
    );
    export async function listEvents(db: Executor, type: string | undefined) {
      let q = db.selectFrom('events').selectAll();
      if (type !== undefined) q = q.where('type', '=', type);
      return q.execute();
    }`;
  assert.deepEqual(
    unscopedQueries('x.repository.ts', unscoped, owned).map((u) => `${u.function}:${u.table}`),
    ['findEventById:events', 'linkOfQuery:client_links', 'listEvents:events'],
  );
  const scoped = `
    export async function findEvent(db: Executor, accountId: string, id: string) {
      return db.selectFrom('events').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
    }
    export async function listEvents(db: Executor, accountId: string, type: string | undefined) {
      let q = db.selectFrom('events').selectAll();
      q = q.where('events.account_id', '=', accountId);
      return q.execute();
    }`;
  assert.deepEqual(unscopedQueries('x.repository.ts', scoped, owned), []);
});

test('every repository query on an account-owned table filters on account_id (or is listed with its reason)', () => {
  const owned = ownedTables();
  for (const table of ['listings', 'clients', 'media', 'events', 'gallery_links']) assert.ok(owned.has(table), table);
  const problems: string[] = [];
  const allowedSeen = new Set<string>();
  for (const full of repositoryFiles()) {
    for (const u of unscopedQueries(full, readFileSync(full, 'utf8'), owned)) {
      if (UNSCOPED.has(u.function)) allowedSeen.add(u.function);
      else
        problems.push(
          `${path.relative(ROOT, full)}:${u.line} ${u.function} reads or changes ${u.table} without account_id`,
        );
    }
  }
  assert.deepEqual(problems, []);
  // A reason for a function that is scoped now (or gone) is stale: drop it from the list.
  assert.deepEqual(
    [...UNSCOPED].filter((name) => !allowedSeen.has(name)),
    [],
  );
});
