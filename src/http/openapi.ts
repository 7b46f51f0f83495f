// The OpenAPI 3.1 document is generated from the route schemas; /docs renders it with
// Swagger UI's bundled assets (no CDN).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { App } from './types.ts';
import { ErrorBody } from './schemas.ts';

export async function registerOpenApi(app: App, version: string): Promise<void> {
  app.addSchema(ErrorBody);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Lightbox API',
        version,
        description:
          'Galleries (`listings`) with their media, and clients, for photography studios. ' +
          'Authenticate with `Authorization: Bearer <API_KEY>`. Errors share one body: ' +
          '`{"error": {"code", "message", "details"?, "request_id"}}`.',
      },
      components: {
        securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An `lbx_...` API key.' } },
      },
      security: [{ apiKey: [] }],
      tags: [
        { name: 'Galleries', description: 'Property galleries (path segment `listings`).' },
        { name: 'Clients', description: "The studio's client records and their galleries." },
        { name: 'Operations', description: 'Health and the API description.' },
      ],
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });

  app.get(
    '/v1/openapi.json',
    {
      config: { auth: false },
      schema: {
        operationId: 'getOpenApi',
        summary: 'This OpenAPI 3.1 document',
        tags: ['Operations'],
        security: [],
        response: { 200: { type: 'object', additionalProperties: true, description: 'OpenAPI 3.1 document.' } },
      },
    },
    (_request, reply) => reply.type('application/json').send(JSON.stringify(app.swagger())),
  );
}
