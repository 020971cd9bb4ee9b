import { ApplicationFailure } from '@temporalio/activity';
import { DomainError } from '../src/lib/errors.ts';
import { nonRetryableErrorTypes } from '../src/temporal/shared.ts';

/**
 * A domain error as workflows see it: an `ApplicationFailure` whose type is the error's code and whose
 * message is the error's, with its stack. Codes that retrying cannot fix (`nonRetryableErrorTypes`) are
 * non-retryable whatever the caller's retry policy; the others (a provider down, a rate limit) are retried.
 */
export function domainFailure(error: DomainError): ApplicationFailure {
  return ApplicationFailure.fromError(error, { type: error.code, nonRetryable: nonRetryableErrorTypes.includes(error.code) });
}

type Activity = (...args: never[]) => Promise<unknown>;

/**
 * The same activities, throwing domain errors as `domainFailure`s; without it Temporal would name a failure
 * after the error's class, which no retry policy lists. Every other error goes on unchanged.
 */
export function withDomainFailures<T extends Record<string, Activity>>(activities: T): T {
  const wrapped: Record<string, Activity> = {};
  for (const [name, activity] of Object.entries(activities)) {
    wrapped[name] = async (...args) => {
      try {
        return await activity(...args);
      } catch (error) {
        throw error instanceof DomainError ? domainFailure(error) : error;
      }
    };
  }
  return wrapped as T;
}
