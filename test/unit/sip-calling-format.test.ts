import { describe, expect, it } from 'vitest';
import { formatForTrunk, numberVariants } from '../../src/sip/calling-format.ts';
import { trunkTarget, uriHost } from '../../src/sip/outbound.ts';

describe('numbers as a SIP trunk writes them', () => {
  it('writes E.164 with the plus, without it, or as dialled in the country, digits only', () => {
    expect(formatForTrunk('+4930123456', '+e164')).toBe('+4930123456');
    expect(formatForTrunk('+4930123456', 'e164')).toBe('4930123456');
    expect(formatForTrunk('+4930123456', 'national')).toBe('030123456');
    expect(formatForTrunk('+12015550123', 'national')).toBe('2015550123');
    expect(formatForTrunk('+442079460018', 'national')).toBe('02079460018');
  });

  it('leaves what is not an E.164 number (an extension) as it is', () => {
    expect(formatForTrunk('101', 'national')).toBe('101');
    expect(formatForTrunk('sales', 'e164')).toBe('sales');
  });

  it('matches a number a carrier sends with or without its plus; an extension only as it is', () => {
    expect(numberVariants('4930123456')).toEqual(['+4930123456', '4930123456']);
    expect(numberVariants('+4930123456')).toEqual(['+4930123456', '4930123456']);
    expect(numberVariants('101')).toEqual(['101']);
  });

  it('sends a call to sip:<number>@<address>, the port written only when it is not 5060; a SIP URI as it is', () => {
    const trunk = { sipAddress: 'sip.carrier.example', sipCallingFormat: 'e164' as const };
    expect(trunkTarget(trunk, '+4930777777', 5060)).toBe('sip:4930777777@sip.carrier.example');
    expect(trunkTarget(trunk, '+4930777777', 5080)).toBe('sip:4930777777@sip.carrier.example:5080');
    expect(trunkTarget(trunk, 'sip:desk@pbx.example.com', 5060)).toBe('sip:desk@pbx.example.com');
  });

  it('reads the host of a SIP URI, which decides whether a transfer leg may carry the trunk\'s credentials', () => {
    expect(uriHost('sip:+4930777777@PBX.example.com:5080;transport=tcp')).toBe('pbx.example.com');
    expect(uriHost('sips:desk@10.0.0.7')).toBe('10.0.0.7');
    expect(uriHost('sip:[2001:db8::1]:5060')).toBe('[2001:db8::1]');
    expect(uriHost('tel:+4930777777')).toBeUndefined();
  });
});
