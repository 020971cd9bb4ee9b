import { describe, expect, it } from 'vitest';
import { calleeFor } from '../../src/providers/telephony/sandbox-carrier/callees.ts';
import { recipientFor } from '../../src/providers/telephony/sandbox-carrier/messaging.ts';

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
