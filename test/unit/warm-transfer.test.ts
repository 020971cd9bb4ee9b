import { describe, expect, it } from 'vitest';
import { briefingText, lastTurnsSummary, summarize, summaryMessages, FALLBACK_TURNS } from '../../src/agent/briefing.ts';
import type { HistoryEntry } from '../../src/agent/turn-input.ts';
import { HOLD_MUSIC_FULL_LEVEL, HOLD_MUSIC_SAMPLE_RATE, holdMusicSamples, holdMusicWav, wavPeak } from '../../src/providers/telephony/hold-music.ts';
import { holdTwiml } from '../../src/providers/telephony/twilio-calls.ts';
import type { ChatEvent, ChatRequest, LanguageModel } from '../../src/providers/llm/types.ts';
import { GIVE_UP_TWIML, joinRoomTwiml, roomFor, supervisorTwiml } from '../../src/resources/carrier-callbacks/warm-transfers.ts';

const history: HistoryEntry[] = [
  { role: 'assistant', content: 'Hello, this is Acme support.' },
  { role: 'user', content: 'My parcel is late.' },
  { role: 'assistant', content: 'I am sorry. May I have the order number?' },
  { role: 'user', content: 'It is 4471.' },
  { role: 'assistant', content: 'Thank you. Let me get my supervisor.' },
];

const peakOf = (samples: Int16Array) => samples.reduce((peak, sample) => Math.max(peak, Math.abs(sample)), 0) / 32767;

describe('hold music', () => {
  it('is a sixteen-second telephone-rate loop whose peak follows the volume, silent at 0', () => {
    const full = holdMusicSamples(100);
    expect(full.length).toBe(16 * HOLD_MUSIC_SAMPLE_RATE);
    expect(peakOf(full)).toBeCloseTo(HOLD_MUSIC_FULL_LEVEL, 3);
    expect(peakOf(holdMusicSamples(80))).toBeCloseTo(0.8 * HOLD_MUSIC_FULL_LEVEL, 3);
    expect(peakOf(holdMusicSamples(25))).toBeCloseTo(0.25 * HOLD_MUSIC_FULL_LEVEL, 3);
    expect(holdMusicSamples(0).every((sample) => sample === 0)).toBe(true);
  });

  it('is music, not a tone: its level changes over each second and the two passes differ', () => {
    const samples = holdMusicSamples(80);
    const rms = (from: number, length: number) => Math.sqrt(samples.subarray(from, from + length).reduce((sum, sample) => sum + sample * sample, 0) / length);
    // Notes are struck and decay: the quarter seconds of a bar are louder at their start than at their end.
    const quarter = HOLD_MUSIC_SAMPLE_RATE / 4;
    expect(rms(quarter, quarter / 8)).toBeGreaterThan(rms(quarter + (quarter * 7) / 8, quarter / 8));
    const pass = samples.length / 2;
    expect(samples.subarray(0, 1000)).not.toEqual(samples.subarray(pass, pass + 1000));
  });

  it('is served as a PCM16 mono WAV at 8 kHz, whose peak a listener reads back', () => {
    const wav = holdMusicWav(40);
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.toString('ascii', 8, 16)).toBe('WAVEfmt ');
    expect(wav.readUInt16LE(22)).toBe(1);
    expect(wav.readUInt32LE(24)).toBe(8000);
    expect(wav.readUInt16LE(34)).toBe(16);
    expect(wav.readUInt32LE(40)).toBe(wav.length - 44);
    expect(wavPeak(wav)).toBeCloseTo(0.4 * HOLD_MUSIC_FULL_LEVEL, 3);
    expect(holdMusicWav(40)).toBe(wav);
    expect(wavPeak(Buffer.from('not audio'))).toBe(0);
  });
});

describe('warm transfer TwiML', () => {
  it('briefs the supervisor, escaped, then redirects to the bridge', () => {
    expect(supervisorTwiml('A caller <Sam> & co.', 'https://p.example/api/telephony/twilio/warm-transfer/bridge?call_id=7&x=1')).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Say>A caller &lt;Sam&gt; &amp; co.</Say>'
        + '<Redirect method="POST">https://p.example/api/telephony/twilio/warm-transfer/bridge?call_id=7&amp;x=1</Redirect></Response>',
    );
  });

  it("reads the briefing in the call's language, and English in the carrier's default", () => {
    const bridge = 'https://p.example/bridge';
    expect(supervisorTwiml('Ein Anrufer für Sie.', bridge, 'de')).toContain('<Say language="de-DE">Ein Anrufer für Sie.</Say>');
    expect(supervisorTwiml('Una llamada para usted.', bridge, 'es-MX')).toContain('<Say language="es-MX">');
    expect(supervisorTwiml('Una chiamata per lei.', bridge, 'it-IT')).toContain('<Say language="it-IT">');
    // A bare code Parley has no pack for names no locale the carrier would take.
    expect(supervisorTwiml('Una chiamata per lei.', bridge, 'it')).toBe(supervisorTwiml('Una chiamata per lei.', bridge));
    expect(supervisorTwiml('A caller for you.', bridge, 'en-GB')).toBe(supervisorTwiml('A caller for you.', bridge));
  });

  it('joins the room with a word first when there is one; either leaving ends it', () => {
    const room = roomFor(7);
    expect(room).toBe('parley-call-7');
    expect(joinRoomTwiml(room, ' You are connected. ')).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Say>You are connected.</Say>'
      + '<Dial><Conference startConferenceOnEnter="true" endConferenceOnExit="true" beep="false">parley-call-7</Conference></Dial></Response>');
    expect(joinRoomTwiml(room)).not.toContain('<Say>');
    expect(GIVE_UP_TWIML).toMatch(/<Say>Sorry, nobody could take your call right now\. Please try again later\. Goodbye\.<\/Say><Hangup\/><\/Response>$/);
  });

  it('holds the caller in the room with the music as its wait URL, or in silence', () => {
    expect(holdTwiml('parley-call-7', 'https://p.example/api/telephony/twilio/hold-music?volume=80')).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Dial>'
      + '<Conference waitUrl="https://p.example/api/telephony/twilio/hold-music?volume=80" waitMethod="GET" startConferenceOnEnter="false" endConferenceOnExit="false" beep="false">'
      + 'parley-call-7</Conference></Dial></Response>');
    expect(holdTwiml('parley-call-7', undefined)).toContain('<Conference waitUrl="" waitMethod="GET"');
  });
});

/** A language model that answers `text` a token at a time, or fails, or never answers until aborted. */
function model(answer: { text: string } | { error: string } | 'hang'): LanguageModel & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    requests,
    async *stream(request): AsyncIterable<ChatEvent> {
      requests.push(request);
      if (answer === 'hang') {
        await new Promise((_resolve, reject) => request.signal?.addEventListener('abort', () => reject(new Error('aborted'))));
        return;
      }
      if ('error' in answer) throw new Error(answer.error);
      for (const word of answer.text.split(/(?<= )/)) yield { type: 'token', text: word };
      yield { type: 'done', finishReason: 'stop' };
    },
  };
}

describe('the briefing', () => {
  it('asks for a spoken summary after the instructions, with the conversation as a transcript', () => {
    const [system, user] = summaryMessages(history, 'Say who calls and why.');
    expect(system).toEqual({ role: 'system', content: expect.stringMatching(/^Say who calls and why\.\nWrite two or three short spoken sentences/) });
    expect(user!.content).toBe('The conversation so far:\nAssistant: Hello, this is Acme support.\nCaller: My parcel is late.\n'
      + 'Assistant: I am sorry. May I have the order number?\nCaller: It is 4471.\nAssistant: Thank you. Let me get my supervisor.');
    expect(summaryMessages([], 'x')[1]!.content).toContain('(nothing has been said yet)');
  });

  it('falls back to the last turns, and opens with the initial message', () => {
    expect(lastTurnsSummary(history)).toBe('The last words were: the caller said: "My parcel is late."; I said: "I am sorry. May I have the order number?"; '
      + 'the caller said: "It is 4471."; I said: "Thank you. Let me get my supervisor.".');
    expect(FALLBACK_TURNS).toBe(4);
    expect(lastTurnsSummary([])).toBe('The caller has not said anything yet.');
    expect(briefingText(' Hello, a caller for you. ', 'They want a refund. ')).toBe('Hello, a caller for you. They want a refund.');
    expect(briefingText('', 'They want a refund.')).toBe('They want a refund.');
  });

  it('is asked for, and falls back, in the call\'s language', async () => {
    const system = (language?: string) => summaryMessages(history, 'Summarise.', language)[0]!.content;
    expect(system('de-DE')).toBe('Summarise.\nWrite two or three short spoken sentences in German, to be read aloud on the phone: no lists, no markdown, no greeting.');
    expect(system('fr')).toContain('sentences in French, to be read');
    // A language without a pack of lines is still named to the model, which answers the caller in it too.
    expect(system('it-IT')).toContain('sentences in Italian, to be read');
    expect(system('en-GB')).toBe(system(undefined));
    expect(system('not a language')).toBe(system(undefined));

    const lastTwo = history.slice(-2);
    expect(lastTurnsSummary(lastTwo, 'de-DE')).toBe('Zuletzt wurde gesagt: der Anrufer sagte: "It is 4471."; ich sagte: "Thank you. Let me get my supervisor.".');
    expect(lastTurnsSummary(lastTwo, 'es')).toBe('Lo último que se dijo fue: la persona que llama dijo: "It is 4471."; yo dije: "Thank you. Let me get my supervisor.".');
    expect(lastTurnsSummary([], 'fr-FR')).toBe('L\'appelant n\'a encore rien dit.');
    // The engine's own lines are English in a language without a pack.
    expect(lastTurnsSummary(lastTwo, 'it')).toBe(lastTurnsSummary(lastTwo));

    const writer = model({ text: 'Sam möchte eine Erstattung.' });
    expect(await summarize({ model: writer, modelName: 'gpt-test', temperature: 0 }, history, 'Summarise.', new AbortController().signal, 'de-DE'))
      .toEqual({ text: 'Sam möchte eine Erstattung.', source: 'model' });
    expect(writer.requests[0]!.messages).toEqual(summaryMessages(history, 'Summarise.', 'de-DE'));
    expect(await summarize({ model: model({ error: 'rate limited' }), modelName: 'gpt-test', temperature: 0 }, history, 'Summarise.', new AbortController().signal, 'de-DE'))
      .toEqual({ text: lastTurnsSummary(history, 'de-DE'), source: 'last_turns', error: 'rate limited' });
  });

  it('is written by the assistant\'s model, or else read from the last turns with the reason', async () => {
    const llm = { modelName: 'gpt-test', temperature: 0.1 };
    const writer = model({ text: 'Sam wants a refund for order 4471. ' });
    expect(await summarize({ ...llm, model: writer }, history, 'Summarise.', new AbortController().signal)).toEqual({ text: 'Sam wants a refund for order 4471.', source: 'model' });
    expect(writer.requests[0]).toMatchObject({ model: 'gpt-test', temperature: 0.1, messages: summaryMessages(history, 'Summarise.') });
    expect(writer.requests[0]!.tools).toBeUndefined();

    expect(await summarize({ ...llm, model: model({ error: 'rate limited' }) }, history, 'Summarise.', new AbortController().signal))
      .toEqual({ text: lastTurnsSummary(history), source: 'last_turns', error: 'rate limited' });
    expect(await summarize({ ...llm, model: model({ text: '  ' }) }, history, 'Summarise.', new AbortController().signal))
      .toEqual({ text: lastTurnsSummary(history), source: 'last_turns', error: 'The model answered no summary.' });
  });

  it('stops asking when the caller hangs up', async () => {
    const hanging = model('hang');
    const caller = new AbortController();
    const written = summarize({ model: hanging, modelName: 'gpt-test', temperature: 0 }, history, 'Summarise.', caller.signal);
    caller.abort(new Error('The caller hung up.'));
    expect(await written).toEqual({ text: lastTurnsSummary(history), source: 'last_turns', error: 'The caller hung up.' });
    expect(hanging.requests[0]!.signal!.aborted).toBe(true);
  });
});
