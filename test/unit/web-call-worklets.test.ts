import fs from 'node:fs';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';

const QUANTUM = 128; // samples per AudioWorklet render call

interface Port { sent: any[]; postMessage(message: unknown): void; onmessage: ((event: { data: unknown }) => void) | null }
interface Processor { port: Port; process(inputs: Float32Array[][], outputs: Float32Array[][]): boolean }

/**
 * The AudioWorklet processors of the web call (web/web-call-worklet.js), run as the browser would: in an
 * AudioWorkletGlobalScope stand-in at `rate`, with `currentFrame` advancing one render quantum per `render` call.
 */
function loadWorklets(rate: number) {
  const workletSource = fs.readFileSync('web/web-call-worklet.js', 'utf8');
  const processors = new Map<string, new () => Processor>();
  const scope = vm.createContext({
    sampleRate: rate,
    currentFrame: 0,
    AudioWorkletProcessor: class {
      port: Port = { sent: [], postMessage(message) { this.sent.push(message); }, onmessage: null };
    },
    registerProcessor: (name: string, processor: new () => Processor) => processors.set(name, processor),
  });
  vm.runInContext(workletSource, scope);
  const create = (name: string) => new (processors.get(name)!)();
  const advance = () => { (scope.currentFrame as number) += QUANTUM; };
  return { create, advance };
}

function sines(rate: number, seconds: number, components: [hertz: number, amplitude: number][]): Float32Array {
  return Float32Array.from({ length: Math.round(rate * seconds) }, (_, i) => components.reduce((sum, [hertz, amplitude]) => sum + amplitude * Math.sin((2 * Math.PI * hertz * i) / rate), 0));
}

/** The peak amplitude of the `hertz` component (a single DFT bin; exact over whole cycles). */
function amplitudeAt(samples: ArrayLike<number>, hertz: number, rate: number): number {
  let re = 0;
  let im = 0;
  for (let i = 0; i < samples.length; i += 1) {
    re += samples[i]! * Math.cos((2 * Math.PI * hertz * i) / rate);
    im += samples[i]! * Math.sin((2 * Math.PI * hertz * i) / rate);
  }
  return (2 * Math.hypot(re, im)) / samples.length;
}

describe('the web call capture worklet', () => {
  for (const rate of [48000, 44100]) {
    it(`turns ${rate} Hz microphone audio into 20 ms little-endian PCM16 frames at 16 kHz without aliasing`, () => {
      const { create, advance } = loadWorklets(rate);
      const capture = create('parley-capture');
      // 1 kHz is speech band; 12 kHz is above 8 kHz and would fold onto 4 kHz if samples were only dropped.
      const input = sines(rate, 1.2, [[1000, 0.5], [12000, 0.3]]);
      for (let offset = 0; offset + QUANTUM <= input.length; offset += QUANTUM) {
        capture.process([[input.subarray(offset, offset + QUANTUM)]], []);
        advance();
      }
      const frames = capture.port.sent as ArrayBuffer[];
      expect(frames.length).toBeGreaterThanOrEqual(59);
      expect(frames.every((frame) => frame.byteLength === 640)).toBe(true);
      const samples = frames.flatMap((frame) => {
        const view = new DataView(frame);
        return Array.from({ length: 320 }, (_, i) => view.getInt16(i * 2, true) / 0x8000);
      });
      const steady = samples.slice(1600, 1600 + 16000); // one second, past the filter's start
      expect(amplitudeAt(steady, 1000, 16000)).toBeCloseTo(0.5, 2);
      expect(amplitudeAt(steady, 4000, 16000)).toBeLessThan(0.3e-3);
    });
  }
});

describe('the web call playback worklet', () => {
  const rate = 48000;
  const pcm = (seconds: number) => {
    const view = new DataView(new ArrayBuffer(Math.round(seconds * 16000) * 2));
    sines(16000, seconds, [[1000, 0.5]]).forEach((sample, i) => view.setInt16(i * 2, Math.round(sample * 0x7fff), true));
    return view.buffer;
  };
  function setup() {
    const { create, advance } = loadWorklets(rate);
    const playback = create('parley-playback');
    const receive = (data: unknown) => playback.port.onmessage!({ data });
    const played: number[] = [];
    const render = (quanta: number) => {
      for (let i = 0; i < quanta; i += 1) {
        const output = new Float32Array(QUANTUM);
        playback.process([], [[output]]);
        played.push(...output);
        advance();
      }
    };
    const marks = () => playback.port.sent.filter((message) => message.type === 'mark').map((message) => message.name as string);
    const playing = () => playback.port.sent.filter((message) => message.type === 'playing').map((message) => message.playing as boolean);
    return { receive, render, played, marks, playing };
  }

  it('plays 20 ms payloads at the device rate without gaps and answers a mark once the audio before it has played', () => {
    const { receive, render, played, marks, playing } = setup();
    const second = pcm(1);
    for (let offset = 0; offset < second.byteLength; offset += 640) receive({ type: 'audio', pcm: second.slice(offset, offset + 640) });
    receive({ type: 'mark', name: 'greeting' });
    render(Math.floor((rate * 0.98) / QUANTUM));
    expect(marks()).toEqual([]);
    render(Math.ceil((rate * 0.04) / QUANTUM));
    expect(marks()).toEqual(['greeting']);

    const steady = played.slice(4800, 4800 + 38400);
    expect(amplitudeAt(steady, 1000, rate)).toBeCloseTo(0.5, 2);
    // A 1 kHz sine at 48 kHz moves at most 0.5 * 2π/48 per sample; a gap between payloads would jump.
    const largestStep = Math.max(...steady.slice(1).map((sample, i) => Math.abs(sample - steady[i]!)));
    expect(largestStep).toBeLessThan(0.07);

    render(Math.ceil((rate * 0.2) / QUANTUM));
    expect(playing()).toEqual([true, false]);
  });

  it('drops queued audio on clear and answers the pending marks at once', () => {
    const { receive, render, played, marks, playing } = setup();
    receive({ type: 'audio', pcm: pcm(2) });
    receive({ type: 'mark', name: 'long-reply' });
    render(20);
    expect(marks()).toEqual([]);
    receive({ type: 'clear' });
    expect(marks()).toEqual(['long-reply']);
    expect(playing()).toEqual([true, false]);
    const before = played.length;
    render(10);
    expect(played.slice(before).every((sample) => sample === 0)).toBe(true);

    receive({ type: 'mark', name: 'nothing-queued' });
    render(1);
    expect(marks()).toEqual(['long-reply', 'nothing-queued']);
  });
});
