"""Whisper speech-to-text worker, one of a pool that src/providers/stt/whisper-local.ts supervises.

    python whisper_worker.py <model-dir> [<language>]      (env THREADS: CPU threads, default 1)

The model (a CTranslate2 Whisper folder) and the language (ISO 639-1, `en` by default) are the worker's
parameters: a pool runs workers of one model for one language. A multilingual model is told the language, so
it never guesses it per utterance (a short one is often guessed wrong) and never translates; an English-only
model (`*.en`) takes only `en`.

Protocol on stdin/stdout, one request at a time:
  in:  a 4-byte little-endian byte count, then that many bytes of PCM16 mono at 16 kHz (one utterance);
  out: one JSON line per request, {"text", "audio_ms", "cpu_ms", "ms", "frames", "no_speech_prob", "guard"}
       or {"error"}; `guard` names what was dropped from the model's output, if anything.
A line {"ready": true} is written once the model is loaded. The worker ends at end of input.

The features are Whisper's log-mel spectrogram, computed here from its definition (25 ms Hann windows every
10 ms, 80 Slaney mel bands to 8 kHz, log10 clamped 8 decades below the peak, scaled to about [-1, 1]), so
the venv needs only CTranslate2 and numpy. The encoder sees a window just longer than the utterance instead
of Whisper's fixed 30 s (a fifth of the CPU on a short answer), padded with silence as Whisper pads its own.

Each utterance is decoded on its own, never conditioned on earlier text, and with timestamps: they tell where
the words the model writes lie in the audio, so words placed after the audio's end (a continuation the short
window invites) are dropped. Two guards remain for what the timestamps miss: a tail repeating the utterance's
own words is cut, and an utterance the model judges to hold no speech (Whisper's no-speech probability with a
low average log-probability, as in its reference decoder) comes back empty. Sound annotations ("(coughs)",
"[BLANK_AUDIO]") are not words and are dropped too.
"""

import json
import math
import os
import re
import sys
import time

import ctranslate2
import numpy as np

SAMPLE_RATE = 16000
N_FFT = 400
HOP = 160
N_MELS = 80
# Whisper's encoder takes at most 30 s, 3000 feature frames; shorter windows go down to 6 s.
MAX_FRAMES = 3000
MIN_FRAMES = 600
SECONDS_PER_TIMESTAMP = 0.02
# Output tokens allowed per second of audio (speech carries 3-4 words a second) plus the timestamps: a bound on
# a runaway decode. CTranslate2 4.8's Whisper `max_length` gave at most half its value in tokens (measured:
# 24 gave 12), hence the factor 2 where it is passed.
TOKENS_PER_SECOND = 5
# Whisper's reference decoder calls a segment silent at these two (openai/whisper, transcribe.py defaults).
NO_SPEECH_PROB = 0.6
LOW_LOGPROB = -1.0
# Words of a timestamped segment that starts this close to the audio's end (or later) are a continuation.
END_MARGIN_SECONDS = 0.1
ANNOTATION = re.compile(r"\s*(\[[^\]]*\]|\([^)]*\)|\*[^*]*\*)\s*")


def slaney_hz_to_mel(hz):
    hz = np.asarray(hz, dtype=np.float64)
    linear = hz / (200.0 / 3)
    log_region = 15.0 + np.log(np.maximum(hz, 1e-9) / 1000.0) / (math.log(6.4) / 27.0)
    return np.where(hz >= 1000.0, log_region, linear)


def slaney_mel_to_hz(mel):
    mel = np.asarray(mel, dtype=np.float64)
    linear = mel * (200.0 / 3)
    log_region = 1000.0 * np.exp((math.log(6.4) / 27.0) * (mel - 15.0))
    return np.where(mel >= 15.0, log_region, linear)


def mel_filters():
    """Triangular filters evenly spaced on the Slaney mel scale, each normalized to unit area."""
    fft_hz = np.linspace(0, SAMPLE_RATE / 2, N_FFT // 2 + 1)
    edges = slaney_mel_to_hz(np.linspace(slaney_hz_to_mel(0.0), slaney_hz_to_mel(SAMPLE_RATE / 2), N_MELS + 2))
    filters = np.zeros((N_MELS, fft_hz.size))
    for band in range(N_MELS):
        low, centre, high = edges[band], edges[band + 1], edges[band + 2]
        rising = (fft_hz - low) / (centre - low)
        falling = (high - fft_hz) / (high - centre)
        filters[band] = np.maximum(0.0, np.minimum(rising, falling)) * (2.0 / (high - low))
    return filters.astype(np.float32)


FILTERS = mel_filters()
# A periodic Hann window, as Whisper's reference implementation uses.
WINDOW = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(N_FFT) / N_FFT)).astype(np.float32)


def log_mel(audio):
    padded = np.pad(audio, N_FFT // 2, mode="reflect")
    count = 1 + (padded.size - N_FFT) // HOP
    frames = np.lib.stride_tricks.as_strided(padded, (count, N_FFT), (padded.strides[0] * HOP, padded.strides[0]))
    power = np.abs(np.fft.rfft(frames * WINDOW, axis=1)) ** 2
    # The last frame is dropped, so n samples give n / HOP frames.
    mel = FILTERS @ power[:-1].T
    logs = np.log10(np.maximum(mel, 1e-10))
    logs = np.maximum(logs, logs.max() - 8.0)
    return ((logs + 4.0) / 4.0).astype(np.float32)


def window_frames(audio_frames):
    """The encoder window: the utterance plus a second, rounded up to 2 s, between 6 s and 30 s."""
    return min(MAX_FRAMES, max(MIN_FRAMES, int(math.ceil((audio_frames + 100) / 200.0)) * 200))


def byte_decoder():
    """GPT-2's byte-level BPE alphabet: printable bytes stand for themselves, the rest for code points from 256."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    table = {chr(b): b for b in printable}
    extra = 0
    for b in range(256):
        if b not in printable:
            table[chr(256 + extra)] = b
            extra += 1
    return table


def words_of(text):
    return [re.sub(r"[^\w']", "", word.lower()) for word in text.split()]


def cut_repetition(text):
    """
    The text without a tail that repeats its own words: a phrase said again at the end ("Yes. Yes.", "Not
    today. Not today.") once it starts a new sentence or runs to three words, and any run of one phrase three
    times or more. "Bye bye" and "four four" are what people say, and stay.
    """
    words = text.split()
    keys = words_of(text)
    count = len(words)
    for start in range(1, count):
        tail = keys[start:]
        for origin in range(0, start):
            if keys[origin:origin + len(tail)] != tail:
                continue
            sentence_break = re.search(r"[.!?,]$", words[start - 1]) is not None
            if len(tail) >= 3 or sentence_break:
                return " ".join(words[:start]).rstrip(",")
    for size in range(1, count // 3 + 1):
        for start in range(0, count - 3 * size + 1):
            unit = keys[start:start + size]
            if keys[start + size:start + 2 * size] == unit and keys[start + 2 * size:start + 3 * size] == unit:
                end = start + size
                while keys[end:end + size] == unit:
                    end += size
                return " ".join(words[:start + size] + words[end:])
    return text


class Transcriber:
    def __init__(self, model_dir, language, threads):
        self.model = ctranslate2.models.Whisper(model_dir, device="cpu", compute_type="int8", intra_threads=threads, inter_threads=1)
        with open(os.path.join(model_dir, "vocabulary.txt"), encoding="utf-8") as vocabulary:
            self.tokens = vocabulary.read().split("\n")
        ids = {token: index for index, token in enumerate(self.tokens)}
        self.end_of_text = ids["<|endoftext|>"]
        self.first_timestamp = ids["<|0.00|>"]
        # A multilingual model is told the language and the task; an English-only one takes neither.
        if self.model.is_multilingual:
            if f"<|{language}|>" not in ids:
                raise ValueError(f"the model has no language {language}")
            self.prompt = [ids["<|startoftranscript|>"], ids[f"<|{language}|>"], ids["<|transcribe|>"]]
        elif language != "en":
            raise ValueError(f"the model hears only English, not {language}")
        else:
            self.prompt = [ids["<|startoftranscript|>"]]
        self.bytes = byte_decoder()

    def decode(self, ids):
        raw = bytes(self.bytes[char] for token in ids if token < self.end_of_text for char in self.tokens[token])
        return raw.decode("utf-8", errors="replace").strip()

    def spoken(self, ids, seconds):
        """The text of the segments that start inside the audio, and whether any were dropped."""
        kept, segment, start, dropped = [], [], 0.0, False
        for token in ids + [self.end_of_text]:
            if token < self.end_of_text:
                segment.append(token)
                continue
            if token >= self.first_timestamp and not segment:
                start = (token - self.first_timestamp) * SECONDS_PER_TIMESTAMP
                continue
            if segment:
                if start < seconds - END_MARGIN_SECONDS:
                    kept.extend(segment)
                else:
                    dropped = True
                segment = []
        return self.decode(kept), dropped

    def transcribe(self, pcm):
        audio = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
        seconds = audio.size / SAMPLE_RATE
        audio = audio[: MAX_FRAMES * HOP]
        frames = window_frames(audio.size // HOP)
        # Silence after the utterance, in the waveform: the features of the padding are those of silence.
        features = log_mel(np.pad(audio, (0, frames * HOP - audio.size)))[:, :frames]
        result = self.model.generate(
            ctranslate2.StorageView.from_array(np.ascontiguousarray(features[None])),
            [self.prompt],
            beam_size=1,
            max_length=2 * (int(math.ceil(seconds * TOKENS_PER_SECOND)) + 4),
            suppress_blank=True,
            suppress_tokens=[-1],
            return_scores=True,
            return_no_speech_prob=True,
        )[0]
        text, past_end = self.spoken(result.sequences_ids[0], seconds)
        guards = ["past_end"] if past_end else []
        if result.no_speech_prob > NO_SPEECH_PROB and result.scores[0] < LOW_LOGPROB:
            return "", frames, result.no_speech_prob, guards + ["no_speech"]
        words = ANNOTATION.sub(" ", text).strip()
        if words != text:
            guards.append("annotation")
        once = cut_repetition(words)
        if once != words:
            guards.append("repetition")
        return once, frames, result.no_speech_prob, guards


def read_exactly(stream, size):
    data = bytearray()
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            return None
        data.extend(chunk)
    return bytes(data)


def reply(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    transcriber = Transcriber(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "en", int(os.environ.get("THREADS", "1")))
    reply({"ready": True})
    stdin = sys.stdin.buffer
    while True:
        header = read_exactly(stdin, 4)
        if header is None:
            return
        size = int.from_bytes(header, "little")
        pcm = read_exactly(stdin, size)
        if pcm is None:
            return
        started, cpu_started = time.monotonic(), time.process_time()
        try:
            text, frames, no_speech, guards = transcriber.transcribe(pcm[: size - size % 2])
        except Exception as error:  # one bad utterance must not end the worker
            reply({"error": f"{type(error).__name__}: {error}"})
            continue
        reply({
            "text": text,
            "audio_ms": round(size / 2 / SAMPLE_RATE * 1000),
            "cpu_ms": round((time.process_time() - cpu_started) * 1000, 1),
            "ms": round((time.monotonic() - started) * 1000, 1),
            "frames": frames,
            "no_speech_prob": round(no_speech, 3),
            "guard": guards,
        })


if __name__ == "__main__":
    main()
