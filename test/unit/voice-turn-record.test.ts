import { describe, expect, it } from 'vitest';
import { callTurn } from '../../src/voice/turn-record.ts';

describe('callTurn', () => {
  const answer = { clockMs: 10_250.5, at: new Date('2026-11-20T09:00:00.400Z') };

  it('places a turn measured on the voice clock as dates and whole milliseconds from the answer', () => {
    const turn = callTurn(answer, {
      role: 'assistant', text: 'We open at nine.', startedAt: 13_262.9, endedAt: 14_870.2, interrupted: false,
      metrics: { end_of_speech_to_first_audio_ms: 640.4, stt_final_delay_ms: 119.6, llm_first_token_ms: 310, tts_first_byte_ms: 89.5 },
    });
    expect(turn).toEqual({
      role: 'assistant',
      text: 'We open at nine.',
      started_at: '2026-11-20T09:00:03.412Z',
      ended_at: '2026-11-20T09:00:05.020Z',
      start_offset_ms: 3012,
      end_offset_ms: 4620,
      interrupted: false,
      metrics: { end_of_speech_to_first_audio_ms: 640, stt_final_delay_ms: 120, llm_first_token_ms: 310, tts_first_byte_ms: 90 },
    });
    expect(Object.keys(turn)).toEqual(['role', 'text', 'started_at', 'ended_at', 'start_offset_ms', 'end_offset_ms', 'interrupted', 'metrics']);
  });

  it('keeps only the latencies measured, and an interruption on the turn', () => {
    const turn = callTurn(answer, {
      role: 'assistant', text: 'Hello', startedAt: 10_250.5, endedAt: 10_900.5, interrupted: true, metrics: { tts_first_byte_ms: 12, llm_first_token_ms: undefined },
    });
    expect(turn).toMatchObject({ started_at: '2026-11-20T09:00:00.400Z', start_offset_ms: 0, end_offset_ms: 650, interrupted: true, metrics: { tts_first_byte_ms: 12 } });
    expect(Object.keys(turn.metrics)).toEqual(['tts_first_byte_ms']);
  });
});
