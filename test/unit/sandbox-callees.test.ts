import { describe, expect, it } from 'vitest';
import { calleeFor } from '../../src/simulators/sandbox-carrier/callees.ts';
import { recipientFor } from '../../src/simulators/sandbox-carrier/messaging.ts';
import { sandboxCallPriceMicros } from '../../src/simulators/sandbox-carrier/rates.ts';

describe('the sandbox carrier\'s callees', () => {
  it('are chosen by the last two digits of the number dialled, as the README\'s table says', () => {
    const expected: [string, string][] = [
      ['00', 'person'], ['79', 'person'], ['80', 'busy'], ['84', 'busy'], ['85', 'no-answer'], ['89', 'no-answer'],
      ['90', 'voicemail'], ['94', 'voicemail'], ['95', 'failed'], ['97', 'failed'], ['98', 'silent-hang-up'], ['99', 'silent-hang-up'],
    ];
    for (const [digits, callee] of expected) expect(calleeFor(`+141555501${digits}`), digits).toBe(callee);
  });
});

describe('the sandbox carrier\'s text message recipients', () => {
  it('are chosen by the last two digits of the number texted, as the README\'s table says', () => {
    const expected: [string, string][] = [
      ['00', 'handset'], ['79', 'handset'], ['80', 'unreachable'], ['84', 'unreachable'], ['85', 'handset'], ['89', 'handset'],
      ['90', 'landline'], ['94', 'landline'], ['95', 'failing'], ['97', 'failing'], ['98', 'handset'], ['99', 'handset'],
    ];
    for (const [digits, recipient] of expected) expect(recipientFor(`+141555501${digits}`), digits).toBe(recipient);
  });
});

describe('the sandbox carrier\'s price of a call', () => {
  it('charges per started minute of talk at the rate of the country called, or of the number rung for an inbound call', () => {
    expect(sandboxCallPriceMicros('outbound-api', '+14155550123', 0)).toBe(0);
    expect(sandboxCallPriceMicros('outbound-api', '+14155550123', 1)).toBe(14_000);
    expect(sandboxCallPriceMicros('outbound-api', '+14155550123', 60_000)).toBe(14_000);
    expect(sandboxCallPriceMicros('outbound-api', '+14155550123', 60_001)).toBe(28_000);
    expect(sandboxCallPriceMicros('inbound', '+14155550123', 30_000)).toBe(8_500);
    expect(sandboxCallPriceMicros('outbound-api', '+4930901820', 90_000)).toBe(60_000);
    // A country without a rate of its own.
    expect(sandboxCallPriceMicros('outbound-api', '+33142685300', 30_000)).toBe(100_000);
  });
});
