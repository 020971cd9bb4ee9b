/**
 * The voice engine served on a real WebSocket for tests: a loopback HTTP server whose upgrades run
 * runCallSession with in-memory speech doubles and a scripted language model, and a scripted Media Streams
 * caller connected to it. Each call records its turns, end reason and (when recording) its WAV.
 */
import http from 'node:http';
import { WebSocketServer } from 'ws';
import type { AgentPorts } from '../../src/agent/ports.ts';
import type { AgentProfile } from '../../src/agent/profile.ts';
import { createLogger } from '../../src/logger.ts';
import type { ChatMessage } from '../../src/providers/llm/types.ts';
import type { RealtimeModel } from '../../src/providers/realtime/types.ts';
import type { TurnDetector } from '../../src/providers/turn/types.ts';
import type { CallTurn, EndReason } from '../../src/voice/hooks.ts';
import type { PhoneLine } from '../../src/voice/line.ts';
import { runCallSession, type CallSetup, type RunningCall } from '../../src/voice/run.ts';
import { DEFAULT_VOICE_SETTINGS, type VoiceSettings } from '../../src/voice/settings.ts';
import type { StreamStart } from '../../src/voice/transports/media-stream.ts';
import type { Verdict } from '../../src/voice/voicemail/judge.ts';
import { connectMediaStream, type MediaStreamClient } from './media-stream-client.ts';
import type { MediaFormat } from '../../src/voice/serializers/twilio.ts';
import { listenOnLoopback } from './ports.ts';
import { energyVad, scriptedLanguageModel, streamingToneStt, tone, toneStt, toneTts } from './speech-doubles.ts';

/** The caller's utterances the recognizer double knows, by pitch. */
export const UTTERANCES = {
  hours: { pitch: 300, text: 'What are your opening hours?' },
  book: { pitch: 420, text: 'Please book a table for two tonight.' },
  uhHuh: { pitch: 520, text: 'uh-huh' },
  stop: { pitch: 640, text: 'Wait, stop, I have a question.' },
  bye: { pitch: 760, text: 'That is all, goodbye.' },
  voicemail: { pitch: 360, text: 'Hi, this is Anna. Please leave a message after the tone.' },
} as const;

export function testProfile(overrides: Partial<AgentProfile> = {}): AgentProfile {
  return {
    assistantId: 1, assistantUuid: '00000000-0000-4000-8000-000000000001', userId: 1, name: 'Receptionist',
    systemPrompt: 'You are the receptionist of {{business}}.', initialMessage: 'Hello {{name}}, how can I help?',
    variables: { business: 'Trattoria Roma' }, modelName: 'test-model', temperature: 0.2, timezone: 'UTC',
    knowledgebaseId: null, knowledgebaseMode: 'function_call', endCallDescription: undefined, httpTools: [], lineTools: [],
    ...overrides,
  };
}

export interface HarnessOptions {
  settings?: Partial<VoiceSettings>;
  profile?: Partial<AgentProfile>;
  maxSeconds?: number;
  limitReason?: 'max_duration' | 'balance_exhausted';
  variables?: Record<string, unknown>;
  searchKnowledge?: AgentPorts['searchKnowledge'];
  fillerAfterMs?: number;
  ttsMsPerChar?: number;
  /** A streaming recognizer instead of the segment one. */
  streamingStt?: boolean;
  /** The turn model; none (the policy decides by silence and words) by default. */
  turn?: TurnDetector;
  /** How long the segment recognizer takes per utterance (a loaded machine's Whisper). */
  sttDelayMs?: number;
  /** `load` fails with this instead of setting the call up. */
  loadError?: Error;
  /** How long `load` takes (the media role reads the call and waits for its time limit). */
  loadDelayMs?: number;
  /** The speech-to-speech model for `settings.mode: 'multimodal'`. */
  realtime?: RealtimeModel;
  /** The client HTTP tools call out through; none by default. */
  fetch?: AgentPorts['fetch'];
  /** The carrier of a phone call, for the transfer tools; none (a web call) by default. */
  phone?: PhoneLine;
  /** The owner's other assistants, for `assistant_transfer`; none by default. */
  assistants?: CallSetup['assistants'];
  /** Judge who answered, as for an outbound phone call. */
  screen?: boolean;
}

export interface HarnessCall {
  client: MediaStreamClient;
  start: Promise<StreamStart>;
  turns: CallTurn[];
  /** When the session answered, as it told its hooks: the date its turns' offsets count from. */
  answeredAt: Date | undefined;
  /** The verdicts on who answered, as reported. */
  verdicts: Verdict[];
  ended: Promise<EndReason>;
  running: Promise<RunningCall>;
  recording: { chunks: Buffer[]; header: Buffer | undefined };
}

export async function startVoiceHarness(options: HarnessOptions = {}) {
  const logger = createLogger({ log: { level: 'silent', pretty: false } });
  const llm = scriptedLanguageModel();
  const tts = toneTts({ msPerChar: options.ttsMsPerChar ?? 12 });
  const words = Object.fromEntries(Object.values(UTTERANCES).map((utterance) => [utterance.pitch, utterance.text]));
  const stt = toneStt(words, options.sttDelayMs);
  const streaming = streamingToneStt(words);
  const vad = energyVad();
  const settings: VoiceSettings = {
    ...DEFAULT_VOICE_SETTINGS, endpointSensitivity: 5, reengagementMs: 60_000, maxSilenceMs: 120_000, voiceId: 'tone-voice', ...options.settings,
  };
  const server = http.createServer();
  const upgrades = new WebSocketServer({ server });
  const pending: ((call: Omit<HarnessCall, 'client'>) => void)[] = [];
  upgrades.on('connection', (socket) => {
    let resolveStart: (start: StreamStart) => void = () => undefined;
    let resolveEnded: (reason: EndReason) => void = () => undefined;
    const call: Omit<HarnessCall, 'client' | 'running'> = {
      start: new Promise((resolve) => { resolveStart = resolve; }),
      turns: [],
      answeredAt: undefined,
      verdicts: [],
      ended: new Promise((resolve) => { resolveEnded = resolve; }),
      recording: { chunks: [], header: undefined },
    };
    const running = runCallSession({
      socket,
      providers: { llm: llm.model, stt: options.streamingStt ? streaming : stt, tts, vad, turn: options.turn, realtime: options.realtime },
      logger,
      tuning: { fillerAfterMs: options.fillerAfterMs ?? 300 },
      hooks: {
        onAnswered: (at) => { call.answeredAt = at; },
        onTurn: (turn) => call.turns.push(turn),
        onAnsweredBy: (verdict) => call.verdicts.push(verdict),
        onEnded: (reason) => resolveEnded(reason),
      },
      load: async (start): Promise<CallSetup> => {
        resolveStart(start);
        if (options.loadDelayMs) await new Promise((resolve) => setTimeout(resolve, options.loadDelayMs));
        if (options.loadError) throw options.loadError;
        return {
          profile: testProfile(options.profile),
          settings,
          ports: { searchKnowledge: options.searchKnowledge ?? (() => Promise.resolve([])), fetch: options.fetch ?? (() => Promise.reject(new Error('no fetch in tests'))), now: () => performance.now() },
          modelName: settings.mode === 'multimodal' ? 'test-realtime-model' : 'test-model',
          variables: options.variables ?? { name: 'Anna' },
          maxSeconds: options.maxSeconds ?? 60,
          screen: options.screen === true,
          ...(options.phone ? { phone: options.phone } : {}),
          ...(options.assistants ? { assistants: options.assistants } : {}),
          ...(options.limitReason ? { limitReason: options.limitReason } : {}),
          recording: {
            write: (chunk) => { call.recording.chunks.push(chunk); return Promise.resolve(); },
            finish: (header) => { call.recording.header = header; return Promise.resolve(); },
          },
        };
      },
    });
    pending.shift()?.(Object.assign(call, { running: Promise.resolve(running) }));
  });
  const { url, close } = await listenOnLoopback(server);
  const wsUrl = url.replace('http', 'ws');

  return {
    llm, tts, stt, streaming, vad, settings, wsUrl,
    /** Connects a caller and starts its stream. */
    async call(format: MediaFormat, customParameters: Record<string, string> = {}): Promise<HarnessCall> {
      const accepted = new Promise<Omit<HarnessCall, 'client'>>((resolve) => pending.push(resolve));
      const client = await connectMediaStream(wsUrl, format);
      client.start(customParameters);
      return Object.assign(await accepted, { client });
    },
    async close() {
      for (const socket of upgrades.clients) socket.terminate();
      upgrades.close();
      await close();
    },
  };
}

/** The recording as one WAV file: the final header over the provisional one. */
export function recordedWav(call: HarnessCall): Buffer {
  const file = Buffer.concat(call.recording.chunks);
  call.recording.header?.copy(file, 0);
  return file;
}

/** The caller says one of the known utterances (a tone of its pitch); resolves with its first frame's time. */
export function say(call: HarnessCall, utterance: keyof typeof UTTERANCES, ms = 600): Promise<number> {
  return call.client.say(tone(UTTERANCES[utterance].pitch, ms));
}

/** The call's turns as `role: text` lines. */
export function roles(call: HarnessCall): string[] {
  return call.turns.map((turn) => `${turn.role}: ${turn.text}`);
}

/** The results of the tools the model called, as the messages of its next request carry them. */
export const toolResults = (messages: ChatMessage[]) => messages.filter((message) => message.role === 'tool').map((message) => JSON.parse(message.content) as unknown);
