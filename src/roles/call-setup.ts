import { openingLine } from '../agent/turn-input.ts';
import { callWithLimit, recordMediaSession, storeRecordingKey } from '../calls/sessions.ts';
import { NotFoundError, RejectedError } from '../lib/errors.ts';
import { assistantPorts } from '../resources/assistants/ports.ts';
import { loadAgentProfile } from '../resources/assistants/profile.ts';
import { loadVoiceSettings } from '../resources/assistants/voice-profile.ts';
import { readingAloud } from '../voice/reading-aloud.ts';
import { goodbyesIn } from '../voice/session.ts';
import type { AssistantSetup, CallSetup } from '../voice/run.ts';
import { SpokenLineCache } from '../voice/spoken-lines.ts';
import { openRecordingSink } from './call-recording.ts';
import { assistantLine, phoneLine } from './call-transfers.ts';
import type { RoleContext } from './role.ts';

/** A call as loaded for its session, with what the media role keeps of its reservation. */
export interface LoadedCall {
  setup: CallSetup;
  /** Seconds reserved of the balance so far, and the most the call may last; equal when nothing is left to reserve. */
  reservedSeconds: number;
  maxSeconds: number;
}

/**
 * What the media role loads when a call's stream starts: the call's assistant (profile, speech settings, ports,
 * model, voice), its time limit and, for a phone call, its carrier. Loading records this replica on the call
 * (`media_session_url`, where its workflow asks for a hang-up) and the session as alive (`media_seen_at`).
 */
export function createCallLoader(ctx: RoleContext, sessionUrl: () => string) {
  const { config, providers, logger } = ctx;
  const knex = ctx.database.knex;
  // Every call's greeting, goodbyes and fillers after the first of their assistant and voice are heard at once (voice/spoken-lines.ts).
  const spokenLines = new SpokenLineCache();

  /**
   * What an assistant brings to a call: its profile, speech settings, ports and model, and its voice when this
   * deployment serves its synthesizer, otherwise the default synthesizer's own voice, so the call still speaks
   * (a voice id means nothing to another provider). Undefined when the assistant is gone.
   */
  async function assistantSetup(assistantId: number): Promise<AssistantSetup | undefined> {
    const [profile, stored] = await Promise.all([
      loadAgentProfile({ knex, secrets: providers.secrets }, { id: assistantId }),
      loadVoiceSettings(knex, { id: assistantId }),
    ]);
    if (!profile || !stored) return undefined;
    const served = stored.synthesizer ? providers.tts.forCode(stored.synthesizer) : undefined;
    const tts = readingAloud(served ?? providers.tts.default);
    if (!served && stored.synthesizer) logger.warn({ assistantId, synthesizer: stored.synthesizer }, 'the assistant\'s synthesizer is not configured here: speaking with the default voice');
    const settings = { ...stored, voiceId: served && stored.voiceId ? stored.voiceId : tts.defaultVoice };
    return {
      profile,
      settings,
      tts,
      ports: assistantPorts({ knex, embeddings: providers.embeddings, safeFetch: providers.fetch }, profile),
      modelName: settings.mode === 'multimodal'
        ? settings.realtimeModel ?? config.realtime?.defaultModel ?? ''
        : profile.modelName ?? config.llm.defaultModel,
    };
  }

  return async function load(callId: number, from: 'browser' | 'carrier'): Promise<LoadedCall> {
    const call = await callWithLimit(knex, callId);
    if (!call || call.assistantId === null) throw new NotFoundError('Call not found');
    if (call.endedAt) throw new RejectedError('This call has already ended.');
    const assistant = await assistantSetup(call.assistantId);
    if (!assistant) throw new NotFoundError('Assistant not found');
    await recordMediaSession(knex, callId, sessionUrl());
    const recording = assistant.settings.record
      ? await openRecordingSink(providers.storage, callId, async (key) => {
        // The call was deleted while it ran: its recording goes with it.
        if (!(await storeRecordingKey(knex, callId, key))) await providers.storage.delete(key);
      })
      : undefined;
    const owner = { id: callId, userId: assistant.profile.userId };
    const reservedSeconds = call.maxSeconds ?? call.maxDuration ?? 600;
    // A call reserving a minute at a time runs to its max_call_duration; the media role ends it sooner when the
    // balance stops paying (call-reservations.ts). One that reserved its whole limit ends at it.
    const maxSeconds = call.maxDurationSeconds ?? reservedSeconds;
    const setup: CallSetup = {
      ...assistant,
      callId,
      tts: spokenLines.speaking(assistant.tts ?? providers.tts.default, [openingLine(assistant.profile, call.variables), ...Object.values(goodbyesIn(assistant.settings.ttsLanguage)), ...assistant.settings.fillerPhrases]),
      variables: call.variables,
      maxSeconds,
      limitReason: call.maxDurationSeconds === null && call.limitReason === 'balance' ? 'balance_exhausted' : 'max_duration',
      // Only the calls Parley places can reach a machine; a web call or a caller ringing in is a person.
      screen: call.type === 'outbound',
      ...(recording ? { recording } : {}),
      ...(from === 'carrier' ? { phone: phoneLine({ knex, telephony: providers.telephony, sipTrunks: providers.sipTrunks, publicUrl: config.publicUrl }, owner) } : {}),
      assistants: assistantLine({ knex, load: assistantSetup }, owner),
    };
    return { setup, reservedSeconds, maxSeconds };
  };
}
