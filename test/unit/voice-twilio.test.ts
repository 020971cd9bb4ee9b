import { describe, expect, it } from 'vitest';
import {
  clearMessage, markMessage, MAX_MESSAGE_LENGTH, MediaStreamMessageError, mediaMessage, parseInboundMessage,
  UnsupportedMediaFormatError,
} from '../../src/voice/serializers/twilio.ts';

const streamSid = 'MZ4d1c7f3e9a0b2c5d8e1f4a7b0c3d6e9f';
const callSid = 'CA9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b';
const accountSid = 'AC0f1e2d3c4b5a69788796a5b4c3d2e1f0';

/** A start message as Twilio sends it, with `format` and any field replaced by `overrides`. */
function start(format: object = { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 }, overrides: object = {}) {
  return {
    event: 'start',
    sequenceNumber: '1',
    start: {
      accountSid, streamSid, callSid,
      tracks: ['inbound'],
      mediaFormat: format,
      customParameters: { assistant: 'a1b2', lead: '42' },
    },
    streamSid,
    ...overrides,
  };
}

const media = { event: 'media', sequenceNumber: '3', media: { track: 'inbound', chunk: '1', timestamp: '5', payload: '/35+fX5+/w==' }, streamSid };

function parse(message: unknown) {
  return parseInboundMessage(JSON.stringify(message));
}

/** The error parsing `text` throws; fails the test if it throws nothing. */
function failure(text: string): unknown {
  try {
    parseInboundMessage(text);
  } catch (error) {
    return error;
  }
  throw new Error(`parsed: ${text}`);
}

describe('Twilio Media Streams inbound messages', () => {
  it('parses connected, start, media, mark, dtmf and stop as Twilio sends them', () => {
    expect(parse({ event: 'connected', protocol: 'Call', version: '1.0.0' })).toEqual({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    expect(parse(start())).toEqual({
      event: 'start', sequenceNumber: '1', streamSid,
      start: {
        streamSid, accountSid, callSid, tracks: ['inbound'], customParameters: { assistant: 'a1b2', lead: '42' },
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
    });
    expect(parse(media)).toEqual(media);
    expect(parse({ event: 'mark', sequenceNumber: '4', streamSid, mark: { name: 'sentence-3' } }))
      .toEqual({ event: 'mark', sequenceNumber: '4', streamSid, mark: { name: 'sentence-3' } });
    expect(parse({ event: 'dtmf', streamSid, sequenceNumber: '5', dtmf: { track: 'inbound_track', digit: '#' } }))
      .toEqual({ event: 'dtmf', sequenceNumber: '5', streamSid, dtmf: { track: 'inbound_track', digit: '#' } });
    expect(parse({ event: 'stop', sequenceNumber: '6', stop: { accountSid, callSid }, streamSid }))
      .toEqual({ event: 'stop', sequenceNumber: '6', streamSid, stop: { accountSid, callSid } });
  });

  it('accepts a browser web call announcing 16 kHz L16, and a start without parameters', () => {
    const parsed = parse(start({ encoding: 'audio/x-l16', sampleRate: 16000, channels: 1 }, {}));
    expect(parsed.event === 'start' && parsed.start.mediaFormat).toEqual({ encoding: 'audio/x-l16', sampleRate: 16000, channels: 1 });
    const bare = start();
    delete (bare.start as Partial<typeof bare.start>).customParameters;
    expect(parse(bare)).toMatchObject({ start: { customParameters: {} } });
  });

  it('drops fields the protocol does not have, and keeps a parameter named __proto__ a plain entry', () => {
    const parsed = parseInboundMessage(JSON.stringify({ ...media, extra: 1 }).replace('"payload"', '"junk":2,"payload"'));
    expect(parsed).toEqual(media);
    const polluted = parseInboundMessage(JSON.stringify(start()).replace('"assistant"', '"__proto__":"x","assistant"'));
    expect(polluted.event === 'start' && Object.getPrototypeOf(polluted.start.customParameters)).toBe(Object.prototype);
    expect(polluted.event === 'start' && Object.keys(polluted.start.customParameters)).toContain('__proto__');
  });

  it('refuses other media formats with a clear error', () => {
    for (const format of [
      { encoding: 'audio/x-alaw', sampleRate: 8000, channels: 1 },
      { encoding: 'audio/x-mulaw', sampleRate: 16000, channels: 1 },
      { encoding: 'audio/x-l16', sampleRate: 8000, channels: 1 },
      { encoding: 'audio/x-l16', sampleRate: 16000, channels: 2 },
      { encoding: 'audio/x-mulaw', sampleRate: '8000', channels: 1 },
    ]) {
      const error = failure(JSON.stringify(start(format)));
      expect(error).toBeInstanceOf(UnsupportedMediaFormatError);
      expect((error as Error).message).toMatch(/^Unsupported media format .*expected audio\/x-mulaw at 8000 Hz or audio\/x-l16 at 16000 Hz, mono\.$/);
      expect((error as UnsupportedMediaFormatError).code).toBe('rejected');
    }
  });

  it('answers malformed input with a typed error naming what is wrong', () => {
    const cases: [string, RegExp][] = [
      ['not json', /not JSON/],
      ['[1,2]', /JSON object/],
      ['null', /JSON object/],
      ['"media"', /JSON object/],
      [JSON.stringify({ ...media, media: { ...media.media, payload: 'not base64!' } }), /media\.payload is not valid/],
      [JSON.stringify({ ...media, media: { ...media.media, payload: 'abc' } }), /media\.payload is not valid/],
      [JSON.stringify({ ...media, media: { ...media.media, track: 'both' } }), /media\.track must be/],
      [JSON.stringify({ ...media, media: { ...media.media, chunk: 1 } }), /media\.chunk must be/],
      [JSON.stringify({ ...media, sequenceNumber: '-1' }), /sequenceNumber is not valid/],
      [JSON.stringify({ ...media, media: 'x' }), /media must be an object/],
      [JSON.stringify({ ...media, streamSid: undefined }), /streamSid must be/],
      [JSON.stringify(start(undefined, { streamSid: 'MZother' })), /start\.streamSid must be the message's streamSid/],
      [JSON.stringify(start(undefined, { start: { ...start().start, tracks: [] } })), /start\.tracks must be/],
      [JSON.stringify(start(undefined, { start: { ...start().start, customParameters: { lead: 42 } } })), /customParameters\.lead must be a string/],
      [JSON.stringify({ event: 'dtmf', streamSid, sequenceNumber: '5', dtmf: { track: 'inbound_track', digit: '12' } }), /dtmf\.digit is not valid/],
      [JSON.stringify({ event: 'mark', streamSid, sequenceNumber: '5', mark: {} }), /mark\.name must be/],
      [JSON.stringify({ event: 42 }), /event must be a string/],
    ];
    for (const [text, message] of cases) {
      const error = failure(text);
      expect(error, text).toBeInstanceOf(MediaStreamMessageError);
      expect((error as MediaStreamMessageError).reason, text).toBe('malformed');
      expect((error as MediaStreamMessageError).code).toBe('bad_request');
      expect((error as Error).message, text).toMatch(message);
    }
  });

  it('tells an unknown event and an oversized message apart from malformed ones', () => {
    expect(failure(JSON.stringify({ event: 'transcription', streamSid }))).toMatchObject({ reason: 'unknown_event' });
    const huge = JSON.stringify({ ...media, media: { ...media.media, payload: 'A'.repeat(MAX_MESSAGE_LENGTH) } });
    expect(failure(huge)).toMatchObject({ reason: 'too_large' });
  });


  it('throws nothing but its two typed errors, whatever is damaged in a message', () => {
    let seed = 14;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const junk = [null, 0, -1, 1e308, '', 'x', [], {}, [1], { a: 1 }, true, '__proto__'];
    const templates = [start(), media, { event: 'mark', sequenceNumber: '4', streamSid, mark: { name: 'm' } },
      { event: 'dtmf', streamSid, sequenceNumber: '5', dtmf: { track: 'inbound_track', digit: '1' } },
      { event: 'stop', sequenceNumber: '6', stop: { accountSid, callSid }, streamSid }];
    /** `value` with one field somewhere in it replaced by junk or removed. */
    const damaged = (value: any): any => {
      if (typeof value !== 'object' || value === null) return junk[Math.floor(random() * junk.length)];
      const copy = Array.isArray(value) ? [...value] : { ...value };
      const keys = Object.keys(copy);
      const key = keys[Math.floor(random() * keys.length)];
      if (key === undefined) return junk[Math.floor(random() * junk.length)];
      if (random() < 0.2) delete copy[key];
      else copy[key] = random() < 0.5 ? damaged(copy[key]) : junk[Math.floor(random() * junk.length)];
      return copy;
    };
    let refused = 0;
    for (let i = 0; i < 3000; i++) {
      const text = JSON.stringify(damaged(templates[i % templates.length]));
      const cut = random() < 0.1 ? text.slice(0, Math.floor(random() * text.length)) : text;
      try {
        parseInboundMessage(cut);
      } catch (error) {
        expect(error instanceof MediaStreamMessageError || error instanceof UnsupportedMediaFormatError, `${cut}: ${String(error)}`).toBe(true);
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(2000);
  });
});

describe('Twilio Media Streams outbound messages', () => {
  it('are media with a payload, mark with a name, and clear, each naming the stream', () => {
    expect(JSON.parse(mediaMessage(streamSid, 'fn5+'))).toEqual({ event: 'media', streamSid, media: { payload: 'fn5+' } });
    expect(JSON.parse(markMessage(streamSid, 'sentence-3'))).toEqual({ event: 'mark', streamSid, mark: { name: 'sentence-3' } });
    expect(JSON.parse(clearMessage(streamSid))).toEqual({ event: 'clear', streamSid });
  });
});
