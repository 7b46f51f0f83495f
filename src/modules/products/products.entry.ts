// The products feature's entry point for other features' writes: an invoice copies the name and
// price of the products it names (docs/api.md §29), read in the invoice's own transaction.
import type { Executor } from '../../db/executor.ts';
import { findProducts } from './products.repository.ts';

export async function productsByIds(
  trx: Executor,
  accountId: string,
  ids: string[],
): Promise<Map<string, { name: string; unit_amount: number }>> {
  const rows = await findProducts(trx, accountId, ids);
  return new Map(rows.map((p) => [p.id, { name: p.name, unit_amount: Number(p.unit_amount) }]));
}
