import { describe, expect, it } from 'vitest';
import { EarlyModelRequest } from '../../src/agent/early-request.ts';
import type { ChatEvent, ChatRequest, LanguageModel } from '../../src/providers/llm/types.ts';

/** A model that records each request and answers it with `events`, stopping at its signal as a provider does. */
function recordingModel(events: ChatEvent[] | Error) {
  const asked: ChatRequest[] = [];
  const model: LanguageModel = {
    async *stream(request) {
      asked.push(request);
      if (events instanceof Error) throw events;
      for (const event of events) {
        // A provider's answer arrives a piece at a time.
        await Promise.resolve();
        request.signal?.throwIfAborted();
        yield event;
      }
    },
  };
  return { model, asked };
}

const request = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }] };
const answer: ChatEvent[] = [{ type: 'token', text: 'Hel' }, { type: 'token', text: 'lo' }, { type: 'done', finishReason: 'stop' }];

async function read(stream: AsyncIterable<ChatEvent>): Promise<ChatEvent[]> {
  const events: ChatEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('a model request sent early', () => {
  it('is sent at once, and answers the same request when it is asked, without asking the model again', async () => {
    const { model, asked } = recordingModel(answer);
    const early = new EarlyModelRequest(model, request, new AbortController().signal);
    expect(asked).toHaveLength(1);
    const turnModel = early.serving(model);
    expect(await read(turnModel.stream({ ...request, messages: [{ role: 'user', content: 'hi' }], signal: new AbortController().signal }))).toEqual(answer);
    expect(early.outcome).toBe('taken');
    // The turn's next round is its own request.
    expect(await read(turnModel.stream({ ...request, model: 'n' }))).toEqual(answer);
    expect(asked.map((sent) => sent.model)).toEqual(['m', 'n']);
  });

  it('is stopped, unread, when the turn asks something else, and the turn asks the model itself', async () => {
    const { model, asked } = recordingModel(answer);
    const early = new EarlyModelRequest(model, request, new AbortController().signal);
    const other = { ...request, temperature: 0.2 };
    expect(await read(early.serving(model).stream(other))).toEqual(answer);
    expect(early.outcome).toBe('abandoned');
    expect(asked[0]!.signal!.aborted).toBe(true);
    expect(asked[1]).toEqual(other);
  });

  it('is stopped by abandon() and by the signal it was sent with, and is then never taken', async () => {
    const { model, asked } = recordingModel(answer);
    const abandoned = new EarlyModelRequest(model, request, new AbortController().signal);
    abandoned.abandon();
    expect(asked[0]!.signal!.aborted).toBe(true);
    await read(abandoned.serving(model).stream(request));
    expect(asked).toHaveLength(2);

    const client = new AbortController();
    const gone = new EarlyModelRequest(model, request, client.signal);
    client.abort(new Error('the client went away'));
    expect(asked[2]!.signal!.aborted).toBe(true);
    await expect(read(gone.serving(model).stream({ ...request, signal: client.signal }))).rejects.toThrow('the client went away');
  });

  it("hands a failure of the request to the turn that takes it, and the turn's signal stops what it took", async () => {
    const { model } = recordingModel(new Error('model exploded'));
    const failed = new EarlyModelRequest(model, request, new AbortController().signal);
    await expect(read(failed.serving(model).stream(request))).rejects.toThrow('model exploded');

    const slow = recordingModel(answer);
    const taken = new EarlyModelRequest(slow.model, request, new AbortController().signal);
    const turn = new AbortController();
    const events: ChatEvent[] = [];
    await expect((async () => {
      for await (const event of taken.serving(slow.model).stream({ ...request, signal: turn.signal })) {
        events.push(event);
        turn.abort(new Error('interrupted'));
      }
    })()).rejects.toThrow('interrupted');
    expect(events).toEqual([answer[0]]);
    expect(slow.asked[0]!.signal!.aborted).toBe(true);
  });
});
