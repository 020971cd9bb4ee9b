/**
 * A call's hand-over (`call_transfer`, `warm_call_transfer`, `assistant_transfer`), once the model's closing
 * words have been heard: to a number (the carrier connects the caller there, and the session ends as
 * `transferred`), to a supervisor (the hold message is said and the briefing written first) or to another
 * assistant (which goes on with the same call). When it cannot be done, the model is told, to tell the
 * caller, and the conversation goes on.
 */
import { briefingText, summarize } from '../agent/briefing.ts';
import type { Handoff, SupervisorTransfer } from '../agent/ports.ts';
import { openingLine, type HistoryEntry } from '../agent/turn-input.ts';
import type { EndReason } from './hooks.ts';
import type { SessionLine } from './line.ts';
import type { SessionParts } from './session-parts.ts';
import type { MeasuredTurn } from './turn-record.ts';

/** What a hand-over asks of its session. */
export interface HandoverHost {
  readonly parts: SessionParts;
  readonly line: SessionLine;
  /** Ending, or ended: nothing is handed over any more. */
  ending(): boolean;
  /** Stops the silence timer and what is being said, once it is committed. */
  quiet(): Promise<void>;
  say(text: string, options: { interruptible: boolean }): Promise<void>;
  /** The conversation so far. */
  history(): HistoryEntry[];
  /** A reply of the model to `message` after the history so far. */
  reply(message: string): Promise<void>;
  /** Ends the session at once with `reason`, nothing more said. */
  end(reason: EndReason): Promise<void>;
  report(turn: MeasuredTurn): void;
  armSilence(): void;
}

export class Handover {
  /** Under way: the caller's words and keys wait, and no silence is filled. */
  active = false;
  /** The carrier is being asked: a stream that ends meanwhile is the transfer. */
  transferring = false;

  private readonly host: HandoverHost;
  /** Aborted when the session closes: stops the writing of a briefing nobody will hear. */
  private readonly closing = new AbortController();

  constructor(host: HandoverHost) {
    this.host = host;
  }

  /** The session has closed. */
  cancel(): void {
    this.closing.abort();
  }

  async run(handoff: Handoff): Promise<void> {
    const { host } = this;
    if (host.ending() || this.active) return;
    this.active = true;
    // A reply to words said over the closing words has no one left to hear it.
    await host.quiet();
    try {
      if (handoff.kind === 'phone') await this.transferTo(handoff.phoneNumber, handoff.whisper);
      else if (handoff.kind === 'supervisor') await this.transferToSupervisor(handoff.transfer);
      else await this.handOverTo(handoff);
    } catch (error) {
      this.active = false;
      if (host.ending()) return;
      host.parts.logger.warn({ err: error, handoff }, 'the call could not be handed over');
      const reason = (error instanceof Error ? error.message : String(error)).replace(/\.?$/, '.');
      const target = handoff.kind === 'phone' ? handoff.phoneNumber : handoff.kind === 'supervisor' ? 'a colleague' : 'the other assistant';
      await host.reply(`(The transfer to ${target} did not go through: ${reason} Tell the caller, and go on helping them.)`);
    }
  }

  private async transferTo(to: string, whisper: string | undefined): Promise<void> {
    const { phone } = this.host.line;
    if (!phone) throw new Error('This call has no carrier to transfer it.');
    this.transferring = true;
    try {
      await phone.transfer({ to, whisper });
    } finally {
      // Still the transfer if the stream ended meanwhile and the session is closing as `transferred`.
      this.transferring = this.host.ending();
    }
    await this.host.end('transferred');
  }

  /**
   * The caller hears the hold message (non-interruptible, in the transcript as heard) while the model writes
   * the briefing's summary; then the carrier holds the caller and rings the supervisor.
   */
  private async transferToSupervisor(transfer: SupervisorTransfer): Promise<void> {
    const { host } = this;
    const { phone } = host.line;
    if (!phone) throw new Error('This call has no carrier to transfer it.');
    const { reply, logger, settings } = host.parts;
    const summary = summarize(
      { model: reply.model, modelName: reply.modelName, temperature: reply.profile.temperature }, host.history(), transfer.summaryInstructions, this.closing.signal,
      settings.ttsLanguage,
    );
    if (transfer.holdMessage.trim()) await host.say(transfer.holdMessage, { interruptible: false });
    const written = await summary;
    if (host.ending()) return;
    if (written.error) logger.warn({ reason: written.error }, 'the briefing\'s summary could not be written by the model: the last turns are read to the supervisor instead');
    this.transferring = true;
    try {
      await phone.warmTransfer({
        transfer, briefing: briefingText(transfer.briefingInitialMessage, written.text), summarySource: written.source, language: settings.ttsLanguage,
      });
    } finally {
      this.transferring = this.host.ending();
    }
    await this.host.end('transferred');
  }

  /** The other assistant takes over: its settings, prompt, tools and voice from now on, with the call's history. */
  private async handOverTo(handoff: Extract<Handoff, { kind: 'assistant' }>): Promise<void> {
    const { host } = this;
    const { assistants } = host.line;
    if (!assistants) throw new Error('This call cannot be handed to another assistant.');
    if (handoff.message) await host.say(handoff.message, { interruptible: false });
    const next = await assistants.takeOver(handoff.assistantId);
    if (host.ending()) return;
    host.parts.settings = next.settings;
    host.parts.reply = next.reply;
    const now = host.parts.clock.now();
    host.report({ role: 'handover', text: next.reply.profile.name, startedAt: now, endedAt: now, interrupted: false, metrics: {} });
    this.active = false;
    const opening = handoff.greet ? openingLine(next.reply.profile, next.reply.variables) : '';
    if (opening) await host.say(opening, { interruptible: next.settings.allowInterruptions });
    else host.armSilence();
  }
}
