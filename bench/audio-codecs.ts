/**
 * The cost of the audio edge per 20 ms frame, which every call pays 50 times a second in each direction:
 * μ-law encode and decode (160 samples), resampling 8k → 16k (160 samples in) and 16k → 8k (320 in), and a
 * carrier stream's whole inbound and outbound path (base64, μ-law, resampling). Each figure is the median of
 * several rounds, in ns per frame, with its share of the frame's 20 ms of real time and its ratio to a plain
 * copy of the same input frame.
 *
 *   npm run bench:audio-codecs -- [--frames 20000] [--rounds 7]
 */
import { parseArgs } from 'node:util';
import { FRAME_MS } from '../src/voice/audio/frames.ts';
import { decodeMulaw, encodeMulaw } from '../src/lib/audio/mulaw.ts';
import { Resampler } from '../src/lib/audio/resampler.ts';
import { MediaStreamAudio } from '../src/voice/serializers/media-audio.ts';
import { percentile } from './percentile.ts';

const { values } = parseArgs({ options: { frames: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '7' } } });
const frames = Number(values.frames);
const rounds = Number(values.rounds);

function speech(rate: number): Int16Array {
  return Int16Array.from({ length: (rate * FRAME_MS) / 1000 }, (_, i) => Math.round(9000 * Math.sin(i * 0.37) + 4000 * Math.sin(i * 1.9)));
}

/** Median ns per call of `run` over `frames` calls, in `rounds` rounds after one round of warm-up. */
function measure(run: () => number): number {
  let sink = 0;
  const perFrame: number[] = [];
  for (let round = 0; round <= rounds; round++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < frames; i++) sink += run();
    const elapsed = Number(process.hrtime.bigint() - started) / frames;
    if (round > 0) perFrame.push(elapsed);
  }
  if (sink === Number.MIN_VALUE) console.log(sink); // keeps the results alive
  return percentile(perFrame.sort((a, b) => a - b), 50);
}

const narrow = speech(8000);
const wide = speech(16000);
const narrowCodes = encodeMulaw(narrow);
const carrier = new MediaStreamAudio({ encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 });
const inboundPayload = Buffer.from(narrowCodes).toString('base64');
const up = new Resampler(8000, 16000);
const down = new Resampler(16000, 8000);

const cases: { name: string; run: () => number; copy: () => number }[] = [
  { name: 'μ-law encode (160 samples)', run: () => encodeMulaw(narrow).length, copy: () => narrow.slice().length },
  { name: 'μ-law decode (160 bytes)', run: () => decodeMulaw(narrowCodes).length, copy: () => narrowCodes.slice().length },
  { name: 'resample 8k → 16k (160 in)', run: () => up.process(narrow).length, copy: () => narrow.slice().length },
  { name: 'resample 16k → 8k (320 in)', run: () => down.process(wide).length, copy: () => wide.slice().length },
  { name: 'carrier inbound payload → 16k', run: () => carrier.decode(inboundPayload).length, copy: () => narrowCodes.slice().length },
  { name: 'carrier outbound 16k → payload', run: () => carrier.encode(wide).length, copy: () => wide.slice().length },
];

const frameNs = FRAME_MS * 1e6;
console.log(`${frames} frames × ${rounds} rounds, median ns per ${FRAME_MS} ms frame (Node ${process.version})`);
console.log(`${'operation'.padEnd(34)}${'ns/frame'.padStart(10)}${'% of 20 ms'.padStart(12)}${'× copy'.padStart(9)}`);
for (const { name, run, copy } of cases) {
  const ns = measure(run);
  const copyNs = measure(copy);
  console.log(`${name.padEnd(34)}${ns.toFixed(0).padStart(10)}${((100 * ns) / frameNs).toFixed(4).padStart(12)}${(ns / copyNs).toFixed(1).padStart(9)}`);
}
