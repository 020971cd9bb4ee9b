import { ApplicationFailure } from '@temporalio/activity';
import { describe, expect, it } from 'vitest';
import { withDomainFailures } from '../../activities/failures.ts';
import { NotFoundError, ProviderFailedError, RejectedError } from '../../src/lib/errors.ts';

async function failureOf(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected the activity to fail');
}

describe('withDomainFailures', () => {
  it('passes arguments and results through unchanged', async () => {
    const activities = withDomainFailures({ add: ({ a, b }: { a: number; b: number }) => Promise.resolve(a + b) });
    await expect(activities.add({ a: 2, b: 3 })).resolves.toBe(5);
  });

  it('throws a domain error as a non-retryable ApplicationFailure typed by its code, with its message and stack', async () => {
    const rejected = new RejectedError('The PDF is encrypted with a password and cannot be read.');
    const activities = withDomainFailures({
      extract: () => Promise.reject(rejected),
      load: ({ documentId }: { documentId: number }) => Promise.reject(new NotFoundError(`Document ${documentId} no longer exists.`)),
    });

    const failure = await failureOf(() => activities.extract());
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'rejected', nonRetryable: true, message: rejected.message });
    expect((failure as ApplicationFailure).stack).toBe(rejected.stack);

    expect(await failureOf(() => activities.load({ documentId: 7 })))
      .toMatchObject({ type: 'not_found', nonRetryable: true, message: 'Document 7 no longer exists.' });
  });

  it('leaves a failure that retrying may cure retryable, still typed by its code', async () => {
    const activities = withDomainFailures({ embed: () => Promise.reject(new ProviderFailedError('the embeddings service answered 503')) });
    const failure = await failureOf(() => activities.embed());
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'provider_failed', nonRetryable: false });
  });

  it('lets every other error through as it is', async () => {
    const broken = new Error('connection reset');
    const activities = withDomainFailures({ write: () => Promise.reject(broken) });
    expect(await failureOf(() => activities.write())).toBe(broken);
  });
});
