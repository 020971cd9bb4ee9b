import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { unexpectedErrorResponse } from './error-table.ts';
import type { RouteDefinition } from './routing.ts';
import { ErrorBody, MessageBody, StatusErrorBody, TooManyAttemptsBody, ValidationErrorBody } from './schemas.ts';

type JsonObject = Record<string, unknown>;

/** A TypeBox schema as plain JSON: its symbol-keyed metadata is dropped. */
function plain(schema: TSchema): JsonObject {
  return JSON.parse(JSON.stringify(schema)) as JsonObject;
}

function parameters(route: RouteDefinition): JsonObject[] {
  const list: JsonObject[] = [];
  for (const [location, schema] of [['path', route.params], ['query', route.query]] as const) {
    if (!schema) continue;
    const object = plain(schema) as { properties?: Record<string, JsonObject>; required?: string[] };
    for (const [name, property] of Object.entries(object.properties ?? {})) {
      const { description, ...rest } = property;
      list.push({
        name,
        in: location,
        required: location === 'path' || (object.required ?? []).includes(name),
        ...(description ? { description } : {}),
        schema: rest,
      });
    }
  }
  return list;
}

function errorSchemaFor(route: RouteDefinition): TObject {
  if (route.errorStyle === 'error') return ErrorBody;
  if (route.errorStyle === 'status') return StatusErrorBody;
  return MessageBody;
}

/** A 500 is the family's body with the route's failure text, plus the request id the details are logged under. */
function serverErrorFor(route: RouteDefinition): JsonObject {
  const family = errorSchemaFor(route);
  const example = unexpectedErrorResponse(route.errorStyle ?? 'message', '3f2c9a6e-4b1d-4e8a-9c57-2d0f1b6a7e91', route.failureText).body;
  const schema = Type.Object({ ...family.properties, request_id: Type.String() }, { title: `${family.title ?? 'Error'}WithRequestId`, examples: [example] });
  return {
    description: route.failureText
      ? `"${route.failureText}": an unexpected failure (details are in the server log, under the request id)`
      : 'Unexpected error (details are in the server log, under the request id)',
    ...json(schema),
  };
}

function json(schema: TSchema | undefined, contentType = 'application/json'): JsonObject | undefined {
  return schema ? { content: { [contentType]: { schema: plain(schema) } } } : undefined;
}

function operationId(route: RouteDefinition): string {
  const words = route.path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return [route.method.toLowerCase(), ...words].map((word, index) => (index === 0 ? word : word[0]?.toUpperCase() + word.slice(1))).join('');
}

const bodyContentTypes = { json: 'application/json', form: 'application/x-www-form-urlencoded', multipart: 'multipart/form-data' };

function requestBody(route: RouteDefinition): JsonObject | undefined {
  const kind = route.bodyKind ?? 'json';
  // The bytes are the payload as its sender signed it; no schema describes them.
  if (kind === 'raw') return { required: true, content: { 'application/octet-stream': {} } };
  if (!route.body) return undefined;
  return { required: true, ...json(route.body, bodyContentTypes[typeof kind === 'string' ? kind : kind.kind]) };
}

function operation(route: RouteDefinition): JsonObject {
  const responses: Record<string, JsonObject> = {};
  for (const [status, response] of Object.entries(route.responses)) {
    responses[status] = { description: response.description, ...json(response.schema, response.contentType) };
  }
  const kind = route.bodyKind ?? 'json';
  if (route.auth === 'bearer') responses['401'] ??= { description: 'Missing, unknown, revoked or expired credential', ...json(MessageBody) };
  if (typeof route.auth === 'object') responses['403'] ??= { description: `Missing or invalid ${route.auth.scheme} signature`, ...json(errorSchemaFor(route)) };
  if (route.body || route.query || route.params) responses['422'] ??= { description: 'Validation failed', ...json(ValidationErrorBody) };
  if (route.body && kind === 'json') responses['400'] ??= { description: 'Malformed JSON body', ...json(errorSchemaFor(route)) };
  if (kind === 'form') responses['400'] ??= { description: 'Not a form body', ...json(errorSchemaFor(route)) };
  if ((route.body && kind === 'json') || kind === 'form' || kind === 'raw') {
    responses['413'] ??= { description: 'Body too large', ...json(errorSchemaFor(route)) };
  }
  responses['429'] ??= { description: 'Rate limit reached', ...json(TooManyAttemptsBody) };
  responses['500'] ??= serverErrorFor(route);

  const body = requestBody(route);
  return {
    operationId: operationId(route),
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    security: route.auth === 'bearer' ? [{ bearerAuth: [] }] : [],
    parameters: parameters(route),
    ...(body ? { requestBody: body } : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document of the given routes, generated from the schemas their validators use. */
export function buildOpenApiDocument(routes: RouteDefinition[], options: { serverUrl: string; version: string }): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, JsonObject>)[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Parley API',
      version: options.version,
      description:
        'Self-hostable AI voice assistants. Authenticated routes take `Authorization: Bearer <token>` with an API key or a ' +
        'session token. Validation errors are 422 with `{"message", "errors": {"field": ["..."]}}`; unexpected errors are ' +
        `500 ${JSON.stringify(unexpectedErrorResponse('message', '…').body)} with the details in the server log under that request id ` +
        '(also the X-Request-Id header).',
    },
    servers: [{ url: options.serverUrl }],
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key (POST /user/api-keys) or a session token (POST /auth/login).' },
      },
    },
    paths,
  };
}
