import { Resampler } from '../../lib/audio/resampler.ts';
import { createEspeakTts } from '../../providers/tts/espeak.ts';
import { LINE_RATE } from './line.ts';

/**
 * The callees' voice: espeak-ng (a child process per line, never the event loop) at the line's 8 kHz, each
 * line made once per process; and the voicemail's beep.
 */
export class CalleeVoice {
  private readonly espeak = createEspeakTts();
  private readonly made = new Map<string, Promise<Int16Array>>();

  speak(text: string): Promise<Int16Array> {
    let line = this.made.get(text);
    if (!line) {
      line = this.synthesize(text);
      // A line that failed is made again next time.
      line.catch(() => this.made.delete(text));
      this.made.set(text, line);
    }
    return line;
  }

  private async synthesize(text: string): Promise<Int16Array> {
    const speech = this.espeak.synthesize({ text, voice: 'en-us+m3', language: 'en', speed: 1, signal: new AbortController().signal });
    const resampler = new Resampler(speech.sampleRate, LINE_RATE);
    const parts: Int16Array[] = [];
    for await (const chunk of speech.chunks) parts.push(resampler.process(chunk));
    const joined = new Int16Array(parts.reduce((total, part) => total + part.length, 0));
    let offset = 0;
    for (const part of parts) {
      joined.set(part, offset);
      offset += part.length;
    }
    return joined;
  }
}

/** The answering machine's tone: 1 kHz for 400 ms. */
export function beep(): Int16Array {
  const samples = new Int16Array(LINE_RATE * 0.4);
  for (let i = 0; i < samples.length; i++) samples[i] = Math.round(8000 * Math.sin((2 * Math.PI * 1000 * i) / LINE_RATE));
  return samples;
}
