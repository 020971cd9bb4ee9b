import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createProviders } from '../../src/providers/index.ts';
import type { WhisperLocal } from '../../src/providers/stt/whisper-local.ts';
import type { ChatEvent, ChatRequest, LanguageModel } from '../../src/providers/llm/types.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { speechDir, speechInstalled } from '../support/speech.ts';
import { createTestUser } from '../support/users.ts';

/** A language model in memory: answers every request with one line, and remembers what it was asked. */
function scriptedModel(line: string): LanguageModel & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    requests,
    async *stream(request): AsyncIterable<ChatEvent> {
      requests.push(request);
      await Promise.resolve();
      for (const word of line.split(/(?<= )/)) yield { type: 'token', text: word };
      yield { type: 'done', finishReason: 'stop' };
    },
  };
}

describe('createProviders', () => {
  const config = loadConfig({ LOG_LEVEL: 'silent', APP_KEY: Buffer.alloc(32, 7).toString('base64') });
  const logger = createLogger(config);

  it('builds every adapter from the configuration, without a model when none is configured', () => {
    const providers = createProviders(config, logger);
    expect(providers.llm).toBeUndefined();
    expect(providers.embeddings).toBeUndefined();
    expect(typeof providers.fetch).toBe('function');
    expect(providers.secrets.decrypt(providers.secrets.encrypt('x', 'purpose'), 'purpose')).toBe('x');
  });

  it('puts the given objects in place of the configured adapters and builds the rest', () => {
    const model = scriptedModel('hi');
    const providers = createProviders(loadConfig({ LOG_LEVEL: 'silent', APP_KEY: config.appKey ?? '', LLM_BASE_URL: 'http://127.0.0.1:9/v1' }), logger, { llm: model });
    expect(providers.llm).toBe(model);
    // An explicit `undefined` is an override too: a test can take a configured model away.
    expect(createProviders(loadConfig({ LOG_LEVEL: 'silent', APP_KEY: config.appKey ?? '', LLM_BASE_URL: 'http://127.0.0.1:9/v1' }), logger, { llm: undefined }).llm).toBeUndefined();
  });
});

describe('createProviders: speech', () => {
  const appKey = Buffer.alloc(32, 7).toString('base64');
  const logger = createLogger({ log: { level: 'silent', pretty: false } });

  it('speaks with espeak-ng when the Piper voice is not installed, and starts nothing until used', async () => {
    const providers = createProviders(loadConfig({ LOG_LEVEL: 'silent', APP_KEY: appKey, SPEECH_DIR: '/nonexistent/speech' }), logger);
    expect(providers.tts.default.code).toBe('espeak');
    expect(providers.tts.forCode('espeak')).toBe(providers.tts.default);
    expect(providers.tts.forCode('piper')).toBeUndefined();
    expect(providers.tts.forCode('elevenlabs')).toBeUndefined();
    expect(providers.stt.kind).toBe('segment');
    expect((providers.stt as WhisperLocal).workerPids()).toEqual([]);
    expect(providers.vad.name).toBe('silero');
    await providers.close();
  });

  it.skipIf(!speechInstalled)('speaks with Piper by default where it is installed, and with espeak-ng when TTS_PROVIDER says so', async () => {
    const local = createProviders(loadConfig({ LOG_LEVEL: 'silent', APP_KEY: appKey, SPEECH_DIR: speechDir }), logger);
    expect(local.tts.default.code).toBe('piper');
    expect(local.tts.forCode('piper')).toBe(local.tts.default);
    const espeak = createProviders(loadConfig({ LOG_LEVEL: 'silent', APP_KEY: appKey, SPEECH_DIR: speechDir, TTS_PROVIDER: 'espeak' }), logger);
    expect(espeak.tts.default.code).toBe('espeak');
    expect(espeak.tts.forCode('piper')?.code).toBe('piper');
    await Promise.all([local.close(), espeak.close()]);
  });
});

describe('the API over overridden providers', () => {
  const model = scriptedModel('Hello from the object in memory.');
  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform({ providers: { llm: model } });
  });
  afterAll(async () => {
    await platform.close();
  });

  it('answers chats with the model object it was handed, not one built from configuration', async () => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 1 });
    const assistant = await createTestAssistant(platform, owner, { system_prompt: 'You are terse.' });
    const started = await platform.request('POST', '/conversations', { body: { assistant_id: assistant.uuid, type: 'test' } });
    const reply = await platform.request('POST', `/conversations/${started.body.conversation_id}/messages`, { body: { message: 'Hi?' } });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: true, message: 'Hello from the object in memory.', function_calls: [] });
    expect(model.requests.at(-1)?.messages[0]).toEqual({ role: 'system', content: 'You are terse.' });
  });
});
