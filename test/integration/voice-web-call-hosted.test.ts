import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDeepgramServer, type FakeDeepgramServer } from '../fakes/deepgram-server.ts';
import { type FakeTurn, lastUserText } from '../fakes/llm-server.ts';
import { startFakeSpeechServer, type FakeSpeechRequest, type FakeSpeechServer } from '../fakes/speech-server.ts';
import { fromVoiceOnset, speechInstalled, speechSkipReason, spokenPcm } from '../support/speech.ts';
import { transcriptOf, webCallTestbed } from '../support/web-call.ts';

/**
 * Whole web calls through the media gateway with the platform configured for hosted speech providers, each
 * a protocol-faithful fake: Deepgram's streaming recognizer with ElevenLabs' streaming synthesizer, and
 * OpenAI's transcription of the detector's segments with OpenAI's speech. The caller speaks espeak-ng lines
 * (voice activity detection stays local: Silero), the language model is the fake. Each call greets, is
 * interrupted mid-reply, answers, and ends on the assistant's goodbye; the transcript, the barge-in, the
 * bill and what each fake received on the wire are checked.
 */

const GREETING = 'Hello, this is Parley.';
const MENU = 'Today we have a tomato soup with fresh basil. Then there is a risotto with wild mushrooms and parmesan. '
  + 'We also have a grilled sea bass with lemon and capers. For dessert there is a chocolate cake and a lemon tart.';
const ANSWER = 'Of course. What would you like to know?';
const GOODBYE = 'Goodbye, have a nice day.';
/** What the caller says, and what the fake recognizers make of it. */
const LINES = {
  question: { spoken: 'What is on the menu today', heard: 'What is on the menu today?' },
  interruption: { spoken: 'Hold on I have a question', heard: 'Hold on, I have a question.' },
  goodbye: { spoken: 'That is all thank you goodbye', heard: 'That is all, thank you, goodbye.' },
} as const;
const SPEED = 1.1;

interface HostedSetup {
  name: string;
  /** The platform's environment for these providers. */
  env(fakes: Fakes): Record<string, string>;
  /** The catalog voice the assistant speaks with. */
  voice: string;
  /** Scripts what the recognizer hears, in order. */
  script(fakes: Fakes, texts: string[]): void;
  /** Checks what the providers received during the call. */
  checkWire(fakes: Fakes, call: { synthesized: FakeSpeechRequest[] }): Promise<void>;
}

/** The fakes of the speech providers (the language model's is the testbed's). */
interface Fakes {
  speech: FakeSpeechServer;
  deepgram: FakeDeepgramServer;
}

const setups: HostedSetup[] = [
  {
    name: 'Deepgram streaming recognition and ElevenLabs streaming speech',
    env: ({ deepgram, speech }) => ({
      STT_PROVIDER: 'deepgram', DEEPGRAM_URL: deepgram.url, DEEPGRAM_API_KEY: deepgram.apiKey, DEEPGRAM_MODEL: 'nova-3',
      TTS_PROVIDER: 'elevenlabs', ELEVENLABS_URL: speech.elevenLabsUrl, ELEVENLABS_API_KEY: speech.elevenLabsKey, ELEVENLABS_MODEL: 'eleven_turbo_v2_5',
    }),
    voice: 'Rachel',
    script: ({ deepgram }, texts) => deepgram.script(...texts.map((text) => ({ text }))),
    async checkWire({ deepgram, speech }, { synthesized }) {
      expect(deepgram.connections).toHaveLength(1);
      const [connection] = deepgram.connections;
      expect(connection!.headers.authorization).toBe(`Token ${deepgram.apiKey}`);
      expect(Object.fromEntries(connection!.query)).toEqual({
        encoding: 'linear16', sample_rate: '16000', channels: '1', language: 'en-US', model: 'nova-3', punctuate: 'true',
        interim_results: 'true', endpointing: '300', utterance_end_ms: '1000', vad_events: 'true',
      });
      // The caller's audio went on the wire for the whole call, so no KeepAlive was needed; each pause of the
      // caller asked for its finals at once (Finalize); at the end the stream was closed with Deepgram's
      // handshake, not dropped.
      expect(connection!.audioBytes).toBeGreaterThan(5 * 32_000);
      expect(connection!.controls.filter((control) => control !== 'Finalize')).toEqual(['CloseStream']);
      expect(connection!.controls.filter((control) => control === 'Finalize').length).toBeGreaterThanOrEqual(3);
      expect(await connection!.closed).toBe(1000);
      expect(connection!.sent.at(-1)).toMatchObject({ type: 'Metadata' });
      for (const request of synthesized) {
        expect(request.endpoint).toBe('elevenlabs');
        expect(request.voice).toBe('21m00Tcm4TlvDq8EAJCM');
        expect(request.headers['xi-api-key']).toBe(speech.elevenLabsKey);
        expect(request.query.get('output_format')).toBe('pcm_16000');
        expect(request.body).toMatchObject({ model_id: 'eleven_turbo_v2_5', voice_settings: { speed: SPEED } });
      }
    },
  },
  {
    name: 'OpenAI transcription of each utterance and OpenAI speech',
    env: ({ speech }) => ({
      STT_PROVIDER: 'openai', OPENAI_STT_BASE_URL: speech.openaiBaseUrl, OPENAI_STT_API_KEY: speech.openaiKey,
      TTS_PROVIDER: 'openai', OPENAI_TTS_BASE_URL: speech.openaiBaseUrl, OPENAI_TTS_API_KEY: speech.openaiKey, OPENAI_TTS_MODEL: 'tts-1',
    }),
    voice: 'Alloy (OpenAI)',
    script: ({ speech }, texts) => {
      const queue = [...texts];
      speech.respond((request) => (request.endpoint === 'openai-transcription' ? { text: queue.shift() ?? '' } : undefined));
    },
    async checkWire({ speech }, { synthesized }) {
      // One upload per utterance the detector cut: the caller's three lines, each a 16 kHz WAV about as long as the line.
      const transcriptions = speech.requests.filter((request) => request.endpoint === 'openai-transcription');
      expect(transcriptions).toHaveLength(3);
      const lengths = await Promise.all(Object.values(LINES).map(async (line) => fromVoiceOnset(await spokenPcm(line.spoken)).length / 16));
      transcriptions.forEach((request, index) => {
        expect(request.headers.authorization).toBe(`Bearer ${speech.openaiKey}`);
        expect(request.body).toEqual({ model: 'whisper-1', language: 'en', response_format: 'json' });
        expect(request.audio!.sampleRate).toBe(16000);
        const ms = request.audio!.samples.length / 16;
        expect(ms).toBeGreaterThan(lengths[index]! - 100);
        expect(ms).toBeLessThan(lengths[index]! + 700);
      });
      for (const request of synthesized) {
        expect(request.endpoint).toBe('openai-speech');
        expect(request.headers.authorization).toBe(`Bearer ${speech.openaiKey}`);
        expect(request.body).toMatchObject({ model: 'tts-1', voice: 'alloy', response_format: 'pcm', speed: SPEED });
      }
    },
  },
];

describe.skipIf(!speechInstalled).each(setups)(`a web call with $name${speechInstalled ? '' : ` (${speechSkipReason})`}`, (setup) => {
  const fakes = {} as Fakes;
  // Registered before the testbed's hooks: the fakes are up before the platform starts, and closed after it.
  beforeAll(async () => {
    fakes.speech = await startFakeSpeechServer();
    // Audio comes at twice real time, so a sentence is still being synthesized while it plays.
    fakes.speech.chunkBytes = 3200;
    fakes.speech.chunkIntervalMs = 50;
    fakes.deepgram = await startFakeDeepgramServer();
  });
  afterAll(async () => {
    await Promise.all([fakes.speech?.close(), fakes.deepgram?.close()]);
  });
  const bed = webCallTestbed((request): FakeTurn => {
    const said = lastUserText(request);
    if (request.tool_choice) return { toolCalls: [{ name: 'record_call_evaluation', arguments: { status: true, summary: 'The caller asked about the menu.' } }] };
    if (request.messages.at(-1)?.role === 'tool') return { reply: GOODBYE };
    if (said === LINES.question.heard) return { reply: MENU, pieceDelayMs: 60 };
    if (said === LINES.interruption.heard) return { reply: ANSWER };
    return { toolCalls: [{ name: 'end_call', arguments: {} }] };
  }, { env: () => setup.env(fakes) });

  it('greets, is interrupted mid-reply, answers, ends on the assistant\'s goodbye, and stores and charges the call', async () => {
    const voice = await bed.platform.database.knex('voices').where({ name: setup.voice }).first<{ id: number }>('id');
    const assistantId = await bed.assistant({
      voice_id: Number(voice.id),
      speech_speed: SPEED,
      initial_message: GREETING,
      tools: [{ type: 'end_call', data: { description: 'End the call when the customer says goodbye.' } }],
    });
    setup.script(fakes, Object.values(LINES).map((line) => line.heard));
    const { callId, caller } = await bed.call(assistantId);
    expect(await transcriptOf(caller, 1)).toEqual([`assistant: ${GREETING}`]);

    const heardBefore = caller.playedSound.length;
    await caller.say(await spokenPcm(LINES.question.spoken, { silenceMs: 200 }));
    await caller.waitFor(() => caller.playedSound.length > heardBefore + 25, 20_000, 'the reply to be playing');
    const modelAborted = bed.llm.nextAbort();
    const synthesisAborted = fakes.speech.nextAbort();
    const onset = await caller.say(fromVoiceOnset(await spokenPcm(LINES.interruption.spoken)));
    // The line ends on its last voiced frame (the caller's microphone sends silence after it): from there a reply may come.
    const saidUntil = performance.now();
    const clear = caller.received.find((message) => message.event === 'clear' && message.at > onset);
    expect(clear, 'a clear after the caller began to speak').toBeDefined();
    // The assistant stops while the caller is still talking, not at the end of the caller's turn. How soon
    // (issue 14 asks 200 ms) is a figure of `npm run bench:voice-latency`, not a timing held inside npm test.
    expect(clear!.at, 'the clear, before the caller has finished the interruption').toBeLessThan(saidUntil);
    expect(caller.received.filter((message) => message.event === 'media' && message.at > clear!.at && message.at < saidUntil)).toEqual([]);
    // One signal stopped the model's answer and the synthesis of the sentence being spoken.
    expect(lastUserText(await modelAborted)).toBe(LINES.question.heard);
    expect(MENU).toContain((await synthesisAborted).body[setup.voice === 'Rachel' ? 'text' : 'input'] as string);

    await transcriptOf(caller, 5);
    await caller.say(await spokenPcm(LINES.goodbye.spoken, { silenceMs: 200 }));
    expect((await caller.closed).code).toBe(1000);
    const lines = await transcriptOf(caller, 7);
    const cut = lines[2]!.replace(/^assistant: /, '');
    expect(lines).toEqual([
      `assistant: ${GREETING}`, `user: ${LINES.question.heard}`, `assistant: ${cut}`, `user: ${LINES.interruption.heard}`,
      `assistant: ${ANSWER}`, `user: ${LINES.goodbye.heard}`, `assistant: ${GOODBYE}`,
    ]);
    expect(cut.length).toBeGreaterThan(0);
    expect(cut.length).toBeLessThan(MENU.length / 2);
    expect(MENU.startsWith(cut)).toBe(true);

    const { result, call } = await bed.settled(callId);
    expect(result).toMatchObject({ status: 'ended_by_assistant', reason: 'assistant_end_call' });
    expect(call.status).toBe('ended_by_assistant');
    expect(call.transcript).toBe([
      `AI: ${GREETING}`, `Customer: ${LINES.question.heard}`, `AI: ${cut}`, `Customer: ${LINES.interruption.heard}`,
      `AI: ${ANSWER}`, `Customer: ${LINES.goodbye.heard}`, `AI: ${GOODBYE}`,
    ].join('\n'));
    expect(call.turns[2]).toMatchObject({ role: 'assistant', text: cut, interrupted: true });
    expect(call.evaluation).toEqual({ status: true, summary: 'The caller asked about the menu.' });
    expect(call.duration).toBeGreaterThan(5);
    expect(Number(call.totalCostMicros)).toBe(Math.ceil((call.duration * Number(call.pricePerMinuteMicros)) / 60));
    const [charge] = await bed.charges(callId);
    expect(Number(charge.amountMicros)).toBe(-Number(call.totalCostMicros));

    // Every sentence spoken was one synthesis request, in order, with the assistant's voice and speed.
    const synthesized = fakes.speech.requests.filter((request) => request.endpoint !== 'openai-transcription');
    const texts = synthesized.map((request) => String(request.body.text ?? request.body.input));
    expect(texts.slice(0, 2)).toEqual([GREETING, 'Today we have a tomato soup with fresh basil.']);
    // A reply's first clause goes to the synthesizer on its own, as soon as it is complete; the next piece is asked
    // for while it is made, so the two requests of a reply may reach the fake in either order.
    expect([texts.slice(-4, -2).sort(), texts.slice(-2).sort()]).toEqual([['Of course.', 'What would you like to know?'], ['Goodbye,', 'have a nice day.']]);
    await setup.checkWire(fakes, { synthesized });
  }, 90_000);
});
