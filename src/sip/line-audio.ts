/**
 * What the SIP gateway plays by itself once Parley has left a call (src/sip/gateway/speak.go, warm.go): the
 * hold music of a warm transfer, the supervisor's briefing, the caller's connected message and the apology when
 * nobody takes a transfer. On Twilio these are TwiML (`<Say>`, a `waitUrl`) the carrier speaks and plays; the
 * gateway is Parley's own carrier, so Parley hands it the audio: μ-law at 8 kHz, what its calls carry.
 */
import { encodeMulaw } from '../lib/audio/mulaw.ts';
import { Resampler } from '../lib/audio/resampler.ts';
import { holdMusicSamples } from '../providers/telephony/hold-music.ts';
import type { TextToSpeech } from '../providers/tts/types.ts';

const LINE_RATE = 8000;

/** The longest text the gateway may ask to hear: a briefing is an opening line (at most 1000) and a short summary. */
export const MAX_SPOKEN_CHARS = 3000;

/** How long one synthesis may take: the gateway gives up on a clip after 15 s and plays on without it. */
const SYNTHESIS_TIMEOUT_MS = 15_000;

/** The longest clip, in samples (3 minutes): its line to the gateway stays within what the pipe's reader takes. */
const MAX_CLIP_SAMPLES = 180 * LINE_RATE;

/** Short clips said again and again (the apology, a connected message) are made once; briefings are each new. */
const CACHED_CLIPS = 32;
const CACHED_TEXT_CHARS = 300;
const clips = new Map<string, Promise<Uint8Array>>();

async function synthesize(tts: TextToSpeech, text: string): Promise<Uint8Array> {
  const enough = new AbortController();
  const late = AbortSignal.timeout(SYNTHESIS_TIMEOUT_MS);
  const speech = tts.synthesize({ text, voice: tts.defaultVoice, language: 'en-US', speed: 1, signal: AbortSignal.any([enough.signal, late]) });
  const resampler = new Resampler(speech.sampleRate, LINE_RATE);
  const parts: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of speech.chunks) {
    const line = encodeMulaw(resampler.process(chunk));
    parts.push(line);
    length += line.length;
    if (length >= MAX_CLIP_SAMPLES) {
      enough.abort();
      break;
    }
  }
  if (late.aborted) throw new Error(`the speech was not made within ${SYNTHESIS_TIMEOUT_MS} ms`);
  return Buffer.concat(parts).subarray(0, MAX_CLIP_SAMPLES);
}

/**
 * `text` spoken by the deployment's default voice (TTS_PROVIDER's, as Twilio's `<Say>` speaks with Twilio's
 * voice whatever the assistant's), as μ-law at 8 kHz.
 */
export function speakForLine(tts: TextToSpeech, text: string): Promise<Uint8Array> {
  const known = clips.get(text);
  if (known) return known;
  const made = synthesize(tts, text);
  if (text.length <= CACHED_TEXT_CHARS) {
    clips.set(text, made);
    made.catch(() => clips.delete(text));
    if (clips.size > CACHED_CLIPS) clips.delete(clips.keys().next().value!);
  }
  return made;
}

const music = new Map<number, Buffer>();

/** The warm transfer's hold music at `volume` (0 to 100), the loop Twilio's callers hear, as μ-law at 8 kHz. */
export function holdMusicMulaw(volume: number): Buffer {
  let loop = music.get(volume);
  if (!loop) {
    loop = Buffer.from(encodeMulaw(holdMusicSamples(volume, LINE_RATE)));
    music.set(volume, loop);
  }
  return loop;
}
