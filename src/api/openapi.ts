import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import type { ErrorCode } from '../lib/errors.ts';
import { documentedErrorResponse, familySchema, unexpectedErrorResponse } from './error-table.ts';
import { asAccepted, JSON_WITHOUT_NUL, jsonWithoutNul } from './openapi-requests.ts';
import type { RouteDefinition } from './routing.ts';

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
        schema: asAccepted(rest),
      });
    }
  }
  return list;
}

/** A 500 is the family's body with the route's failure text, plus the request id the details are logged under. */
function serverErrorFor(route: RouteDefinition): JsonObject {
  const family = familySchema(route.errorStyle ?? 'message') as TObject;
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
  // A GET reads no body, whatever its route declares.
  if (route.method === 'GET') return undefined;
  // The bytes are the payload as its sender signed it; no schema describes them.
  if (kind === 'raw') return { required: true, content: { 'application/octet-stream': {} } };
  if (typeof kind === 'object' && kind.kind === 'stream') {
    return { required: true, content: Object.fromEntries(kind.contentTypes.map((type) => [type, { schema: { type: 'string' } }])) };
  }
  // A carrier's form, signed whole: read (as a form) even where no field of it is used.
  if (!route.body) return kind === 'form' ? { required: true, content: { [bodyContentTypes.form]: { schema: asAccepted({ type: 'object' }) } } } : undefined;
  const schema = plain(route.body);
  // A JSON body that is left out is an empty object: required only when some field of it is.
  const required = kind !== 'json' || (Array.isArray(schema.required) && schema.required.length > 0) || ['anyOf', 'oneOf', 'allOf'].some((key) => key in schema);
  return { required, content: { [bodyContentTypes[typeof kind === 'string' ? kind : 'multipart']]: { schema: asAccepted(schema) } } };
}

const codeDescriptions: Record<ErrorCode, string> = {
  bad_request: 'Malformed body, or a request that cannot be served as sent',
  rejected: 'Refused',
  unauthenticated: 'Missing, unknown, revoked or expired credential',
  forbidden: 'Not allowed',
  not_found: 'No such record of the caller',
  conflict: 'In conflict with the current state',
  too_large: 'Body too large',
  validation: 'Validation failed',
  unprocessable: 'A value the service cannot use',
  plan_limit: "The plan's limit is reached (`{message}` only)",
  insufficient_balance: 'The balance is not positive',
  call_unaffordable: "The balance does not pay for the call's first minute",
  payment_required: 'No payment method on file, or the payment failed',
  rate_limited: 'Rate limit reached',
  usage_limited: 'A free allowance is used up for now',
  provider_failed: 'The provider failed',
  provider_refused: 'The provider refused; `error` gives its reason',
  provider_unavailable: 'The provider is unavailable',
};

function describeError(code: ErrorCode, route: RouteDefinition): string {
  if (code === 'forbidden' && typeof route.auth === 'object') return `Missing or invalid ${route.auth.scheme} signature`;
  return codeDescriptions[code];
}

/** The domain errors every route of this kind may answer, whatever its handler does. */
function commonErrors(route: RouteDefinition): ErrorCode[] {
  const codes: ErrorCode[] = [];
  if (route.auth === 'bearer') codes.push('unauthenticated');
  if (typeof route.auth === 'object') codes.push('forbidden');
  // A body that is not JSON (or not a form, or malformed multipart) is a 400; past the cap a 413.
  if (route.body || route.bodyKind) codes.push('bad_request', 'too_large');
  if ((route.body && route.invalidBody !== 'bad_request') || route.query || route.params) codes.push('validation');
  // A path parameter names a record, which may not exist or not be the caller's.
  if (route.params) codes.push('not_found');
  codes.push('rate_limited');
  return codes;
}

interface Documented {
  description: string;
  schemas: TSchema[];
  contentType?: string;
}

/** A union's members, so that a body already documented inside a declared union is not added twice. */
function members(schema: TSchema): TSchema[] {
  return Array.isArray(schema.anyOf) ? (schema.anyOf as TSchema[]) : [schema];
}

/**
 * Every status the route can answer: the ones it declares, then the domain errors of its kind and those it
 * names in `errors`, each with the body the error table gives it on the route's family. A status reached by
 * several causes with different bodies documents their union.
 */
function responsesOf(route: RouteDefinition): Record<string, JsonObject> {
  const documented = new Map<number, Documented>();
  for (const [status, response] of Object.entries(route.responses)) {
    documented.set(Number(status), { description: response.description, schemas: response.schema ? [response.schema] : [], contentType: response.contentType });
  }
  const style = route.errorStyle ?? 'message';
  for (const code of new Set([...commonErrors(route), ...(route.errors ?? [])])) {
    const { status, schema } = documentedErrorResponse(code, style);
    const entry = documented.get(status);
    if (!entry) documented.set(status, { description: describeError(code, route), schemas: [schema] });
    else if (!entry.contentType && !entry.schemas.flatMap(members).includes(schema)) {
      entry.schemas.push(schema);
      entry.description += `; or: ${describeError(code, route).toLowerCase()}`;
    }
  }
  const responses: Record<string, JsonObject> = {};
  for (const [status, entry] of [...documented].sort(([a], [b]) => a - b)) {
    const schema = entry.schemas.length > 1 ? Type.Union(entry.schemas) : entry.schemas[0];
    responses[String(status)] = { description: entry.description, ...json(schema, entry.contentType) };
  }
  responses['500'] ??= serverErrorFor(route);
  return responses;
}

function operation(route: RouteDefinition): JsonObject {
  const responses = responsesOf(route);

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
      schemas: { [JSON_WITHOUT_NUL]: jsonWithoutNul },
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key (POST /user/api-keys) or a session token (POST /auth/login).' },
      },
    },
    paths,
  };
}
