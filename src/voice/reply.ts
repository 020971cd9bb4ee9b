/**
 * One utterance of the assistant through the speaker: a reply of the dialogue core (the agent turn streams
 * sentences, which are synthesized as they come), or a fixed text (the opening line, a goodbye). Both run on
 * the handle's signal, so an interruption stops the model request, its tools and the synthesis together.
 */
import type { AgentPorts, Handoff } from '../agent/ports.ts';
import { SentenceSplitter } from '../agent/sentences.ts';
import { buildTurnInput, type HistoryEntry } from '../agent/turn-input.ts';
import { AgentTurn } from '../agent/turn.ts';
import { replyLine, type SessionLine } from './line.ts';
import type { ReplyContext } from './reply-context.ts';
import type { Speaker, SpeechTimings } from './speaker.ts';
import type { SpeechHandle } from './speech.ts';

export interface ReplyOutcome {
  endCall: boolean;
  /** Where the call goes once the reply has been heard: the transfer the model called. */
  handoff: Handoff | undefined;
  timings: SpeechTimings;
  llmRequestedAt: number | undefined;
  firstTokenAt: number | undefined;
}

/** Speaks the model's answer to `message`, given the history before it; the line tools act on `line` when given. */
export async function speakReply(
  context: ReplyContext, handle: SpeechHandle, input: { history: HistoryEntry[]; message: string }, line?: SessionLine,
): Promise<ReplyOutcome> {
  const { clock, profile } = context;
  const { sentences, done } = context.speaker.utterance(handle);
  const ports: AgentPorts = line ? { ...context.ports, line: replyLine(line, handle, sentences, clock) } : context.ports;
  const outcome: ReplyOutcome = { endCall: false, handoff: undefined, timings: { ttsRequestedAt: undefined, ttsFirstChunkAt: undefined, firstFrameSentAt: undefined }, llmRequestedAt: undefined, firstTokenAt: undefined };
  const running = new Set<string>();
  let filler: { cancel(): void } | undefined;
  let fillerSpoken = false;
  try {
    const turnInput = await buildTurnInput(ports, profile, { variables: context.variables, history: input.history, message: input.message }, handle.signal);
    outcome.llmRequestedAt = clock.now();
    const turn = new AgentTurn({
      model: context.model, modelName: context.modelName, temperature: profile.temperature, ...turnInput, signal: handle.signal, now: context.ports.now,
      firstClause: true,
      ...(handle.held ? { toolGate: handle.released } : {}),
    });
    for await (const event of turn) {
      switch (event.type) {
        case 'token':
          outcome.firstTokenAt ??= clock.now();
          break;
        case 'sentence':
          sentences.push(event.text);
          break;
        case 'tool_started':
          // A tool waiting on the caller's keys needs the line quiet, not a filler.
          if (turnInput.tools.find((tool) => tool.definition.name === event.name)?.onLine) break;
          running.add(event.name);
          if (context.fillerAfterMs !== undefined && !fillerSpoken && !filler) {
            filler = clock.setTimeout(() => {
              if (running.size === 0 || handle.signal.aborted) return;
              fillerSpoken = true;
              sentences.push(context.nextFiller());
            }, context.fillerAfterMs);
          }
          break;
        case 'tool_finished':
          running.delete(event.call.name);
          if (running.size === 0) {
            filler?.cancel();
            filler = undefined;
          }
          break;
        case 'end_call':
          outcome.endCall = true;
          outcome.handoff ??= event.handoff;
          break;
      }
    }
  } catch (error) {
    if (!handle.signal.aborted) context.logger.warn({ err: error }, 'the assistant could not answer');
  } finally {
    filler?.cancel();
    sentences.end();
  }
  outcome.timings = await done;
  return outcome;
}

/** Speaks a fixed text, sentence by sentence. */
export async function speakText(speaker: Speaker, handle: SpeechHandle, text: string): Promise<SpeechTimings> {
  const { sentences, done } = speaker.utterance(handle);
  const splitter = new SentenceSplitter();
  splitter.push(text);
  splitter.end();
  for (let sentence = splitter.next(); sentence !== undefined; sentence = splitter.next()) sentences.push(sentence);
  sentences.end();
  return done;
}
