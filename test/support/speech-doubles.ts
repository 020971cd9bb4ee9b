/**
 * In-memory stand-ins for the speech interfaces, for tests of the voice engine: a voice activity detector
 * that hears energy, a recognizer that knows utterances by their pitch, a synthesizer that speaks a tone as
 * long as the text, and a language model answering from a script. No models, no network.
 */
import type { ChatEvent, ChatRequest, LanguageModel, ToolCall } from '../../src/providers/llm/types.ts';
import type { SegmentSpeechToText, StreamingSpeechToText, TranscriptEvent } from '../../src/providers/stt/types.ts';
import type { SynthesisRequest, TextToSpeech } from '../../src/providers/tts/types.ts';
import type { TurnDetector } from '../../src/providers/turn/types.ts';
import type { VadFactory, VadOptions } from '../../src/providers/vad/types.ts';

/** A sine tone of `ms` at `frequency`, PCM16 at 16 kHz. */
export function tone(frequency: number, ms: number, amplitude = 8000, rate = 16000): Int16Array {
  return Int16Array.from({ length: (rate * ms) / 1000 }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * frequency * i) / rate)));
}

function rms(frame: Int16Array): number {
  let sum = 0;
  for (const sample of frame) sum += sample * sample;
  return Math.sqrt(sum / Math.max(frame.length, 1));
}

/** Speech is any frame louder than `threshold` RMS; onsets and ends follow the detector options' durations. */
export function energyVad(threshold = 1000): VadFactory & { created: VadOptions[] } {
  const created: VadOptions[] = [];
  return {
    name: 'energy',
    created,
    create(options, listener) {
      created.push(options);
      let streamMs = 0;
      let voicedRun = 0;
      let silentRun = 0;
      let speaking = false;
      let onset = 0;
      let lastVoiced = 0;
      let audio: Int16Array[] = [];
      return {
        push(frame) {
          const ms = (frame.length * 1000) / options.sampleRate;
          const voiced = rms(frame) > threshold;
          if (voiced) {
            if (voicedRun === 0 && !speaking) onset = streamMs;
            voicedRun += ms;
            silentRun = 0;
            lastVoiced = streamMs + ms;
          } else {
            voicedRun = speaking ? voicedRun : 0;
            silentRun += ms;
          }
          if (speaking || voicedRun > 0) audio.push(frame);
          streamMs += ms;
          if (!speaking && voicedRun >= options.minSpeechMs) {
            speaking = true;
            listener({ type: 'speech_start', atMs: onset });
          } else if (speaking && silentRun >= options.minSilenceMs) {
            speaking = false;
            voicedRun = 0;
            const total = audio.reduce((sum, part) => sum + part.length, 0);
            const joined = new Int16Array(total);
            let offset = 0;
            for (const part of audio) {
              joined.set(part, offset);
              offset += part.length;
            }
            audio = [];
            listener({ type: 'speech_end', atMs: lastVoiced, audio: joined });
          } else if (!speaking && voicedRun === 0) {
            audio = [];
          }
        },
        close() {},
      };
    },
  };
}

/** The pitch of a tone in Hz, from its zero crossings between its first and last loud sample. */
export function pitchOf(samples: Int16Array, rate = 16000): number {
  let first = -1;
  let last = -1;
  for (let i = 0; i < samples.length; i++) {
    if (Math.abs(samples[i]!) <= 500) continue;
    if (first < 0) first = i;
    last = i;
  }
  if (last <= first) return 0;
  let crossings = 0;
  for (let i = first + 1; i <= last; i++) if ((samples[i - 1]! < 0) !== (samples[i]! < 0)) crossings++;
  return (crossings / 2) * (rate / (last - first));
}

/**
 * A segment recognizer that maps each tone's pitch to words (the nearest pitch of `words` within 10 %): a
 * segment holding several tones apart by silence (a turn with a pause in it) is heard as their words in order.
 */
export function toneStt(words: Record<number, string>, delayMs = 20): SegmentSpeechToText & { heard: string[]; languages: string[] } {
  const heard: string[] = [];
  const languages: string[] = [];
  return {
    kind: 'segment',
    name: 'tone',
    heard,
    languages,
    async transcribe(audio, options) {
      languages.push(options.language);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      const text = tonesOf(audio).map((tone) => textFor(words, tone)).filter(Boolean).join(' ');
      heard.push(text);
      return { text };
    },
  };
}

/**
 * A streaming recognizer hearing every frame: while a tone lasts it sends the first word of its text as a
 * partial, and a final with the whole text 100 ms after the tone stops (as a hosted recognizer would).
 */
export function streamingToneStt(words: Record<number, string>): StreamingSpeechToText & { frames: number } {
  const recognizer = {
    kind: 'streaming' as const,
    name: 'tone-streaming',
    frames: 0,
    open(options: { signal: AbortSignal }) {
      const events: TranscriptEvent[] = [];
      let wake: (() => void) | undefined;
      let closed = false;
      let utterance: Int16Array[] = [];
      let quietMs = 0;
      const emit = (event: TranscriptEvent) => {
        events.push(event);
        wake?.();
      };
      options.signal.addEventListener('abort', () => { closed = true; wake?.(); });
      return {
        write(frame: Int16Array) {
          recognizer.frames++;
          const loud = rms(frame) > 1000;
          if (loud) {
            quietMs = 0;
            utterance.push(frame);
            if (utterance.length === 5) {
              const text = textFor(words, joinFrames(utterance));
              if (text) emit({ type: 'partial', text: text.split(' ')[0]! });
            }
          } else if (utterance.length > 0 && (quietMs += 20) >= 100) {
            const text = textFor(words, joinFrames(utterance));
            utterance = [];
            if (text) emit({ type: 'final', text });
            emit({ type: 'utterance_end' });
          }
        },
        close() {
          closed = true;
          wake?.();
        },
        events: (async function* () {
          for (;;) {
            const event = events.shift();
            if (event) {
              yield event;
              continue;
            }
            if (closed) return;
            await new Promise<void>((resolve) => { wake = resolve; });
          }
        })(),
      };
    },
  };
  return recognizer;
}

function joinFrames(frames: Int16Array[]): Int16Array {
  const joined = new Int16Array(frames.reduce((sum, frame) => sum + frame.length, 0));
  let offset = 0;
  for (const frame of frames) {
    joined.set(frame, offset);
    offset += frame.length;
  }
  return joined;
}

/** The stretches of sound in `audio` that at least 100 ms of quiet sets apart. */
function tonesOf(audio: Int16Array, rate = 16000): Int16Array[] {
  const tones: Int16Array[] = [];
  const gap = rate / 10;
  let start = -1;
  let lastLoud = -1;
  for (let i = 0; i <= audio.length; i++) {
    const loud = i < audio.length && Math.abs(audio[i]!) > 500;
    if (loud) {
      if (start < 0) start = i;
      lastLoud = i;
    } else if (start >= 0 && (i === audio.length || i - lastLoud > gap)) {
      tones.push(audio.subarray(start, lastLoud + 1));
      start = -1;
    }
  }
  return tones;
}

/** A turn model that scores every pause by the queue given, then `fallback`; it answers after `delayMs`. */
export function scriptedTurnModel(fallback = 0.9, delayMs = 10): TurnDetector & { scores: number[]; heard: Int16Array[] } {
  const scores: number[] = [];
  const heard: Int16Array[] = [];
  return {
    name: 'scripted-turn',
    scores,
    heard,
    async score(audio, signal) {
      heard.push(audio);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      signal.throwIfAborted();
      return scores.shift() ?? fallback;
    },
  };
}

function textFor(words: Record<number, string>, audio: Int16Array): string {
  const pitch = pitchOf(audio);
  return Object.entries(words).find(([frequency]) => Math.abs(Number(frequency) - pitch) < Number(frequency) * 0.1)?.[1] ?? '';
}

/** A synthesizer speaking a 600 Hz tone of `msPerChar` per character, at 22.05 kHz, in 40 ms chunks. */
export function toneTts(options: { msPerChar?: number; firstChunkMs?: number } = {}): TextToSpeech & { requests: SynthesisRequest[] } {
  const msPerChar = options.msPerChar ?? 12;
  const requests: SynthesisRequest[] = [];
  const rate = 22050;
  return {
    name: 'tone',
    code: 'tone',
    defaultVoice: 'tone-voice',
    requests,
    synthesize(request) {
      requests.push(request);
      const total = Math.round((rate * request.text.length * msPerChar) / 1000);
      const chunk = Math.round(rate * 0.04);
      return {
        sampleRate: rate,
        chunks: (async function* () {
          await new Promise((resolve) => setTimeout(resolve, options.firstChunkMs ?? 5));
          for (let offset = 0; offset < total && !request.signal.aborted; offset += chunk) {
            const length = Math.min(chunk, total - offset);
            yield Int16Array.from({ length }, (_, i) => Math.round(6000 * Math.sin((2 * Math.PI * 600 * (offset + i)) / rate)));
            await new Promise((resolve) => setImmediate(resolve));
          }
        })(),
      };
    },
  };
}

/** One scripted answer: words (streamed a piece at a time, `pieceDelayMs` apart) and/or tool calls. */
export interface ScriptedAnswer {
  text?: string;
  pieceDelayMs?: number;
  calls?: Omit<ToolCall, 'id'>[];
}

/**
 * A language model answering from a script (then `fallback`), remembering each request, when it came
 * (`performance.now()`, the clock of the media stream client's marks) and whether its signal aborted while it
 * streamed.
 */
export function scriptedLanguageModel(fallback: (request: ChatRequest) => ScriptedAnswer = () => ({ text: 'OK.' })) {
  const queue: ScriptedAnswer[] = [];
  const requests: ChatRequest[] = [];
  const requestedAt: number[] = [];
  const aborted: ChatRequest[] = [];
  const model: LanguageModel = {
    async *stream(request): AsyncIterable<ChatEvent> {
      requests.push({ ...request, messages: [...request.messages] });
      requestedAt.push(performance.now());
      const answer = queue.shift() ?? fallback(request);
      const signal = request.signal;
      signal?.addEventListener('abort', () => aborted.push(request), { once: true });
      await new Promise((resolve) => setTimeout(resolve, 5));
      for (const piece of (answer.text ?? '').split(/(?<= )/)) {
        if (!piece) continue;
        if (signal?.aborted) throw signal.reason;
        yield { type: 'token', text: piece };
        if (answer.pieceDelayMs) await new Promise((resolve) => setTimeout(resolve, answer.pieceDelayMs));
      }
      if (answer.calls) yield { type: 'tool_calls', calls: answer.calls.map((call, index) => ({ id: `call_${requests.length}_${index}`, ...call })) };
      yield { type: 'done', finishReason: answer.calls ? 'tool_calls' : 'stop' };
    },
  };
  return { model, requests, requestedAt, aborted, script: (...answers: ScriptedAnswer[]) => queue.push(...answers) };
}
