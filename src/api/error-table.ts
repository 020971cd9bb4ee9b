import type { TSchema } from '@sinclair/typebox';
import { ProviderRefusedError, TooManyRequestsError, UsageLimitError, ValidationError, type DomainError, type ErrorCode } from '../lib/errors.ts';
import { CodedErrorBody, ErrorBody, MessageBody, ProviderRefusedBody, StatusErrorBody, TooManyAttemptsBody, ValidationErrorBody } from './schemas.ts';

/**
 * The error bodies of the interface come in route families: `{message}` on most `/user/...` routes,
 * `{error}` on knowledgebases, documents and phone purchases, `{status:false,error}` on conversations;
 * `automate` is the conversations' family on the `/automate/...` routes, whose 401 is `{"error": "Unauthorized"}`;
 * `success` is `{success:false, error, error_code}` (AI replies for other channels).
 */
export type ErrorStyle = 'message' | 'error' | 'status' | 'automate' | 'success';

export type ResponseBody = Record<string, unknown>;

export interface ErrorResponse {
  status: number;
  body: ResponseBody;
  headers: Record<string, string>;
}

/**
 * A text in the shape of a route family; `errorCode` is the `success` family's code, derived from the domain
 * error's own code (`PROVIDER_FAILED`) where the contract names none.
 */
export function familyBody(style: ErrorStyle, text: string, errorCode = 'SERVER_ERROR'): ResponseBody {
  if (style === 'error') return { error: text };
  if (style === 'status' || style === 'automate') return { status: false, error: text };
  if (style === 'success') return { success: false, error: text, error_code: errorCode };
  return { message: text };
}

function errorCodeOf(error: DomainError): string {
  return error.errorCode ?? error.code.toUpperCase();
}

interface Mapping {
  status: number;
  /** The body, when it is not the family's shape around the error's message. */
  body?: (error: DomainError, style: ErrorStyle) => ResponseBody;
  headers?: (error: DomainError) => Record<string, string>;
  /** The schema of `body`, for the OpenAPI document; the family's shape when not given. */
  schema?: (style: ErrorStyle) => TSchema;
}

/** The schema of `familyBody`, for the OpenAPI document. */
export function familySchema(style: ErrorStyle): TSchema {
  if (style === 'error') return ErrorBody;
  if (style === 'status' || style === 'automate') return StatusErrorBody;
  if (style === 'success') return CodedErrorBody;
  return MessageBody;
}

/** Some answers are `{message}` on every route, whatever the family, as the contract documents them. */
const alwaysMessage = (error: DomainError): ResponseBody => ({ message: error.message });

/** A missing or unknown credential: `{message}` everywhere but on the `/automate/...` routes. */
function unauthenticatedBody(error: DomainError, style: ErrorStyle): ResponseBody {
  return style === 'automate' ? { error: 'Unauthorized' } : alwaysMessage(error);
}

/** Laravel's 422, except on the conversation routes, which answer `{status:false, error}` with the first message. */
function validationBody(error: DomainError, style: ErrorStyle): ResponseBody {
  if (!(error instanceof ValidationError)) return familyBody(style, error.message);
  if (style === 'status') return { status: false, error: error.first };
  return { message: error.message, errors: error.errors };
}

/** The SMS route documents a message the carrier refused as 500 `{"message": "Failed to send SMS", "error": "..."}`. */
function refusalBody(error: DomainError): ResponseBody {
  return { message: error.message, error: error instanceof ProviderRefusedError ? error.reason : error.message };
}

function retryAfter(error: DomainError): number | undefined {
  return error instanceof TooManyRequestsError || error instanceof UsageLimitError ? error.retryAfterSeconds : undefined;
}

function retryAfterHeader(error: DomainError): Record<string, string> {
  const seconds = retryAfter(error);
  return seconds === undefined ? {} : { 'Retry-After': String(seconds) };
}

/** Every code's HTTP status, and its body where the family's shape is not what the contract shows. */
const table: Record<ErrorCode, Mapping> = {
  bad_request: { status: 400 },
  rejected: { status: 400 },
  insufficient_balance: { status: 400 },
  // The conversation routes document a failed model as 400 "Failed to process message: …".
  provider_failed: { status: 400 },
  unauthenticated: { status: 401, body: unauthenticatedBody, schema: (style) => (style === 'automate' ? ErrorBody : MessageBody) },
  forbidden: { status: 403 },
  not_found: { status: 404 },
  conflict: { status: 409 },
  too_large: { status: 413 },
  validation: { status: 422, body: validationBody, schema: (style) => (style === 'status' ? StatusErrorBody : ValidationErrorBody) },
  unprocessable: { status: 422 },
  plan_limit: { status: 422, body: alwaysMessage, schema: () => MessageBody },
  // The call routes document a balance too low for a call as 422, where chats say 400.
  call_unaffordable: { status: 422 },
  payment_required: { status: 402 },
  rate_limited: {
    status: 429,
    body: (error) => ({ message: error.message, retry_after: retryAfter(error) }),
    headers: retryAfterHeader,
    schema: () => TooManyAttemptsBody,
  },
  usage_limited: { status: 429, headers: retryAfterHeader },
  provider_refused: { status: 500, body: refusalBody, schema: () => ProviderRefusedBody },
  provider_unavailable: { status: 503 },
};

/** The status and body schema a domain error code answers with on a route of the given family, for the OpenAPI document. */
export function documentedErrorResponse(code: ErrorCode, style: ErrorStyle): { status: number; schema: TSchema } {
  const mapping = table[code];
  return { status: mapping.status, schema: mapping.schema ? mapping.schema(style) : familySchema(style) };
}

/** How a domain error answers on a route of the given family. */
export function domainErrorResponse(error: DomainError, style: ErrorStyle): ErrorResponse {
  const mapping = table[error.code];
  return {
    status: mapping.status,
    body: mapping.body ? mapping.body(error, style) : familyBody(style, error.message, errorCodeOf(error)),
    headers: mapping.headers ? mapping.headers(error) : {},
  };
}

/**
 * Anything else is a 500 with the route's documented failure text (`Server Error` unless the route names
 * one) and the request id, under which the details are logged; nothing of the error itself.
 */
export function unexpectedErrorResponse(style: ErrorStyle, requestId: string, failureText = 'Server Error'): ErrorResponse {
  return { status: 500, body: { ...familyBody(style, failureText), request_id: requestId }, headers: {} };
}

const methodOrder = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * A known path asked with a method it does not serve: 405 in the message shape with Laravel's wording and an
 * `Allow` header. The text names the methods routes were declared with; `Allow` also has HEAD, which every
 * GET route serves.
 */
export function methodNotAllowedResponse(method: string, path: string, allowed: string[]): ErrorResponse {
  const sorted = [...allowed].sort((a, b) => methodOrder.indexOf(a) - methodOrder.indexOf(b));
  const declared = sorted.filter((name) => name !== 'HEAD');
  return {
    status: 405,
    body: {
      message: `The ${method} method is not supported for route ${path.replace(/^\//, '')}. Supported methods: ${declared.join(', ')}.`,
    },
    headers: { Allow: sorted.join(', ') },
  };
}
