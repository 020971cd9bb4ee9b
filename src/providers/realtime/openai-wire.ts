/**
 * The OpenAI Realtime API's wire format: the client events Parley sends and the server events it reads, in
 * the generally available interface (session `type: realtime`, `response.output_audio.*` events). The beta
 * interface (the `OpenAI-Beta: realtime=v1` header, `response.audio.*` events) is deprecated (docs/decisions.md).
 * https://platform.openai.com/docs/api-reference/realtime
 */
import type { RealtimeEvent, RealtimeSessionOptions, RealtimeUsage } from './types.ts';

/** OpenAI's PCM16 audio is 24 kHz mono, little-endian, both ways. */
export const OPENAI_SAMPLE_RATE = 24_000;

/** The caller's words are transcribed beside the model, by this model: it is a transcript for people, not the model's input. */
const TRANSCRIPTION_MODEL = 'gpt-4o-mini-transcribe';

const pcmFormat = { type: 'audio/pcm', rate: OPENAI_SAMPLE_RATE } as const;

/** The `session.update` that configures a call's session: audio both ways, server VAD, the call's tools. */
export function sessionUpdate(options: RealtimeSessionOptions): Record<string, unknown> {
  const detection = options.turnDetection;
  return {
    type: 'session.update',
    session: {
      type: 'realtime',
      instructions: options.instructions,
      output_modalities: ['audio'],
      audio: {
        input: {
          format: pcmFormat,
          transcription: {
            model: TRANSCRIPTION_MODEL,
            ...(options.inputTranscriptionLanguage ? { language: options.inputTranscriptionLanguage } : {}),
          },
          turn_detection: {
            type: 'server_vad',
            threshold: detection.threshold,
            silence_duration_ms: detection.silenceMs,
            ...(detection.prefixPaddingMs === undefined ? {} : { prefix_padding_ms: detection.prefixPaddingMs }),
            create_response: true,
            interrupt_response: detection.interruptResponse,
          },
          noise_reduction: options.noiseReduction ? { type: options.noiseReduction } : null,
        },
        output: {
          format: pcmFormat,
          voice: options.voice,
          ...(options.speed === undefined ? {} : { speed: options.speed }),
        },
      },
      tools: options.tools.map((tool) => ({ type: 'function', name: tool.name, description: tool.description, parameters: tool.parameters })),
      tool_choice: 'auto',
    },
  };
}

/** Little-endian PCM16 as base64, without copying the samples. */
export function encodeAudio(pcm: Int16Array): string {
  return Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).toString('base64');
}

/**
 * The samples of a base64 audio delta. A decoded Buffer may sit at an odd offset of Node's shared pool, where
 * no Int16Array view can start: then the bytes are copied once. (Parley runs on little-endian hosts only:
 * x64 and arm64, where the wire's byte order is the machine's.)
 */
export function decodeAudio(base64: string): Int16Array {
  const bytes = Buffer.from(base64, 'base64');
  const even = bytes.length - (bytes.length % 2);
  if (bytes.byteOffset % 2 === 0) return new Int16Array(bytes.buffer, bytes.byteOffset, even / 2);
  return new Int16Array(Uint8Array.prototype.slice.call(bytes, 0, even).buffer);
}

/** A server event as it arrives: only `type` is certain. */
export type ServerEvent = { type: string } & Record<string, unknown>;

export interface WireError {
  message: string;
  type?: string;
  code?: string | null;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

interface WireUsage {
  input_tokens?: number;
  output_tokens?: number;
  input_token_details?: { audio_tokens?: number };
  output_token_details?: { audio_tokens?: number };
}

function usageOf(usage: WireUsage | undefined): RealtimeUsage | undefined {
  if (!usage) return undefined;
  return {
    inputTokens: count(usage.input_tokens),
    outputTokens: count(usage.output_tokens),
    inputAudioTokens: count(usage.input_token_details?.audio_tokens),
    outputAudioTokens: count(usage.output_token_details?.audio_tokens),
  };
}

const statuses = new Set(['completed', 'cancelled', 'failed', 'incomplete']);

interface WireResponse {
  id?: string;
  status?: string;
  status_details?: { reason?: string; error?: { code?: string } } | null;
  usage?: WireUsage;
}

/** The engine's view of a server event; `undefined` for the many events it has no use for. */
export function translate(event: ServerEvent): RealtimeEvent | undefined {
  const responseId = text(event.response_id);
  const itemId = text(event.item_id);
  switch (event.type) {
    case 'input_audio_buffer.speech_started':
      return { type: 'speech_started', itemId, audioStartMs: count(event.audio_start_ms) };
    case 'input_audio_buffer.speech_stopped':
      return { type: 'speech_stopped', itemId, audioEndMs: count(event.audio_end_ms) };
    case 'conversation.item.input_audio_transcription.completed':
      return { type: 'user_transcript', itemId, text: text(event.transcript) };
    case 'conversation.item.input_audio_transcription.failed':
      return { type: 'error', message: `the caller's words could not be transcribed: ${(event.error as WireError | undefined)?.message ?? 'no details'}`, code: 'transcription_failed' };
    case 'response.created':
      return { type: 'response_started', responseId: text((event.response as WireResponse | undefined)?.id) };
    case 'response.output_audio.delta':
      return { type: 'audio', responseId, itemId, pcm: decodeAudio(text(event.delta)) };
    case 'response.output_audio_transcript.delta':
      return { type: 'transcript_delta', responseId, itemId, text: text(event.delta) };
    case 'response.output_audio_transcript.done':
      return { type: 'transcript_done', responseId, itemId, text: text(event.transcript) };
    case 'response.function_call_arguments.done':
      return { type: 'function_call', responseId, itemId, callId: text(event.call_id), name: text(event.name), arguments: text(event.arguments) };
    case 'response.done': {
      const response = (event.response ?? {}) as WireResponse;
      const status = statuses.has(response.status ?? '') ? response.status as 'completed' : 'failed';
      const reason = response.status_details?.reason ?? response.status_details?.error?.code;
      return { type: 'response_done', responseId: text(response.id), status, ...(reason ? { reason } : {}), usage: usageOf(response.usage) };
    }
    case 'error': {
      const error = (event.error ?? {}) as WireError;
      return { type: 'error', message: error.message || 'the realtime provider reported an error', ...(error.code ? { code: error.code } : {}) };
    }
    default:
      return undefined;
  }
}
