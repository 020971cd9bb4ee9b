/**
 * The Twilio Media Streams message protocol, which every media WebSocket of Parley speaks (the carrier, the
 * sandbox carrier and the browser's web call): JSON text frames, audio as base64 payloads. Inbound messages
 * come from outside and are parsed strictly into a discriminated union; anything else is a typed error, never
 * a stray exception. Outbound messages are built here and nowhere else.
 */
import { BadRequestError, RejectedError } from '../../lib/errors.ts';

/** The largest text frame accepted: a 20 ms frame is under 1 KB, a start message with parameters a few KB. */
export const MAX_MESSAGE_LENGTH = 64 * 1024;

export type MediaTrack = 'inbound' | 'outbound';

/** The audio a stream carries, as its start message announces it; the only two formats Parley accepts. */
export type MediaFormat =
  | { encoding: 'audio/x-mulaw'; sampleRate: 8000; channels: 1 }
  | { encoding: 'audio/x-l16'; sampleRate: 16000; channels: 1 };

/** Fields every message but `connected` carries: its place in the stream (a decimal string) and the stream. */
interface Sequenced {
  sequenceNumber: string;
  streamSid: string;
}

export interface ConnectedMessage { event: 'connected'; protocol: string; version: string }
export interface StartMessage extends Sequenced {
  event: 'start';
  start: {
    streamSid: string;
    accountSid: string;
    callSid: string;
    tracks: MediaTrack[];
    customParameters: Record<string, string>;
    mediaFormat: MediaFormat;
  };
}
/** `chunk` counts frames from "1"; `timestamp` is milliseconds since the stream started; both are strings. */
export interface MediaMessage extends Sequenced {
  event: 'media';
  media: { track: MediaTrack; chunk: string; timestamp: string; payload: string };
}
/** A mark the engine sent has been played (or cleared). */
export interface MarkMessage extends Sequenced { event: 'mark'; mark: { name: string } }
export interface StopMessage extends Sequenced { event: 'stop'; stop: { accountSid: string; callSid: string } }
export interface DtmfMessage extends Sequenced { event: 'dtmf'; dtmf: { track: string; digit: string } }

export type InboundMessage = ConnectedMessage | StartMessage | MediaMessage | MarkMessage | StopMessage | DtmfMessage;

/**
 * An inbound message that is not one of the protocol's: too large, not JSON, a field missing or of the wrong
 * kind (`malformed`), or an event the protocol does not have (`unknown_event`, which a transport may ignore).
 */
export class MediaStreamMessageError extends BadRequestError {
  readonly reason: 'too_large' | 'malformed' | 'unknown_event';
  constructor(reason: MediaStreamMessageError['reason'], message: string) {
    super(message);
    this.reason = reason;
  }
}

/** A start message announcing audio Parley does not speak. */
export class UnsupportedMediaFormatError extends RejectedError {}

type Json = Record<string, unknown>;

const decimal = /^\d{1,20}$/;
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const dtmfDigit = /^[0-9*#A-D]$/;

function malformed(message: string): MediaStreamMessageError {
  return new MediaStreamMessageError('malformed', message);
}

function objectAt(parent: Json, key: string, path = key): Json {
  const value = parent[key];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw malformed(`${path} must be an object.`);
  return value as Json;
}

function stringAt(parent: Json, key: string, path: string, pattern?: RegExp): string {
  const value = parent[key];
  if (typeof value !== 'string' || (value === '' && pattern === undefined)) throw malformed(`${path} must be a non-empty string.`);
  if (pattern && !pattern.test(value)) throw malformed(`${path} is not valid: ${JSON.stringify(value.slice(0, 40))}.`);
  return value;
}

function trackOf(value: unknown, path: string): MediaTrack {
  if (value !== 'inbound' && value !== 'outbound') throw malformed(`${path} must be "inbound" or "outbound".`);
  return value;
}

function sequenced(message: Json): Sequenced {
  return { sequenceNumber: stringAt(message, 'sequenceNumber', 'sequenceNumber', decimal), streamSid: stringAt(message, 'streamSid', 'streamSid') };
}

function mediaFormatOf(start: Json): MediaFormat {
  const format = objectAt(start, 'mediaFormat', 'start.mediaFormat');
  const { encoding, sampleRate, channels } = format;
  if (encoding === 'audio/x-mulaw' && sampleRate === 8000 && channels === 1) return { encoding, sampleRate, channels };
  if (encoding === 'audio/x-l16' && sampleRate === 16000 && channels === 1) return { encoding, sampleRate, channels };
  throw new UnsupportedMediaFormatError(
    `Unsupported media format ${JSON.stringify(encoding)} at ${JSON.stringify(sampleRate)} Hz with ${JSON.stringify(channels)} channel(s); `
    + 'expected audio/x-mulaw at 8000 Hz or audio/x-l16 at 16000 Hz, mono.',
  );
}

function startOf(message: Json): StartMessage {
  const header = sequenced(message);
  const start = objectAt(message, 'start');
  const streamSid = stringAt(start, 'streamSid', 'start.streamSid');
  if (streamSid !== header.streamSid) throw malformed('start.streamSid must be the message\'s streamSid.');
  const tracks = start.tracks;
  if (!Array.isArray(tracks) || tracks.length === 0) throw malformed('start.tracks must be a non-empty array.');
  const parameters = start.customParameters === undefined ? {} : objectAt(start, 'customParameters', 'start.customParameters');
  for (const [name, value] of Object.entries(parameters)) {
    if (typeof value !== 'string') throw malformed(`start.customParameters.${name} must be a string.`);
  }
  return {
    event: 'start',
    ...header,
    start: {
      streamSid,
      accountSid: stringAt(start, 'accountSid', 'start.accountSid'),
      callSid: stringAt(start, 'callSid', 'start.callSid'),
      tracks: tracks.map((track, i) => trackOf(track, `start.tracks.${i}`)),
      // fromEntries defines own properties, so a parameter named __proto__ stays a plain entry.
      customParameters: Object.fromEntries(Object.entries(parameters)) as Record<string, string>,
      mediaFormat: mediaFormatOf(start),
    },
  };
}

function eventOf(message: Json): InboundMessage {
  switch (message.event) {
    case 'connected':
      return { event: 'connected', protocol: stringAt(message, 'protocol', 'protocol'), version: stringAt(message, 'version', 'version') };
    case 'start':
      return startOf(message);
    case 'media': {
      const media = objectAt(message, 'media');
      return {
        event: 'media',
        ...sequenced(message),
        media: {
          track: trackOf(media.track, 'media.track'),
          chunk: stringAt(media, 'chunk', 'media.chunk', decimal),
          timestamp: stringAt(media, 'timestamp', 'media.timestamp', decimal),
          payload: stringAt(media, 'payload', 'media.payload', base64),
        },
      };
    }
    case 'mark':
      return { event: 'mark', ...sequenced(message), mark: { name: stringAt(objectAt(message, 'mark'), 'name', 'mark.name') } };
    case 'stop': {
      const stop = objectAt(message, 'stop');
      return { event: 'stop', ...sequenced(message), stop: { accountSid: stringAt(stop, 'accountSid', 'stop.accountSid'), callSid: stringAt(stop, 'callSid', 'stop.callSid') } };
    }
    case 'dtmf': {
      const dtmf = objectAt(message, 'dtmf');
      return { event: 'dtmf', ...sequenced(message), dtmf: { track: stringAt(dtmf, 'track', 'dtmf.track'), digit: stringAt(dtmf, 'digit', 'dtmf.digit', dtmfDigit) } };
    }
    default:
      if (typeof message.event !== 'string') throw malformed('event must be a string.');
      throw new MediaStreamMessageError('unknown_event', `Unknown event ${JSON.stringify(message.event.slice(0, 40))}.`);
  }
}

/**
 * One inbound text frame as a typed message. Throws only MediaStreamMessageError (not the protocol's) and
 * UnsupportedMediaFormatError (a start message announcing other audio). Fields beyond the protocol's are
 * dropped; the values kept are the ones Twilio sends, strings included.
 */
export function parseInboundMessage(text: string): InboundMessage {
  if (text.length > MAX_MESSAGE_LENGTH) throw new MediaStreamMessageError('too_large', `A message may hold at most ${MAX_MESSAGE_LENGTH} characters.`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw malformed('The message is not JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw malformed('The message must be a JSON object.');
  return eventOf(parsed as Json);
}

/** Audio to play: one base64 payload in the stream's format. */
export function mediaMessage(streamSid: string, payload: string): string {
  return JSON.stringify({ event: 'media', streamSid, media: { payload } });
}

/** A mark the other side echoes once the audio sent before it has played. */
export function markMessage(streamSid: string, name: string): string {
  return JSON.stringify({ event: 'mark', streamSid, mark: { name } });
}

/** Drops the audio queued on the other side (barge-in); the pending marks come back. */
export function clearMessage(streamSid: string): string {
  return JSON.stringify({ event: 'clear', streamSid });
}

/**
 * Parley's one extension of the protocol, sent to browser web calls only (a carrier never sees it): a line of
 * the live transcript. Clients that do not know it ignore it, as they ignore any unknown event.
 */
export function transcriptMessage(streamSid: string, transcript: { role: 'assistant' | 'user'; text: string; final: boolean }): string {
  return JSON.stringify({ event: 'transcript', streamSid, transcript });
}
