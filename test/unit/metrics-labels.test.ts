import { describe, expect, it } from 'vitest';
import { routeLabel, UNMATCHED_ROUTE } from '../../src/api/middleware/metrics.ts';
import { turnObservations } from '../../src/lib/metrics.ts';

describe('route labels', () => {
  it('spells the route pattern as the OpenAPI document does', () => {
    expect(routeLabel('/api/user/assistants/:id')).toBe('/api/user/assistants/{id}');
    expect(routeLabel('/api/conversations/:uuid/messages')).toBe('/api/conversations/{uuid}/messages');
    expect(routeLabel('/api/user/calls/:id(\\d+)')).toBe('/api/user/calls/{id}');
    expect(routeLabel('/api/user/me')).toBe('/api/user/me');
  });

  it('puts every request no route took under one label', () => {
    expect(routeLabel(undefined)).toBe(UNMATCHED_ROUTE);
    expect(routeLabel('')).toBe(UNMATCHED_ROUTE);
  });
});

describe('turn observations', () => {
  it('observes each measured latency in seconds under its component', () => {
    expect(turnObservations({ end_of_speech_to_first_audio_ms: 850, stt_final_delay_ms: 120, llm_first_token_ms: 400, tts_first_byte_ms: 95 })).toEqual([
      { component: 'end_of_speech_to_first_audio', seconds: 0.85 },
      { component: 'stt_final_delay', seconds: 0.12 },
      { component: 'llm_first_token', seconds: 0.4 },
      { component: 'tts_first_byte', seconds: 0.095 },
    ]);
  });

  it('observes nothing for a turn without metrics, and leaves out what clocks made negative', () => {
    expect(turnObservations({})).toEqual([]);
    expect(turnObservations({ end_of_speech_to_first_audio_ms: -3, llm_first_token_ms: 0 })).toEqual([{ component: 'llm_first_token', seconds: 0 }]);
  });
});
