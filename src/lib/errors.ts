/**
 * The stable codes of what can go wrong in the domain. Each code means the same thing wherever it surfaces:
 * src/api/error-table.ts turns it into an HTTP status and body, activities/failures.ts into the type of a
 * Temporal failure (src/temporal/shared.ts lists the codes retrying cannot fix).
 */
export const errorCodes = [
  'bad_request',
  'rejected',
  'unauthenticated',
  'forbidden',
  'not_found',
  'conflict',
  'too_large',
  'validation',
  'unprocessable',
  'plan_limit',
  'insufficient_balance',
  'call_unaffordable',
  'payment_required',
  'rate_limited',
  'usage_limited',
  'provider_failed',
  'provider_refused',
  'provider_unavailable',
] as const;

export type ErrorCode = typeof errorCodes[number];

/**
 * What a domain error may carry besides its cause: `errorCode`, the machine-readable code the routes of the
 * `success` family answer with (`ASSISTANT_NOT_FOUND`), where the contract names one.
 */
export interface DomainErrorOptions extends ErrorOptions {
  errorCode?: string;
}

/** An error whose message is meant for whoever asked, with a code saying what kind of failure it is. */
export abstract class DomainError extends Error {
  abstract readonly code: ErrorCode;
  readonly errorCode: string | undefined;
  constructor(message: string, options?: DomainErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.errorCode = options?.errorCode;
  }
}

/** The request itself is malformed (broken JSON or multipart, a body that is not an object). */
export class BadRequestError extends DomainError {
  readonly code = 'bad_request';
}

/** The input is well-formed but cannot be processed (a corrupt or encrypted file, a page without text). */
export class RejectedError extends DomainError {
  readonly code = 'rejected';
}

/**
 * A value the contract answers with 422 in the route family's own shape rather than Laravel's field errors
 * (a phone number that does not parse, on the purchase route).
 */
export class UnprocessableError extends DomainError {
  readonly code = 'unprocessable';
}

export class UnauthenticatedError extends DomainError {
  readonly code = 'unauthenticated';
  constructor(message = 'Unauthenticated.') {
    super(message);
  }
}

export class ForbiddenError extends DomainError {
  readonly code = 'forbidden';
}

export class NotFoundError extends DomainError {
  readonly code = 'not_found';
}

/** The record's current state does not allow the change (already released, already running). */
export class ConflictError extends DomainError {
  readonly code = 'conflict';
}

export class PayloadTooLargeError extends DomainError {
  readonly code = 'too_large';
  constructor(message = 'The request body is too large.') {
    super(message);
  }
}

/** Messages by field (dot paths for nesting), and Laravel's summary: the first message and how many more. */
export class ValidationError extends DomainError {
  readonly code = 'validation';
  readonly errors: Record<string, string[]>;
  constructor(errors: Record<string, string[]>) {
    const messages = Object.values(errors).flat();
    const more = messages.length - 1;
    super(more > 0 ? `${messages[0]} (and ${more} more error${more === 1 ? '' : 's'})` : messages[0] ?? 'The given data was invalid.');
    this.errors = errors;
  }

  static of(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }

  /** The first message alone, without the count of the others. */
  get first(): string {
    return Object.values(this.errors).flat()[0] ?? this.message;
  }
}

/** A limit of the user's plan is reached. */
export class PlanLimitError extends DomainError {
  readonly code = 'plan_limit';
}

/** A charge the balance does not cover; the text is the route's own where it documents one. */
export class InsufficientBalanceError extends DomainError {
  readonly code = 'insufficient_balance';
  constructor(message = 'Insufficient balance. Please top up your account.') {
    super(message);
  }
}

/** A call the owner's balance cannot pay for: it does not cover the call's first minute. */
export class CallUnaffordableError extends DomainError {
  readonly code = 'call_unaffordable';
  constructor() {
    super('Insufficient balance to make call. Please top up your account.');
  }
}

/** A payment is needed and cannot be made: no card on file, or the card was declined. */
export class PaymentRequiredError extends DomainError {
  readonly code = 'payment_required';
}

/** Too many attempts; the caller may try again after `retryAfterSeconds`. */
export class TooManyRequestsError extends DomainError {
  readonly code = 'rate_limited';
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super('Too Many Attempts.');
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * A free allowance is used up for now (test chats of an assistant); unlike `rate_limited` it answers in the
 * route family's own shape. The caller may try again after `retryAfterSeconds`.
 */
export class UsageLimitError extends DomainError {
  readonly code = 'usage_limited';
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** A provider (the language model, …) failed or answered something unusable; trying again may work. */
export class ProviderFailedError extends DomainError {
  readonly code = 'provider_failed';
}

/**
 * A provider would not do what was asked, and nothing was done (a carrier refused a text message): the route's
 * documented failure text, with the provider's reason beside it.
 */
export class ProviderRefusedError extends DomainError {
  readonly code = 'provider_refused';
  readonly reason: string;
  constructor(message: string, reason: string) {
    super(message);
    this.reason = reason;
  }
}

/** A provider the request needs is not configured or cannot be reached. */
export class ServiceUnavailableError extends DomainError {
  readonly code = 'provider_unavailable';
}
