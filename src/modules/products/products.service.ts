// Products (docs/api.md §29): the studio's catalogue. Every change goes through the unit of work
// with its event (product.created, product.updated, product.deleted).
import type { Deps } from '../../deps.ts';
import { notFound } from '../../errors.ts';
import type { Executor } from '../../db/executor.ts';
import { listCursors } from '../../db/keyset.ts';
import { cursorPage, pageRequest } from '../../lib/cursor-page.ts';
import { hasIdShape, newId } from '../../lib/ids.ts';
import type { Page } from '../../lib/pagination.ts';
import type { Writes } from '../../mechanisms/writes/writes.ts';
import * as repo from './products.repository.ts';
import type { ProductCreateInput, ProductListQueryType, ProductType, ProductUpdateInput } from './products.schemas.ts';

const toProduct = (row: repo.ProductRow): ProductType => ({
  id: row.id,
  name: row.name,
  description: row.description,
  unit_amount: Number(row.unit_amount),
  active: row.active === 1,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

declare module '../../mechanisms/writes/writes.ts' {
  interface Resources {
    product: ProductType;
  }
}

/** The product as its GET returns it, read in `trx`; undefined when the account has none such. */
export async function loadProduct(trx: Executor, accountId: string, id: string): Promise<ProductType | undefined> {
  const row = await repo.findProduct(trx, accountId, id);
  return row === undefined ? undefined : toProduct(row);
}

export type ProductsService = ReturnType<typeof createProductsService>;

export function createProductsService({ db, writes }: Pick<Deps, 'db'> & { writes: Writes }) {
  return {
    async create(accountId: string, input: ProductCreateInput): Promise<ProductType> {
      return writes.run(accountId, {}, async (w) => {
        const row = {
          id: newId('prd'),
          account_id: accountId,
          name: input.name,
          description: input.description ?? null,
          unit_amount: input.unit_amount,
          active: input.active === false ? 0 : 1,
          created_at: w.now,
          updated_at: w.now,
        };
        await repo.insertProduct(w.trx, row);
        const product = toProduct(row);
        w.loaded('product', product.id, product);
        w.announce('product.created', product.id);
        return product;
      });
    },

    async get(accountId: string, id: string): Promise<ProductType> {
      const product = hasIdShape('prd', id) ? await loadProduct(db.kysely, accountId, id) : undefined;
      if (product === undefined) throw notFound('Product');
      return product;
    },

    async list(accountId: string, query: ProductListQueryType): Promise<Page<ProductType>> {
      const codec = await listCursors(db);
      const scope = { list: 'products', accountId, params: {} };
      const request = pageRequest(query, codec, scope);
      const [rows, total] = await Promise.all([
        repo.listProducts(db.kysely, accountId, request),
        repo.countProducts(db.kysely, accountId),
      ]);
      return cursorPage(rows, request, total, codec, scope, (r) => ({ value: r.created_at, id: r.id }), toProduct);
    },

    async update(accountId: string, id: string, patch: ProductUpdateInput): Promise<ProductType> {
      if (!hasIdShape('prd', id)) throw notFound('Product');
      return writes.run(accountId, {}, async (w) => {
        const changes = {
          ...(patch.name === undefined ? {} : { name: patch.name }),
          ...(patch.description === undefined ? {} : { description: patch.description }),
          ...(patch.unit_amount === undefined ? {} : { unit_amount: patch.unit_amount }),
          ...(patch.active === undefined ? {} : { active: patch.active ? 1 : 0 }),
          updated_at: w.now,
        };
        if (!(await repo.updateProduct(w.trx, accountId, id, changes))) throw notFound('Product');
        w.announce('product.updated', id);
        const product = await w.load('product', id);
        if (product === undefined) throw notFound('Product');
        return product;
      });
    },

    /** Invoices keep what they copied from it (docs/api.md §29): their items name it by id only. */
    async remove(accountId: string, id: string): Promise<void> {
      if (!hasIdShape('prd', id)) throw notFound('Product');
      await writes.run(accountId, {}, async (w) => {
        if (!(await repo.deleteProduct(w.trx, accountId, id))) throw notFound('Product');
        w.announce('product.deleted', id);
      });
    },
  };
}
