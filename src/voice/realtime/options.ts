/**
 * How a call's session is configured at the speech-to-speech provider, from the assistant's settings, and
 * the instruction that makes the model say a fixed text.
 */
import type { AgentProfile } from '../../agent/profile.ts';
import { fillTemplate } from '../../agent/template.ts';
import { dialogueVariables } from '../../agent/turn-input.ts';
import { iso2Of, languageName } from '../../lib/languages/index.ts';
import type { FunctionDefinition } from '../../providers/llm/types.ts';
import type { RealtimeSessionOptions } from '../../providers/realtime/types.ts';
import type { VoiceSettings } from '../settings.ts';
import { vadSilenceMs } from '../turns/endpointing.ts';

/** The instruction that makes the model say `text` word for word (greetings, goodbyes). */
export function sayVerbatim(text: string): string {
  return `Say exactly the following to the caller, word for word, and nothing else: "${text}"`;
}

/**
 * The assistant's instructions, told to speak its language when that is not English: a speech-to-speech model
 * otherwise answers in the language it hears, or in the prompt's.
 */
function inLanguage(instructions: string, language: string): string {
  if (iso2Of(language) === 'en') return instructions;
  const name = languageName(language) ?? language;
  return [instructions.trim(), `Speak ${name} with the caller.`].filter(Boolean).join('\n\n');
}

/** The session's configuration at the provider, from the assistant's settings. */
export function realtimeOptions(
  parts: { modelName: string; settings: VoiceSettings; profile: AgentProfile; variables: Record<string, unknown> }, tools: FunctionDefinition[], signal: AbortSignal,
): RealtimeSessionOptions {
  const { settings } = parts;
  return {
    model: parts.modelName,
    instructions: inLanguage(fillTemplate(parts.profile.systemPrompt, dialogueVariables(parts.profile, parts.variables)), settings.ttsLanguage),
    voice: settings.voiceId ?? 'alloy',
    tools,
    inputTranscriptionLanguage: iso2Of(settings.sttLanguage),
    turnDetection: {
      type: 'server_vad',
      // Higher interrupt sensitivity lets quieter speech count as the caller's: 0.5 (the provider's default) at 0.5.
      threshold: Math.min(Math.max(0.55 - 0.1 * settings.interruptSensitivity, 0.1), 0.9),
      silenceMs: vadSilenceMs(settings.endpointSensitivity),
      interruptResponse: settings.allowInterruptions,
    },
    speed: settings.speechSpeed,
    ...(settings.noiseCancellation ? { noiseReduction: 'near_field' as const } : {}),
    signal,
  };
}
