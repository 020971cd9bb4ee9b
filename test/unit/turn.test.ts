import { describe, expect, it } from 'vitest';
import { AgentTurn, type AgentTool, type TurnEvent, type TurnOptions } from '../../src/agent/turn.ts';
import { endCallTool } from '../../src/agent/tools.ts';
import type { ChatEvent, ChatRequest, LanguageModel } from '../../src/providers/llm/types.ts';

interface Round {
  tokens?: string[];
  calls?: { name: string; arguments: string }[];
}

/**
 * A language model in memory answering scripted rounds. Its tokens come as one burst, as a provider hands out
 * the pieces of a chunk it has already read, and it never looks at the signal itself.
 */
function scriptedModel(rounds: Round[]) {
  const requests: ChatRequest[] = [];
  const streams = { finished: 0, leftEarly: 0 };
  const model: LanguageModel = {
    async *stream(request): AsyncIterable<ChatEvent> {
      requests.push({ ...request, messages: [...request.messages] });
      await Promise.resolve(); // the answer arrives, all at once
      const round = rounds.shift() ?? { tokens: ['OK'] };
      let finished = false;
      try {
        for (const text of round.tokens ?? []) yield { type: 'token', text };
        if (round.calls) yield { type: 'tool_calls', calls: round.calls.map((call, index) => ({ id: `call_${index}`, ...call })) };
        yield { type: 'done', finishReason: 'stop' };
        finished = true;
      } finally {
        if (finished) streams.finished++;
        else streams.leftEarly++;
      }
    },
  };
  return { model, requests, streams };
}

function tool(name: string, execute: AgentTool['execute']): AgentTool {
  return { definition: { name, description: name, parameters: { type: 'object', properties: {} } }, execute };
}

function options(model: LanguageModel, overrides: Partial<TurnOptions> = {}): TurnOptions {
  return { model, modelName: 'm', messages: [{ role: 'user', content: 'Hi' }], tools: [], signal: new AbortController().signal, now: () => 0, ...overrides };
}

describe('AgentTurn', () => {
  it('streams tokens, sentences, the calls of a step started together and finished in order, end-call, then the answer', async () => {
    const { model, requests } = scriptedModel([
      { tokens: ['Let me check. '], calls: [{ name: 'lookup', arguments: '{"id":"A1"}' }, { name: 'end_call', arguments: '' }] },
      { tokens: ['It ', 'shipped. ', 'Bye', '!'] },
    ]);
    // Both calls start at 100 and 105; the lookup finishes at 130, end-call at 190.
    const times = [100, 105, 130, 190];
    const turn = new AgentTurn(options(model, {
      tools: [tool('lookup', () => Promise.resolve({ status: 'shipped' })), endCallTool()],
      now: () => times.shift() ?? Number.NaN,
    }));
    const events: TurnEvent[] = [];
    for await (const event of turn) events.push(event);

    const lookup = { name: 'lookup', arguments: { id: 'A1' }, result: { status: 'shipped' } };
    const endCall = { name: 'end_call', arguments: {}, result: { ended: true } };
    expect(events).toEqual([
      { type: 'token', text: 'Let me check. ' },
      { type: 'sentence', text: 'Let me check.' },
      { type: 'tool_started', name: 'lookup', arguments: { id: 'A1' } },
      { type: 'tool_started', name: 'end_call', arguments: {} },
      { type: 'tool_finished', call: lookup, durationMs: 30 },
      { type: 'tool_finished', call: endCall, durationMs: 85 },
      { type: 'end_call' },
      { type: 'token', text: 'It ' },
      { type: 'token', text: 'shipped. ' },
      { type: 'token', text: 'Bye' },
      { type: 'sentence', text: 'It shipped.' },
      { type: 'token', text: '!' },
      { type: 'sentence', text: 'Bye!' },
    ]);
    // The answer is what came after the calls; the words before them went to the model as its own message.
    expect(turn.result).toEqual({ delivered: 'It shipped. Bye!', functionCalls: [lookup, endCall], endCall: true });
    expect(requests[1]?.messages.slice(1)).toEqual([
      { role: 'assistant', content: 'Let me check. ', toolCalls: [{ id: 'call_0', name: 'lookup', arguments: '{"id":"A1"}' }, { id: 'call_1', name: 'end_call', arguments: '' }] },
      { role: 'tool', toolCallId: 'call_0', content: '{"status":"shipped"}' },
      { role: 'tool', toolCallId: 'call_1', content: '{"ended":true}' },
    ]);
  });

  it('delivers only the tokens the consumer took when it leaves early, and closes the model stream', async () => {
    const { model, streams } = scriptedModel([{ tokens: ['One ', 'two ', 'three ', 'four.'] }]);
    const turn = new AgentTurn(options(model));
    let tokens = 0;
    for await (const event of turn) {
      if (event.type === 'token' && ++tokens === 2) break;
    }
    expect(turn.result.delivered).toBe('One two ');
    expect(streams).toEqual({ finished: 0, leftEarly: 1 });
  });

  it('hands out no token read before an abort, and throws the signal\'s reason', async () => {
    const { model, streams } = scriptedModel([{ tokens: ['Sure', ', ', 'here ', 'it is.'] }]);
    const controller = new AbortController();
    const reason = new Error('the caller hung up');
    const turn = new AgentTurn(options(model, { signal: controller.signal }));
    const taken: string[] = [];
    await expect((async () => {
      for await (const event of turn) {
        if (event.type === 'token') taken.push(event.text);
        controller.abort(reason);
      }
    })()).rejects.toBe(reason);
    expect(taken).toEqual(['Sure']);
    expect(turn.result.delivered).toBe('Sure');
    expect(streams.leftEarly).toBe(1);
  });

  it('stops at once on abort while a tool that ignores the signal is still running', async () => {
    const { model, requests } = scriptedModel([{ calls: [{ name: 'stuck', arguments: '{}' }] }]);
    const controller = new AbortController();
    let toolSignal: AbortSignal | undefined;
    const stuck = tool('stuck', (_args, signal) => {
      toolSignal = signal;
      return new Promise(() => undefined);
    });
    const turn = new AgentTurn(options(model, { tools: [stuck], signal: controller.signal }));
    const events: TurnEvent[] = [];
    await expect((async () => {
      for await (const event of turn) {
        events.push(event);
        if (event.type === 'tool_started') controller.abort();
      }
    })()).rejects.toThrow(/abort/i);
    expect(events.map((event) => event.type)).toEqual(['tool_started']);
    expect(toolSignal?.aborted).toBe(true);
    expect(turn.result).toEqual({ delivered: '', functionCalls: [], endCall: false });
    expect(requests).toHaveLength(1);
  });

  it('is iterated once', async () => {
    const turn = new AgentTurn(options(scriptedModel([{ tokens: ['Hi.'] }]).model));
    for await (const _event of turn) { /* drain */ }
    expect(() => turn[Symbol.asyncIterator]()).toThrow('A turn is iterated once.');
  });
});
