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

describe('warm_call_transfer', () => {
  const stored = { supervisor_phone: '+14155550142', outbound_phone_id: 3, description: 'Get the supervisor for refunds.' };

  it('reads the stored tool with the documented default texts, music at 80 unless `none`', () => {
    expect(lineToolSpecs([{ type: 'warm_call_transfer', data: stored }])).toEqual([{
      type: 'warm_call_transfer', description: 'Get the supervisor for refunds.', supervisorPhone: '+14155550142', outboundPhoneId: 3,
      callerIdMode: 'outbound_number', customCallerId: undefined, holdMusicVolume: 80,
      holdMessage: 'Please hold while I connect you with a colleague.',
      summaryInstructions: 'Summarise the conversation so far for the colleague taking over: who is calling, what they want, and what has been agreed.',
      briefingInitialMessage: 'Hello, I have a caller for you. Here is a short summary.',
      connectedMessage: 'You are now connected. Thank you for waiting.',
    }]);
    const [custom] = lineToolSpecs([{ type: 'warm_call_transfer', data: { ...stored, hold_music: 'none', hold_music_volume: 30, caller_id_mode: 'custom', custom_caller_id: '+14155550100', hold_message: 'One moment.' } }]);
    expect(custom).toMatchObject({ holdMusicVolume: undefined, callerIdMode: 'custom', customCallerId: '+14155550100', holdMessage: 'One moment.' });
    expect(lineToolSpecs([{ type: 'warm_call_transfer', data: { ...stored, hold_music_volume: 0 } }])[0]).toMatchObject({ holdMusicVolume: 0 });
  });

  it('is offered where the line can be transferred, checks the supervisor\'s number, and hands the call over with its settings', async () => {
    const profile = testProfile({ lineTools: lineToolSpecs([{ type: 'warm_call_transfer', data: stored }, { type: 'warm_call_transfer', data: { ...stored, supervisor_phone: '+14155550143' } }]) });
    const web: CallLine = { collectDigits: () => Promise.reject(new Error('no')), sendDigits: () => Promise.reject(new Error('no')) };
    expect(dialogueTools({ searchKnowledge: noSearch, fetch: noFetch, line: web }, profile).map((tool) => tool.definition.name)).toEqual(['end_call']);
    const checked: string[] = [];
    const phone: CallLine = {
      ...web,
      checkTransfer: (phoneNumber) => {
        checked.push(phoneNumber);
        return phoneNumber === '+14155550143' ? Promise.reject(new Error('Calls to these numbers are not allowed.')) : Promise.resolve();
      },
    };
    const tools = dialogueTools({ searchKnowledge: noSearch, fetch: noFetch, line: phone }, profile);
    expect(tools.map((tool) => tool.definition.name)).toEqual(['warm_call_transfer', 'warm_call_transfer_2', 'end_call']);
    const [first, second] = tools;
    expect(first!.ends).toBe(true);
    expect(first!.definition.description).toMatch(/^Get the supervisor for refunds\. The caller is put on hold/);
    const signal = new AbortController().signal;
    expect(await first!.execute({}, signal)).toEqual({ transferring: true });
    await expect(second!.execute({}, signal)).rejects.toThrow('Calls to these numbers are not allowed.');
    expect(checked).toEqual(['+14155550142', '+14155550143']);
    expect(first!.handoff!({})).toEqual({ kind: 'supervisor', transfer: expect.objectContaining({ supervisorPhone: '+14155550142', outboundPhoneId: 3, holdMusicVolume: 80 }) });
    expect(first!.handoff!({})).not.toHaveProperty('transfer.type');
  });
});
