/**
 * What the voice engine is given for a call and for an assistant taking one over. Apart from run.ts, which loads
 * it, so that the pipeline that builds a session from it does not import the entry point that runs it.
 */
import type { AgentPorts } from '../agent/ports.ts';
import type { AgentProfile } from '../agent/profile.ts';
import type { TextToSpeech } from '../providers/tts/types.ts';
import type { RecordingSink } from './audio/recorder.ts';
import type { PhoneLine } from './line.ts';
import type { VoiceSettings } from './settings.ts';

/** What one call needs, loaded by the caller once the stream has started (its custom parameters name the call). */
export interface CallSetup {
  /** The call's id in Parley, bound to every log line of its session. */
  callId?: number;
  profile: AgentProfile;
  settings: VoiceSettings;
  ports: AgentPorts;
  /** The provider's model name to answer with: a chat model, or for a multimodal assistant a speech-to-speech one. */
  modelName: string;
  variables: Record<string, unknown>;
  /** The most the call may last: the assistant's max_call_duration or what the balance pays for. */
  maxSeconds: number;
  /** Which of the two it is (the caller hears why the call ends); the assistant's limit when not given. */
  limitReason?: 'max_duration' | 'balance_exhausted';
  /** Where the recording goes when `settings.record` is on. */
  recording?: RecordingSink;
  /** The synthesizer of the assistant's voice, when it is not `providers.tts`. */
  tts?: TextToSpeech;
  /** A phone call's carrier, which transfers the call (`call_transfer`); absent on web calls. */
  phone?: PhoneLine;
  /** The owner's other assistants, which can take the call over (`assistant_transfer`). */
  assistants?: {
    /** Throws, with a reason to tell the caller, when the assistant cannot take the call. */
    check(assistantId: number): Promise<void>;
    /** What the assistant taking the call over needs; records the handover. */
    load(assistantId: number): Promise<AssistantSetup>;
  };
  /**
   * Judge who answered, a person or a machine, and act on a machine as `settings.endCallOnVoicemail` says: for
   * outbound phone calls (the speech pipeline; a speech-to-speech model is not judged).
   */
  screen?: boolean;
}

/** What an assistant brings to a call: its profile, speech settings, ports, model and voice. */
export type AssistantSetup = Pick<CallSetup, 'profile' | 'settings' | 'ports' | 'modelName' | 'tts'>;
