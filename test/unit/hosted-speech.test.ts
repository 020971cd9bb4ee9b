import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { DeepgramSpeechToText } from '../../src/providers/stt/deepgram.ts';
import { createHostedSpeechToText } from '../../src/providers/stt/hosted.ts';
import { OpenAiSpeechToText } from '../../src/providers/stt/openai-transcription.ts';
import { ElevenLabsTextToSpeech } from '../../src/providers/tts/elevenlabs.ts';
import { createHostedTextToSpeech } from '../../src/providers/tts/hosted.ts';
import { OpenAiTextToSpeech } from '../../src/providers/tts/openai-speech.ts';

const logger = pino({ level: 'silent' });

describe('hosted speech factories', () => {
  it('build nothing for the local stack', () => {
    const config = loadConfig({});
    expect(createHostedSpeechToText(config, logger)).toBeUndefined();
    expect(createHostedTextToSpeech(config)).toBeUndefined();
  });

  it('build the adapter the provider names, serving the catalog code of its voices', () => {
    const hosted = loadConfig({ STT_PROVIDER: 'deepgram', DEEPGRAM_API_KEY: 'k', TTS_PROVIDER: 'elevenlabs', ELEVENLABS_API_KEY: 'k' });
    expect(createHostedSpeechToText(hosted, logger)).toBeInstanceOf(DeepgramSpeechToText);
    expect(createHostedTextToSpeech(hosted)).toMatchObject({ code: 'elevenlabs' });
    expect(createHostedTextToSpeech(hosted)).toBeInstanceOf(ElevenLabsTextToSpeech);

    const openai = loadConfig({ LLM_BASE_URL: 'https://api.openai.com/v1', STT_PROVIDER: 'openai', TTS_PROVIDER: 'openai' });
    expect(createHostedSpeechToText(openai, logger)).toMatchObject({ kind: 'segment' });
    expect(createHostedSpeechToText(openai, logger)).toBeInstanceOf(OpenAiSpeechToText);
    expect(createHostedTextToSpeech(openai)).toBeInstanceOf(OpenAiTextToSpeech);
    expect(createHostedTextToSpeech(openai)).toMatchObject({ code: 'openai' });
  });
});
