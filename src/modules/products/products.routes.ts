import type { App } from '../../http/types.ts';
import { Answer, errorResponses, NoContent, READ_ERRORS, WRITE_ERRORS } from '../../http/schemas.ts';
import {
  Product,
  ProductCreateBody,
  ProductList,
  ProductListQuery,
  ProductParams,
  ProductUpdateBody,
} from './products.schemas.ts';
import type { ProductsService } from './products.service.ts';

const tags = ['Products'];

export function registerProductsRoutes(app: App, { products }: { products: ProductsService }): void {
  app.get(
    '/products',
    {
      schema: {
        operationId: 'listProducts',
        summary: "List the studio's products, newest first",
        tags,
        querystring: ProductListQuery,
        response: { 200: Answer(ProductList, 'A page of products, newest first.'), ...errorResponses(400, 401) },
      },
    },
    (request) => products.list(request.auth.accountId, request.query),
  );

  app.post(
    '/products',
    {
      schema: {
        operationId: 'createProduct',
        summary: 'Create a product',
        tags,
        body: ProductCreateBody,
        response: {
          201: Answer(Product, 'Created: the new product.'),
          ...errorResponses(400, 401, 403, 409, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const product = await products.create(request.auth.accountId, request.body);
      return reply.code(201).header('location', `/v1/products/${product.id}`).send(product);
    },
  );

  app.get(
    '/products/:id',
    {
      schema: {
        operationId: 'getProduct',
        summary: 'Get a product',
        tags,
        params: ProductParams,
        response: { 200: Answer(Product, 'The product.'), ...errorResponses(...READ_ERRORS) },
      },
    },
    (request) => products.get(request.auth.accountId, request.params.id),
  );

  app.patch(
    '/products/:id',
    {
      schema: {
        operationId: 'updateProduct',
        summary: 'Change some fields of a product',
        description: 'Invoices already made keep the name and price they copied.',
        tags,
        params: ProductParams,
        body: ProductUpdateBody,
        response: { 200: Answer(Product, 'The product, as changed.'), ...errorResponses(...WRITE_ERRORS) },
      },
    },
    (request) => products.update(request.auth.accountId, request.params.id, request.body),
  );

  app.delete(
    '/products/:id',
    {
      schema: {
        operationId: 'deleteProduct',
        summary: 'Delete a product; invoices keep what they copied from it',
        tags,
        params: ProductParams,
        response: {
          204: NoContent('No content: the product is deleted.'),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      await products.remove(request.auth.accountId, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
