import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { loadConfig } from '../../src/config.ts';
import { createRealtimeModel } from '../../src/providers/realtime/index.ts';
import { OpenAiRealtimeModel } from '../../src/providers/realtime/openai-realtime.ts';
import { RealtimeProviderError, type RealtimeConnection, type RealtimeEvent, type RealtimeSessionOptions } from '../../src/providers/realtime/types.ts';
import { startFakeRealtimeServer, type FakeRealtimeServer } from '../fakes/realtime-server.ts';
import { tone } from '../fakes/realtime-vad.ts';
import { freePort } from '../support/ports.ts';

const MS_PER_CHARACTER = 20;

function sessionOptions(signal = new AbortController().signal): RealtimeSessionOptions {
  return {
    model: 'gpt-realtime',
    instructions: 'You are the front desk of a dental practice.',
    voice: 'marin',
    tools: [{ name: 'lookup_order', description: 'Finds an order', parameters: { type: 'object', properties: { id: { type: 'number' } } } }],
    inputTranscriptionLanguage: 'en',
    turnDetection: { type: 'server_vad', threshold: 0.5, silenceMs: 200, interruptResponse: true },
    signal,
  };
}

/** Reads a connection's events up to the first that matches, returning all read. */
function reader(connection: RealtimeConnection) {
  const iterator = connection.events[Symbol.asyncIterator]();
  return {
    async until(match: (event: RealtimeEvent) => boolean): Promise<RealtimeEvent[]> {
      const seen: RealtimeEvent[] = [];
      for (;;) {
        const next = await iterator.next();
        if (next.done) throw new Error(`events ended before the awaited one, after ${JSON.stringify(seen.map((event) => event.type))}`);
        seen.push(next.value);
        if (match(next.value)) return seen;
      }
    },
    async end(): Promise<void> {
      while (!(await iterator.next()).done);
    },
  };
}

/** The caller says something: `speechMs` of a tone, then `silenceMs` of silence, in 20 ms frames. */
function speak(connection: RealtimeConnection, speechMs: number, silenceMs: number): void {
  for (let at = 0; at < speechMs; at += 20) connection.appendAudio(tone(20, at * 24));
  for (let at = 0; at < silenceMs; at += 20) connection.appendAudio(new Int16Array(480));
}

const ofType = <T extends RealtimeEvent['type']>(events: RealtimeEvent[], type: T) =>
  events.filter((event): event is Extract<RealtimeEvent, { type: T }> => event.type === type);

describe('OpenAiRealtimeModel against the fake Realtime server', () => {
  let server: FakeRealtimeServer;
  let model: OpenAiRealtimeModel;
  beforeAll(async () => {
    server = await startFakeRealtimeServer({ apiKey: 'sk-good', msPerCharacter: MS_PER_CHARACTER, chunkMs: 40, speedUp: 4 });
    model = new OpenAiRealtimeModel({ url: server.url, apiKey: 'sk-good' });
  });
  afterAll(() => server.close());

  it('configures the session with the call\'s instructions, voice, tools, transcription and turn detection', async () => {
    const arriving = server.nextSession();
    const connection = await model.connect(sessionOptions());
    const session = await arriving;
    expect(session.authorization).toBe('Bearer sk-good');
    expect(session.model).toBe('gpt-realtime');
    expect(connection.sampleRate).toBe(24000);
    expect(session.config).toMatchObject({
      type: 'realtime',
      instructions: 'You are the front desk of a dental practice.',
      output_modalities: ['audio'],
      tools: [{ type: 'function', name: 'lookup_order', description: 'Finds an order', parameters: { type: 'object' } }],
      audio: {
        input: {
          format: { type: 'audio/pcm', rate: 24000 },
          transcription: { language: 'en' },
          turn_detection: { type: 'server_vad', threshold: 0.5, silence_duration_ms: 200, create_response: true, interrupt_response: true },
        },
        output: { voice: 'marin', format: { type: 'audio/pcm', rate: 24000 } },
      },
    });
    connection.close();
  });

  it('hears the caller end a turn and answers in audio as long as its transcript', async () => {
    const connection = await model.connect(sessionOptions());
    const events = reader(connection);
    server.script({ heard: 'When are you open?', reply: { say: 'From nine to five.' } });
    speak(connection, 300, 400);
    const seen = await events.until((event) => event.type === 'response_done');

    const types = seen.map((event) => event.type).filter((type) => type !== 'audio' && type !== 'transcript_delta');
    expect(types).toEqual(['speech_started', 'speech_stopped', 'user_transcript', 'response_started', 'transcript_done', 'response_done']);
    const [started] = ofType(seen, 'speech_started');
    const [stopped] = ofType(seen, 'speech_stopped');
    expect(stopped!.itemId).toBe(started!.itemId);
    expect(stopped!.audioEndMs).toBeGreaterThanOrEqual(300 + 200);
    expect(ofType(seen, 'user_transcript')[0]!.text).toBe('When are you open?');
    const samples = ofType(seen, 'audio').reduce((sum, event) => sum + event.pcm.length, 0);
    expect(samples).toBeGreaterThanOrEqual('From nine to five.'.length * MS_PER_CHARACTER * 24);
    expect(ofType(seen, 'transcript_delta').map((event) => event.text).join('')).toBe('From nine to five.');
    expect(ofType(seen, 'transcript_done')[0]!.text).toBe('From nine to five.');
    expect(ofType(seen, 'response_done')[0]).toMatchObject({ status: 'completed', usage: { inputTokens: 30, outputAudioTokens: 18 } });
    connection.close();
  });

  it('asks for a tool, and speaks about its result once the output is sent', async () => {
    const arriving = server.nextSession();
    const connection = await model.connect(sessionOptions());
    const session = await arriving;
    const events = reader(connection);
    server.script({ heard: 'Where is order 42?', reply: { call: { name: 'lookup_order', arguments: { id: 42 } }, then: 'It ships today.' } });
    speak(connection, 200, 400);
    const called = await events.until((event) => event.type === 'response_done');
    const [call] = ofType(called, 'function_call');
    expect(call).toMatchObject({ name: 'lookup_order', arguments: '{"id":42}' });
    expect(ofType(called, 'audio')).toEqual([]);

    connection.sendFunctionResult(call!.callId, '{"status":"shipped"}');
    connection.createResponse();
    const answered = await events.until((event) => event.type === 'response_done');
    expect(ofType(answered, 'transcript_done')[0]!.text).toBe('It ships today.');
    expect(session.functionOutputs).toEqual([{ callId: call!.callId, output: '{"status":"shipped"}' }]);
    connection.close();
  });

  it('says a greeting on request and stops it when cancelled', async () => {
    const arriving = server.nextSession();
    const connection = await model.connect(sessionOptions());
    const session = await arriving;
    const events = reader(connection);
    const greeting = 'Hello, thank you for calling the practice, how may I help you today?';
    server.script({ reply: { say: greeting } });
    connection.createResponse('Greet the caller.');
    await events.until((event) => event.type === 'audio');
    connection.cancelResponse();
    const rest = await events.until((event) => event.type === 'response_done');
    expect(ofType(rest, 'response_done')[0]).toMatchObject({ status: 'cancelled', reason: 'client_cancelled' });
    expect(ofType(rest, 'transcript_done')[0]!.text.length).toBeLessThan(greeting.length);
    expect(session.responseRequests).toEqual([{ instructions: 'Greet the caller.' }]);
    expect(session.cancellations).toHaveLength(1);
    // With no answer in progress there is nothing to cancel, and nothing is sent.
    connection.cancelResponse();
    expect(session.received.filter((type) => type === 'response.cancel')).toHaveLength(1);
    connection.close();
  });

  it('lets the caller barge in, and truncates the answer to what was heard', async () => {
    const arriving = server.nextSession();
    const connection = await model.connect(sessionOptions());
    const session = await arriving;
    const events = reader(connection);
    server.script({ reply: { say: 'Our opening hours are from nine in the morning to five in the afternoon.' } });
    connection.createResponse();
    const first = await events.until((event) => event.type === 'audio');
    const itemId = ofType(first, 'audio')[0]!.itemId;
    speak(connection, 100, 0);
    const interrupted = await events.until((event) => event.type === 'response_done');
    expect(interrupted.findIndex((event) => event.type === 'speech_started')).toBeGreaterThanOrEqual(0);
    expect(ofType(interrupted, 'response_done')[0]).toMatchObject({ status: 'cancelled', reason: 'turn_detected' });

    connection.truncate(itemId, 40.7);
    connection.truncate('item_unknown', 10);
    const [refused] = ofType(await events.until((event) => event.type === 'error'), 'error');
    expect(refused).toMatchObject({ code: 'invalid_value', message: expect.stringContaining('item_unknown') });
    expect(session.truncations).toEqual([{ itemId, contentIndex: 0, audioEndMs: 40 }]);
    connection.close();
  });

  it('drops caller audio the socket cannot take, says so once, and sends again when it has drained', async () => {
    const arriving = server.nextSession();
    const narrow = new OpenAiRealtimeModel({ url: server.url, apiKey: 'sk-good', maxBufferedBytes: 16 * 1024 });
    const connection = await narrow.connect(sessionOptions());
    const session = await arriving;
    const events = reader(connection);
    const appends = () => session.received.filter((type) => type === 'input_audio_buffer.append').length;
    // Two minutes of audio in one go: more than the kernel's socket buffers hold while nothing is read.
    for (let frame = 0; frame < 6000; frame++) connection.appendAudio(new Int16Array(480));
    connection.createResponse();
    const flooded = await events.until((event) => event.type === 'response_done');
    expect(ofType(flooded, 'error')).toEqual([{ type: 'error', code: 'audio_dropped', message: expect.any(String) }]);
    const sent = appends();
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(6000);

    connection.appendAudio(new Int16Array(480));
    connection.createResponse();
    await events.until((event) => event.type === 'response_done');
    expect(appends()).toBe(sent + 1);
    connection.close();
  });

  it('is built from REALTIME_URL and REALTIME_API_KEY, and not at all without them', async () => {
    expect(createRealtimeModel(loadConfig({}))).toBeUndefined();
    const configured = createRealtimeModel(loadConfig({ REALTIME_URL: server.url, REALTIME_API_KEY: 'sk-good' }));
    expect(configured?.name).toBe('openai');
    const connection = await configured!.connect(sessionOptions());
    connection.close();
  });

  it('(the fake) answers malformed client events with error events, as the service does', async () => {
    const socket = new WebSocket(`${server.url}?model=gpt-realtime`, { headers: { authorization: 'Bearer sk-good' } });
    const errors: any[] = [];
    socket.on('message', (data: Buffer) => {
      const event = JSON.parse(data.toString('utf8'));
      if (event.type === 'error') errors.push(event.error);
    });
    await once(socket, 'open');
    socket.send('not json');
    socket.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: 'AAAA' }));
    socket.send(JSON.stringify({ type: 'session.update', session: { instructions: 'no type' } }));
    socket.send(JSON.stringify({ type: 'response.cancel', event_id: 'evt_1' }));
    socket.send(JSON.stringify({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: 'call_none', output: '{}' } }));
    socket.send(JSON.stringify({ type: 'response.dance' }));
    await expect.poll(() => errors.length).toBe(6);
    expect(errors.map((error) => error.code)).toEqual(['invalid_json', 'invalid_value', 'invalid_value', 'response_cancel_not_active', 'invalid_value', 'invalid_value']);
    expect(errors[3].event_id).toBe('evt_1');
    socket.close();
  });

  it('refuses a wrong key for good, with the provider\'s reason', async () => {
    const wrong = new OpenAiRealtimeModel({ url: server.url, apiKey: 'sk-wrong' });
    const error = await wrong.connect(sessionOptions()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RealtimeProviderError);
    expect(error).toMatchObject({ retryable: false, code: 'invalid_api_key', message: expect.stringContaining('Incorrect API key') });
  });

  it('calls a busy or unreachable provider worth another try', async () => {
    server.refuseNext(503);
    const busy = await model.connect(sessionOptions()).catch((caught: unknown) => caught);
    expect(busy).toMatchObject({ name: 'RealtimeProviderError', retryable: true, message: 'the realtime provider answered 503: The server is overloaded.' });

    const nowhere = new OpenAiRealtimeModel({ url: `ws://127.0.0.1:${await freePort()}/v1/realtime`, apiKey: 'sk-good' });
    const unreachable = await nowhere.connect(sessionOptions()).catch((caught: unknown) => caught);
    expect(unreachable).toMatchObject({ name: 'RealtimeProviderError', retryable: true });
  });

  it('closes the socket when the call is aborted, and ends the events quietly', async () => {
    const arriving = server.nextSession();
    const controller = new AbortController();
    const connection = await model.connect(sessionOptions(controller.signal));
    const session = await arriving;
    const events = reader(connection);
    controller.abort();
    await session.closed;
    await events.end();
    // Audio after the end goes nowhere, without an error.
    connection.appendAudio(tone(20, 0));

    const early = new AbortController();
    early.abort();
    await expect(model.connect(sessionOptions(early.signal))).rejects.toThrow();
  });
});
