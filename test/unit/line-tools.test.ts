import { describe, expect, it } from 'vitest';
import type { CallLine } from '../../src/agent/ports.ts';
import { dialogueTools } from '../../src/agent/turn-input.ts';
import { lineToolSpecs } from '../../src/resources/assistants/profile.ts';
import { testProfile } from '../support/voice-harness.ts';

const noSearch = () => Promise.resolve([]);
const noFetch = () => Promise.reject(new Error('no fetch'));

describe('an assistant\'s line tools', () => {
  it('reads the stored built-in tools with the contract\'s defaults, skipping the others', () => {
    expect(lineToolSpecs([
      { type: 'end_call', data: { description: 'Bye.' } },
      { type: 'collect_keypad', data: {} },
      { type: 'collect_keypad', data: { timeout: 12, stop_key: '*' } },
      { type: 'calendar_integration', data: { calcom_event_slug: 'x' } },
      { type: 'dtmf_input', data: null },
    ])).toEqual([
      { type: 'collect_keypad', timeoutSeconds: 5, stopKey: '#' },
      { type: 'collect_keypad', timeoutSeconds: 12, stopKey: '*' },
      { type: 'dtmf_input', description: undefined },
    ]);
  });

  it('offers them on a call\'s line only, one collect_keypad with its settings', async () => {
    const profile = testProfile({ lineTools: [{ type: 'collect_keypad', timeoutSeconds: 7, stopKey: '*' }, { type: 'collect_keypad', timeoutSeconds: 3, stopKey: '#' }] });
    expect(dialogueTools({ searchKnowledge: noSearch, fetch: noFetch }, profile).map((tool) => tool.definition.name)).toEqual(['end_call']);
    const asked: unknown[] = [];
    const line: CallLine = {
      collectDigits: (options) => {
        asked.push(options);
        return Promise.resolve({ digits: '42', endedBy: 'timeout' });
      },
      sendDigits: () => Promise.reject(new Error('not offered')),
    };
    const tools = dialogueTools({ searchKnowledge: noSearch, fetch: noFetch, line }, profile);
    expect(tools.map((tool) => tool.definition.name)).toEqual(['collect_keypad', 'end_call']);
    const keypad = tools[0]!;
    expect(keypad.onLine).toBe(true);
    expect(keypad.definition.description).toContain('star (*)');
    expect(await keypad.execute({}, new AbortController().signal)).toEqual({ digits: '42', ended_by: 'timeout' });
    expect(asked).toEqual([{ timeoutMs: 7000, stopKey: '*' }]);
  });

  it('presses the keys the model asks for, refusing anything a keypad cannot send', async () => {
    const sent: string[] = [];
    const line: CallLine = {
      collectDigits: () => Promise.reject(new Error('not offered')),
      sendDigits: (keys) => {
        sent.push(keys);
        return Promise.resolve();
      },
    };
    const [dtmf] = dialogueTools({ searchKnowledge: noSearch, fetch: noFetch, line }, testProfile({ lineTools: [{ type: 'dtmf_input', description: undefined }] }));
    expect(dtmf!.definition.name).toBe('dtmf_input');
    const signal = new AbortController().signal;
    expect(await dtmf!.execute({ digits: '1 w 2-3#' }, signal)).toEqual({ pressed: '1w23#' });
    await expect(dtmf!.execute({ digits: 'call me' }, signal)).rejects.toThrow(/digits must be/);
    await expect(dtmf!.execute({}, signal)).rejects.toThrow(/digits must be/);
    expect(sent).toEqual(['1w23#']);
  });
});
