import { describe, expect, it } from 'vitest';
import { BadRequestError, InsufficientBalanceError, ProviderFailedError, RejectedError, ServiceUnavailableError } from '../../src/lib/errors.ts';
import { closeFrameFor } from '../../src/voice/close-codes.ts';

describe('closeFrameFor', () => {
  it('maps each error code to one WebSocket close code, with the message as reason within 123 bytes', () => {
    expect(closeFrameFor(new BadRequestError('media.chunk must be a non-empty string.'))).toEqual({ code: 1002, reason: 'media.chunk must be a non-empty string.' });
    expect(closeFrameFor(new RejectedError('Unsupported media format.')).code).toBe(1003);
    expect(closeFrameFor(new InsufficientBalanceError()).code).toBe(4402);
    expect(closeFrameFor(new ProviderFailedError('x')).code).toBe(1011);
    expect(closeFrameFor(new ServiceUnavailableError('x')).code).toBe(1013);
    expect(closeFrameFor(new Error('secret detail'))).toEqual({ code: 1011, reason: 'Internal error.' });
    const long = closeFrameFor(new BadRequestError('é'.repeat(200)));
    expect(Buffer.byteLength(long.reason)).toBeLessThanOrEqual(123);
    expect(long.reason.endsWith('…')).toBe(true);
  });
});
