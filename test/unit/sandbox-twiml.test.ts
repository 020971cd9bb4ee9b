import { describe, expect, it } from 'vitest';
import { readTwiml, sayText } from '../../src/simulators/sandbox-carrier/twiml.ts';

describe('the sandbox carrier reading Parley\'s TwiML', () => {
  it('follows a stream with its parameters, a rejection, or a message', () => {
    expect(readTwiml('<Response><Connect><Stream url="wss://m/x?a=1&amp;b=2"><Parameter name="callId" value="7"/></Stream></Connect></Response>'))
      .toEqual({ verb: 'stream', stream: { url: 'wss://m/x?a=1&b=2', parameters: { callId: '7' } } });
    expect(readTwiml('<Response><Reject reason="rejected"/></Response>')).toEqual({ verb: 'reject' });
    expect(readTwiml('<Response><Say>Hi</Say><Hangup/></Response>')).toEqual({ verb: 'say' });
    expect(readTwiml('')).toEqual({ verb: 'none' });
  });

  it('reads the words of the <Say> verbs, unescaped, as a whisper is heard', () => {
    expect(sayText('<?xml version="1.0"?><Response><Say>A caller &amp; a &quot;booking&quot;.</Say><Say voice="x"> Thanks. </Say></Response>'))
      .toBe('A caller & a "booking". Thanks.');
    expect(sayText('<Response></Response>')).toBe('');
  });
});
