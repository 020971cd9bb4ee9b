import { describe, expect, it } from 'vitest';
import {
  domainErrorResponse, familyBody, methodNotAllowedResponse, unexpectedErrorResponse, type ErrorStyle, type ResponseBody,
} from '../../src/api/error-table.ts';
import {
  BadRequestError, CallUnaffordableError, ConflictError, ForbiddenError, InsufficientBalanceError, NotFoundError, PayloadTooLargeError, PaymentRequiredError, PlanLimitError,
  ProviderFailedError, ProviderRefusedError, RejectedError, ServiceUnavailableError, TooManyRequestsError, UnauthenticatedError, UnprocessableError, UsageLimitError,
  ValidationError, errorCodes, type DomainError, type ErrorCode,
} from '../../src/lib/errors.ts';
import { nonRetryableErrorTypes } from '../../src/temporal/shared.ts';

interface Expected {
  error: DomainError;
  status: number;
  /** The body per family; a family left out answers the family's shape around the error's message. */
  bodies?: Partial<Record<ErrorStyle, ResponseBody>>;
  headers?: Record<string, string>;
}

const twoFields = new ValidationError({ name: ['The name field is required.'], 'schema.0.type': ['The selected schema.0.type is invalid.'] });
const laravel422 = {
  message: 'The name field is required. (and 1 more error)',
  errors: { name: ['The name field is required.'], 'schema.0.type': ['The selected schema.0.type is invalid.'] },
};
const planLimit = { message: 'You have reached your plan limit of 5 mid call tools. Please upgrade your plan to create more tools.' };

// A Record over every code: a code added to lib/errors.ts without a row here does not compile.
const expected: Record<ErrorCode, Expected> = {
  bad_request: { error: new BadRequestError('Malformed JSON body.'), status: 400 },
  rejected: { error: new RejectedError('The file is not a PDF.'), status: 400 },
  insufficient_balance: { error: new InsufficientBalanceError(), status: 400 },
  provider_failed: { error: new ProviderFailedError('Failed to process message: the language model answered 500: overloaded'), status: 400 },
  unauthenticated: {
    error: new UnauthenticatedError(),
    status: 401,
    bodies: { message: { message: 'Unauthenticated.' }, error: { message: 'Unauthenticated.' }, status: { message: 'Unauthenticated.' } },
  },
  forbidden: { error: new ForbiddenError('Registration is disabled.'), status: 403 },
  not_found: { error: new NotFoundError('Knowledgebase not found.'), status: 404 },
  conflict: { error: new ConflictError('Phone number is already scheduled for release.'), status: 409 },
  too_large: { error: new PayloadTooLargeError('The request body must not be larger than 1 MB.'), status: 413 },
  validation: {
    error: twoFields,
    status: 422,
    bodies: { message: laravel422, error: laravel422, status: { status: false, error: 'The name field is required.' } },
  },
  call_unaffordable: { error: new CallUnaffordableError(), status: 422 },
  unprocessable: { error: new UnprocessableError('Unable to parse phone number. Please provide a valid E.164 format number.'), status: 422 },
  payment_required: { error: new PaymentRequiredError('The payment failed: Your card was declined.'), status: 402 },
  plan_limit: { error: new PlanLimitError(planLimit.message), status: 422, bodies: { message: planLimit, error: planLimit, status: planLimit } },
  rate_limited: {
    error: new TooManyRequestsError(42),
    status: 429,
    bodies: Object.fromEntries((['message', 'error', 'status'] as const).map((style) => [style, { message: 'Too Many Attempts.', retry_after: 42 }])),
    headers: { 'Retry-After': '42' },
  },
  usage_limited: {
    error: new UsageLimitError('This assistant has used up its free test messages for now.', 120),
    status: 429,
    headers: { 'Retry-After': '120' },
  },
  provider_refused: {
    error: new ProviderRefusedError('Failed to send SMS', "'To' number is not a valid mobile number"),
    status: 500,
    bodies: Object.fromEntries((['message', 'error', 'status'] as const).map((style) => [style, { message: 'Failed to send SMS', error: "'To' number is not a valid mobile number" }])),
  },
  provider_unavailable: { error: new ServiceUnavailableError('No language model is configured. Set LLM_BASE_URL and LLM_API_KEY.'), status: 503 },
};

const styles: ErrorStyle[] = ['message', 'error', 'status'];

describe('the error table', () => {
  it('has one example per code, each error carrying its own code', () => {
    expect(Object.keys(expected).sort()).toEqual([...errorCodes].sort());
    for (const [code, { error }] of Object.entries(expected)) expect(error.code, code).toBe(code);
  });

  for (const [code, { error, status, bodies, headers }] of Object.entries(expected)) {
    it(`answers ${code} with ${status} and the documented body of each route family`, () => {
      for (const style of styles) {
        const response = domainErrorResponse(error, style);
        expect(response.status, style).toBe(status);
        expect(response.body, style).toEqual(bodies?.[style] ?? familyBody(style, error.message));
        expect(response.headers, style).toEqual(headers ?? {});
      }
    });
  }

  it('shapes a text as each family does', () => {
    expect(familyBody('message', 'Tool not found')).toEqual({ message: 'Tool not found' });
    expect(familyBody('error', 'Document not found.')).toEqual({ error: 'Document not found.' });
    expect(familyBody('status', 'Conversation not found')).toEqual({ status: false, error: 'Conversation not found' });
  });

  it("answers anything else with 500, the route's failure text or Server Error, and the request id only", () => {
    expect(unexpectedErrorResponse('message', 'req-1')).toEqual({ status: 500, body: { message: 'Server Error', request_id: 'req-1' }, headers: {} });
    expect(unexpectedErrorResponse('status', 'req-2').body).toEqual({ status: false, error: 'Server Error', request_id: 'req-2' });
    expect(unexpectedErrorResponse('error', 'req-3', 'Failed to create document. Please try again.').body)
      .toEqual({ error: 'Failed to create document. Please try again.', request_id: 'req-3' });
    expect(unexpectedErrorResponse('message', 'req-4', 'Assistant creation failed').body)
      .toEqual({ message: 'Assistant creation failed', request_id: 'req-4' });
  });

  it('words a 405 as Laravel does, listing the methods in a fixed order', () => {
    expect(methodNotAllowedResponse('PATCH', '/api/user/tools', ['POST', 'HEAD', 'GET'])).toEqual({
      status: 405,
      body: { message: 'The PATCH method is not supported for route api/user/tools. Supported methods: GET, POST.' },
      headers: { Allow: 'GET, HEAD, POST' },
    });
  });

  it('knows every failure type that workflows treat as non-retryable as an error code', () => {
    expect(errorCodes).toEqual(expect.arrayContaining(nonRetryableErrorTypes));
  });
});
