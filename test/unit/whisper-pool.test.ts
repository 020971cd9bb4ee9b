import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { SpeechProviderError } from '../../src/providers/stt/types.ts';
import { createWhisperLocal } from '../../src/providers/stt/whisper-local.ts';

const logger = createLogger({ log: { level: 'silent', pretty: false } });
const options = { language: 'en-US', sampleRate: 16000, signal: new AbortController().signal };

describe('the local Whisper pool without an installed model', () => {
  it('fails the waiting utterance with the reason once its workers cannot start, without retrying for ever', async () => {
    const whisper = createWhisperLocal({ speechDir: '/nonexistent/speech', workers: 2, queueLimit: 4, logger });
    const error = await whisper.transcribe(new Int16Array(1600), options).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SpeechProviderError);
    expect((error as SpeechProviderError).retryable).toBe(false);
    expect((error as Error).message).toMatch(/cannot start: .*ENOENT/);
    expect(whisper.workerPids()).toEqual([]);
    await whisper.close();
    await expect(whisper.transcribe(new Int16Array(1600), options)).rejects.toThrow(/closed/);
  });

  it('refuses audio at another rate than 16 kHz', async () => {
    const whisper = createWhisperLocal({ speechDir: '/nonexistent/speech', workers: 1, queueLimit: 1, logger });
    await expect(whisper.transcribe(new Int16Array(800), { ...options, sampleRate: 8000 })).rejects.toThrow(/16000 Hz/);
    await whisper.close();
  });
});
