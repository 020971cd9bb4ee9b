/**
 * What a reply of the assistant is made with: its model, profile and tools, the speaker, the clock. Its own
 * module because the line (line.ts), which a handover hands a new one, and the reply (reply.ts), which acts on
 * the line, both need it.
 */
import type { AgentPorts } from '../agent/ports.ts';
import type { AgentProfile } from '../agent/profile.ts';
import type { Logger } from '../logger.ts';
import type { LanguageModel } from '../providers/llm/types.ts';
import type { VoiceClock } from './clock.ts';
import type { Speaker } from './speaker.ts';

export interface ReplyContext {
  model: LanguageModel;
  modelName: string;
  profile: AgentProfile;
  ports: AgentPorts;
  variables: Record<string, unknown>;
  speaker: Speaker;
  clock: VoiceClock;
  logger: Logger;
  /** A tool running longer than this gets a spoken acknowledgement (once per reply); undefined: never. */
  fillerAfterMs: number | undefined;
  nextFiller: () => string;
}
