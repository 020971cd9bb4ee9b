import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multilingualSpeechInstalled } from '../../src/providers/speech-install.ts';
import { type FakeLlmServer, type FakeTurn, lastUserText, startFakeLlmServer } from '../fakes/llm-server.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { connectMediaStream, L16_16K, type MediaStreamClient } from '../support/media-stream-client.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { speechDir, speechInstalled, speechSkipReason, spokenPcm } from '../support/speech.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

const ready = speechInstalled && multilingualSpeechInstalled(speechDir);

/**
 * A German assistant on the embedded default: the caller speaks German (espeak-ng's German voice), Whisper
 * base hears it in German, the model's German reply is spoken by the assistant's German voice with its date,
 * time and price read as German says them, and the recognizer hears German words in what the caller was played.
 */
describe.skipIf(!ready)(`a German web call on the offline speech stack${ready ? '' : ` (${speechSkipReason}, with Whisper base)`}`, () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;
  let owner: TestUser;
  const reply = 'Gerne. Ihre Bestellung kommt am 12.03.2026 um 14:30 Uhr.';

  beforeAll(async () => {
    llm = await startFakeLlmServer({ chunkSize: 4 });
    llm.respond((request): FakeTurn => (/bestellung/i.test(lastUserText(request)) ? { reply } : { reply: 'Wie bitte?' }));
    platform = await startTestPlatform({ worker: true, media: true, env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test' } });
    owner = await createTestUser(platform.database.knex, { balanceUsd: 5 });
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await llm?.close();
  });

  const lines = (caller: MediaStreamClient) =>
    caller.received.flatMap((message) => (message.transcript ? [`${message.transcript.role}: ${message.transcript.text}`] : []));

  it('hears the caller in German and answers in German, dates and times read the German way', async () => {
    const knex = platform.database.knex;
    const [german, voice] = await Promise.all([
      knex('languages').where({ iso2: 'de' }).first('id'),
      knex('voices').where({ name: 'German Male (eSpeak)' }).first('id'),
    ]);
    const assistant = await createTestAssistant(platform, owner, {
      language_id: Number(german.id), voice_id: Number(voice.id), initial_message: 'Guten Tag, hier ist Parley.', system_prompt: 'Du hilfst bei Bestellungen.',
    });
    const created = await platform.request('POST', '/user/web-calls', { token: owner.token, body: { assistant_id: assistant.id } });
    expect(created.status).toBe(201);
    const caller = await connectMediaStream(created.body.data.websocket_url as string, L16_16K);
    caller.start();
    await caller.waitFor(() => lines(caller).length === 1, 30_000, 'the greeting');

    await caller.say(await spokenPcm('Guten Tag, ich brauche Hilfe mit meiner Bestellung.', { voice: 'de', silenceMs: 200 }));
    const replyFrom = caller.played.length;
    // The assistant's turn is in the live transcript once it has been played to its end.
    await caller.waitFor(() => lines(caller).length === 3, 60_000, `the reply after ${JSON.stringify(lines(caller))}`);
    caller.close();
    await caller.closed;

    expect(lines(caller)).toEqual(['assistant: Guten Tag, hier ist Parley.', expect.stringMatching(/^user: .*bestellung/i), `assistant: ${reply}`]);
    expect(lastUserText(llm.requests.at(-1)!)).toMatch(/hilfe.*bestellung/i);

    // What the caller was played, as the recognizer hears German: German words, the date read as words
    // ("zwölften März zweitausend…", not "twelve point zero three").
    const frames = caller.played.slice(replyFrom);
    const audio = new Int16Array(frames.length * frames[0]!.length);
    frames.forEach((frame, index) => audio.set(frame, index * frame.length));
    const stt = platform.providers.stt;
    if (stt.kind !== 'segment') throw new Error('the embedded default hears with Whisper');
    const { text } = await stt.transcribe(audio, { language: 'de-DE', sampleRate: 16000, signal: new AbortController().signal });
    // espeak-ng's German is hard on Whisper base ("und die überbestehung kommt am 12. märz 2020 um 14 uhr 30"),
    // so not every word: "März" is said only when 12.03. is read as a date, not as "zwölf Punkt null drei".
    expect(text.toLowerCase()).toMatch(/märz/);
  }, 120_000);
});
