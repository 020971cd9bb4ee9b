import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createProviders } from '../../src/providers/index.ts';
import type { ChatEvent, ChatRequest, LanguageModel } from '../../src/providers/llm/types.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
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
