/**
 * The error bodies of the interface come in route families: `{message}` on most `/user/...` routes,
 * `{error}` on knowledgebases, documents and phone purchases, `{status:false,error}` on conversations.
 */
export type ErrorStyle = 'message' | 'error' | 'status';

export function errorBody(style: ErrorStyle, text: string): Record<string, unknown> {
  if (style === 'error') return { error: text };
  if (style === 'status') return { status: false, error: text };
  return { message: text };
}

/** An error whose status and text are meant for the client. */
export class AppError extends Error {
  readonly headers: Record<string, string> = {};
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
    this.name = new.target.name;
  }

  body(style: ErrorStyle): Record<string, unknown> {
    return errorBody(style, this.message);
  }
}

export class NotFoundError extends AppError {
  constructor(message: string) {
    super(404, message);
  }
}

/** 401 is `{message}` on every route, as Laravel answers it. */
export class UnauthenticatedError extends AppError {
  constructor(message = 'Unauthenticated.') {
    super(401, message);
  }

  override body(): Record<string, unknown> {
    return { message: this.message };
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super(403, message);
  }
}

export class BadRequestError extends AppError {
  constructor(message: string) {
    super(400, message);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message = 'The request body is too large.') {
    super(413, message);
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(message: string) {
    super(503, message);
  }
}

/** A 422 with Laravel's shape: the first message, plus every message by field (dot paths for nesting). */
export class ValidationError extends AppError {
  readonly errors: Record<string, string[]>;
  constructor(errors: Record<string, string[]>) {
    const messages = Object.values(errors).flat();
    const more = messages.length - 1;
    super(422, more > 0 ? `${messages[0]} (and ${more} more error${more === 1 ? '' : 's'})` : messages[0] ?? 'The given data was invalid.');
    this.errors = errors;
  }

  static of(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }

  /** Laravel's shape, except on the conversation routes, which answer `{status:false, error}` with the first text. */
  override body(style: ErrorStyle): Record<string, unknown> {
    if (style === 'status') return { status: false, error: Object.values(this.errors).flat()[0] ?? this.message };
    return { message: this.message, errors: this.errors };
  }
}

/** A charge the balance does not cover. */
export class InsufficientBalanceError extends AppError {
  constructor() {
    super(400, 'Insufficient balance. Please top up your account.');
  }
}

/** A plan limit reached: always `{message}` with status 422, as the interface documents. */
export class PlanLimitError extends AppError {
  constructor(message: string) {
    super(422, message);
  }

  override body(): Record<string, unknown> {
    return { message: this.message };
  }
}

export class TooManyRequestsError extends AppError {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super(429, 'Too Many Attempts.');
    this.retryAfterSeconds = retryAfterSeconds;
    this.headers['Retry-After'] = String(retryAfterSeconds);
  }

  override body(): Record<string, unknown> {
    return { message: this.message, retry_after: this.retryAfterSeconds };
  }
}
