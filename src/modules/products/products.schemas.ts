// docs/api.md §29: the studio's catalogue of products (photos, video, drone, floor plan...).
import { Type, type Static } from '@sinclair/typebox';
import {
  Id,
  IdParam,
  Int64,
  ListOf,
  NullableString,
  NullableText,
  PageQuery,
  TextInput,
  Timestamp,
} from '../../http/schemas.ts';
import { MAX_UNIT_AMOUNT } from '../money/money.ts';

export const UnitAmount = (description: string) => Int64({ minimum: 0, maximum: MAX_UNIT_AMOUNT, description });

const fields = {
  name: TextInput({ minLength: 1, maxLength: 200, description: 'What the studio sells (trimmed).' }),
  description: NullableString({ maxLength: 2_000 }),
  unit_amount: UnitAmount("The price of one, an integer in the account currency's minor unit (cents: 2500 is 25.00)."),
  active: Type.Boolean({
    description: 'false hides it from new invoices in the dashboard; invoices may still name it.',
  }),
};

export const ProductCreateBody = Type.Object(
  {
    name: fields.name,
    description: Type.Optional(fields.description),
    unit_amount: fields.unit_amount,
    active: Type.Optional(fields.active),
  },
  { additionalProperties: false, title: 'ProductCreate' },
);
export type ProductCreateInput = Static<typeof ProductCreateBody>;

export const ProductUpdateBody = Type.Partial(ProductCreateBody, {
  additionalProperties: false,
  minProperties: 1,
  title: 'ProductUpdate',
});
export type ProductUpdateInput = Static<typeof ProductUpdateBody>;

export const Product = Type.Object(
  {
    id: Id('prd', '`prd_` followed by an opaque string.'),
    name: Type.String({ maxLength: 200 }),
    description: NullableText(2_000),
    unit_amount: Int64({ minimum: 0, maximum: MAX_UNIT_AMOUNT }),
    active: Type.Boolean(),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'Product', additionalProperties: false },
);
export type ProductType = Static<typeof Product>;

export const ProductList = ListOf(Product, 'ProductList');
export const ProductListQuery = Type.Object({ ...PageQuery });
export type ProductListQueryType = Static<typeof ProductListQuery>;
export const ProductParams = Type.Object({ id: IdParam('Product id (`prd_...`).') });
