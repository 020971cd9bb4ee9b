import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import * as reshapeCallTurns from '../../migrations/20261124350001_reshape_call_turns.ts';
import { CallItem, CallPage } from '../../src/resources/calls/schemas.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { insertCall, insertCalls, spokenTurns } from '../support/calls.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { schemaViolations } from '../support/response-schema.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

// One call: reading it, deleting it, and its turns as stored before they took the documented shape. The list of
// calls is in calls-list.test.ts.

const SQL_TIMESTAMP = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;
// A file's bytes stand for a recording: only its removal is checked here.
const WAV = Buffer.concat([Buffer.from('RIFF\x2c\x00\x00\x00WAVEfmt ', 'latin1'), Buffer.alloc(36, 7)]);

describe('calls', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform.close());

  const knex = () => platform.database.knex;
  const get = (user: TestUser, path: string) => platform.request('GET', path, { token: user.token });

  describe('GET /user/calls/{id}', () => {
    it("shows every field of the contract and the engine's extras, in their formats", async () => {
      const user = await createTestUser(knex());
      const turns = spokenTurns(new Date('2026-11-20T09:00:00.400Z'), [
        { role: 'assistant', text: 'Hello!', fromMs: 600, toMs: 1600 },
        { role: 'user', text: 'Hi there.', fromMs: 2600, toMs: 3800 },
        {
          role: 'assistant', text: 'How can I', fromMs: 4450, toMs: 5100, interrupted: true,
          metrics: { end_of_speech_to_first_audio_ms: 640, stt_final_delay_ms: 120, llm_first_token_ms: 310, tts_first_byte_ms: 90 },
        },
      ]);
      const id = await insertCall(knex(), user.id, {
        assistant_name: 'Front desk',
        campaign_name: 'November leads',
        campaign_id: 12,
        type: 'outbound',
        status: 'ended_by_customer',
        assistant_phone_number: '+15550001111',
        client_phone_number: '+40721000111',
        duration: 61,
        transcript: 'AI: Hello!\nCustomer: Hi there.\nAI: How can I',
        turns,
        variables: { customer_name: 'Ana' },
        evaluation: { status: true, summary: 'Greeted.' },
        webhook_response: { status: 200 },
        carrier_cost_micros: 80_000,
        total_cost_micros: 1_234_567,
        answered_by: 'human',
        recording_key: 'calls/test/recording.wav',
        end_reason: 'customer_hangup',
        answered_at: '2026-11-20T09:00:00.400Z',
        ended_at: '2026-11-20T09:01:01Z',
        created_at: '2026-11-20T08:59:50Z',
        updated_at: '2026-11-20T09:01:05Z',
      });

      const read = await get(user, `/user/calls/${id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({
        id,
        assistant_name: 'Front desk',
        campaign_name: 'November leads',
        type: 'outbound',
        duration: 61,
        assistant_phone_number: '+15550001111',
        client_phone_number: '+40721000111',
        status: 'ended_by_customer',
        transcript: 'AI: Hello!\nCustomer: Hi there.\nAI: How can I',
        variables: { customer_name: 'Ana' },
        evaluation: { status: true, summary: 'Greeted.' },
        webhook_response: { status: 200 },
        carrier_cost: 0.08,
        total_cost: 1.234567,
        answered_by: 'human',
        recording_url: expect.stringMatching(new RegExp(`^${platform.config.publicUrl}/api/recordings/${id}\\?expires=\\d+&signature=[0-9a-f]{64}$`)),
        created_at: '2026-11-20 08:59:50',
        updated_at: '2026-11-20 09:01:05',
        turns,
        transfers: [],
        end_reason: 'customer_hangup',
        answered_at: '2026-11-20 09:00:00',
        ended_at: '2026-11-20 09:01:01',
      });
      expect(Object.keys(read.body).slice(0, 18)).toEqual([
        'id', 'assistant_name', 'campaign_name', 'type', 'duration', 'assistant_phone_number', 'client_phone_number', 'status', 'transcript',
        'variables', 'evaluation', 'webhook_response', 'carrier_cost', 'total_cost', 'answered_by', 'recording_url', 'created_at', 'updated_at',
      ]);

      // The turns the engine writes, as the documented schema describes them, field for field.
      expect(read.body.turns[2]).toEqual({
        role: 'assistant', text: 'How can I', started_at: '2026-11-20T09:00:04.850Z', ended_at: '2026-11-20T09:00:05.500Z', start_offset_ms: 4450,
        end_offset_ms: 5100, interrupted: true, metrics: { end_of_speech_to_first_audio_ms: 640, stt_final_delay_ms: 120, llm_first_token_ms: 310, tts_first_byte_ms: 90 },
      });
      expect(schemaViolations(CallItem, read.body)).toEqual([]);

      const list = await get(user, '/user/calls');
      expect(list.body.data).toEqual([{ ...read.body, recording_url: expect.any(String) }]);
      expect(schemaViolations(CallPage, list.body)).toEqual([]);
    });

    it('documents turns strictly: a turn in any other shape does not pass the schema', () => {
      const schema = CallItem.properties.turns.items;
      const [turn] = spokenTurns(new Date('2026-11-20T09:00:00Z'), [{ role: 'user', text: 'Hi.', fromMs: 100, toMs: 900 }]);
      expect(schemaViolations(schema, turn)).toEqual([]);
      // The shape the engine wrote before: offsets as its times, `interrupted` among the metrics, camelCase.
      expect(schemaViolations(schema, { ...turn, started_at: 100 })).toEqual(['/started_at must be string']);
      expect(schemaViolations(schema, { ...turn, metrics: { interrupted: false } })).toEqual(['/metrics must NOT have additional properties (interrupted)']);
      expect(schemaViolations(schema, { ...turn, startedAt: turn!.started_at })).toEqual(['/ must NOT have additional properties (startedAt)']);
    });

    it('shows a call without campaign, recording or answer with nulls and zero costs', async () => {
      const user = await createTestUser(knex());
      const id = await insertCall(knex(), user.id, { status: 'initiated' });
      const read = await get(user, `/user/calls/${id}`);
      expect(read.body).toMatchObject({
        campaign_name: null, recording_url: null, answered_by: null, evaluation: null, webhook_response: null,
        carrier_cost: 0, total_cost: 0, transcript: '', turns: [], transfers: [], variables: {}, answered_at: null, ended_at: null, end_reason: null,
      });
      expect(read.body.created_at).toMatch(SQL_TIMESTAMP);
    });

    it("answers 404 for a call that does not exist and for another user's call", async () => {
      const [owner, other] = [await createTestUser(knex()), await createTestUser(knex())];
      const id = await insertCall(knex(), owner.id);
      for (const path of [`/user/calls/${id}`, `/user/calls/${id + 1000}`]) {
        const read = await get(other, path);
        expect(read.status).toBe(404);
        expect(read.body).toEqual({ message: 'Call not found' });
      }
      expect((await get(other, '/user/calls')).body.total).toBe(0);
    });
  });

  describe('DELETE /user/calls/{id}', () => {
    it('deletes the call and its recording file', async () => {
      const user = await createTestUser(knex());
      const key = `calls/delete-test-${user.id}/recording.wav`;
      await platform.providers.storage.write(key, WAV);
      const id = await insertCall(knex(), user.id, { recording_key: key });

      const deleted = await platform.request('DELETE', `/user/calls/${id}`, { token: user.token });
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ message: 'Call deleted successfully' });
      expect(await knex()('calls').where({ id }).first()).toBeUndefined();
      expect(await platform.providers.storage.exists(key)).toBe(false);
      expect((await get(user, `/user/calls/${id}`)).status).toBe(404);
    });

    it("answers 404 for another user's call and leaves it", async () => {
      const [owner, other] = [await createTestUser(knex()), await createTestUser(knex())];
      const id = await insertCall(knex(), owner.id);
      for (const target of [id, id + 1000]) {
        const response = await platform.request('DELETE', `/user/calls/${target}`, { token: other.token });
        expect(response.status).toBe(404);
        expect(response.body).toEqual({ message: 'Call not found or does not belong to the authenticated user' });
      }
      expect((await get(owner, `/user/calls/${id}`)).status).toBe(200);
    });

    it("ends a live call through its workflow before deleting it, and leaves a finished call's workflow alone", async () => {
      const user = await createTestUser(knex());
      const [live, finished] = await insertCalls(knex(), user.id, [{ status: 'in-progress' }, { status: 'completed' }]);
      const signalsTo = async (id: number) => {
        // No worker polls this task queue: the workflow's history records what it was sent and nothing else.
        const handle = await platform.temporal.client.workflow.start('callLifecycleWorkflow', {
          taskQueue: `no-worker-${randomUUID()}`, workflowId: workflowIds.call(id), args: [{ callId: id }],
        });
        onTestFinished(async () => {
          await handle.terminate('test finished');
        });
        return async () => ((await handle.fetchHistory()).events ?? []).flatMap((event) => {
          const signal = event.workflowExecutionSignaledEventAttributes;
          return signal ? [{ name: signal.signalName, input: signal.input?.payloads?.map((payload) => defaultPayloadConverter.fromPayload(payload)) }] : [];
        });
      };
      const [liveSignals, finishedSignals] = [await signalsTo(live as number), await signalsTo(finished as number)];

      for (const id of [live, finished]) expect((await platform.request('DELETE', `/user/calls/${id}`, { token: user.token })).status).toBe(200);
      expect(await liveSignals()).toEqual([{ name: 'endCall', input: [{ reason: 'deleted' }] }]);
      expect(await finishedSignals()).toEqual([]);
      expect((await get(user, '/user/calls')).body.total).toBe(0);
    });

    it('deletes a call still in progress whose workflow has already closed', async () => {
      const user = await createTestUser(knex());
      const live = await insertCalls(knex(), user.id, [{ status: 'initiated' }, { status: 'ringing' }, { status: 'in-progress' }]);
      for (const id of live) expect((await platform.request('DELETE', `/user/calls/${id}`, { token: user.token })).status).toBe(200);
      expect((await get(user, '/user/calls')).body.total).toBe(0);
    });
  });

  describe('turns stored before they took the documented shape', () => {
    const answeredAt = new Date('2026-11-20T09:00:00.400Z');
    // As the engine wrote them then: milliseconds since the answer, `interrupted` among the metrics too.
    const written = [
      { role: 'assistant', text: 'Hello!', startedAt: 12.7, endedAt: 1510.2, interrupted: false, metrics: { interrupted: false, ttsFirstByteMs: 88.4 } },
      { role: 'user', text: 'Hi.', startedAt: 2000, endedAt: 2600, interrupted: false, metrics: { interrupted: false } },
      {
        role: 'assistant', text: 'We open', startedAt: 3100.5, endedAt: 3900, interrupted: true,
        metrics: { interrupted: true, latencyMs: 512.6, sttDelayMs: 140, llmFirstTokenMs: 300.2, ttsFirstByteMs: 90 },
      },
    ];
    // The same conversation as the engine writes it now.
    const expected = spokenTurns(answeredAt, [
      { role: 'assistant', text: 'Hello!', fromMs: 12.7, toMs: 1510.2, metrics: { tts_first_byte_ms: 88.4 } },
      { role: 'user', text: 'Hi.', fromMs: 2000, toMs: 2600 },
      {
        role: 'assistant', text: 'We open', fromMs: 3100.5, toMs: 3900, interrupted: true,
        metrics: { end_of_speech_to_first_audio_ms: 512.6, stt_final_delay_ms: 140, llm_first_token_ms: 300.2, tts_first_byte_ms: 90 },
      },
    ]);

    it('are rewritten by the migration into what the engine writes now, and back by its rollback', async () => {
      const user = await createTestUser(knex());
      const rolledBack = new Error('rolled back');
      // In a transaction undone at the end: the rollback step rewrites every call's turns.
      await expect(knex().transaction(async (trx) => {
        const [old] = await trx('calls').insert({ userId: user.id, assistantName: 'A', type: 'web', answeredAt, turns: JSON.stringify(written) }).returning('id');
        const [current] = await trx('calls').insert({ userId: user.id, assistantName: 'A', type: 'web', answeredAt, turns: JSON.stringify(expected) }).returning('id');
        const turnsOf = async (row: { id: number } | undefined) => (await trx('calls').where({ id: row!.id }).first<{ turns: unknown[] }>('turns')).turns;

        await reshapeCallTurns.up(trx);
        expect(await turnsOf(old)).toEqual(expected);
        for (const turn of await turnsOf(old)) expect(schemaViolations(CallItem.properties.turns.items, turn)).toEqual([]);
        expect(await turnsOf(current)).toEqual(expected);

        await reshapeCallTurns.down(trx);
        expect(await turnsOf(old)).toEqual(written.map((turn) => ({
          ...turn, startedAt: Math.round(turn.startedAt), endedAt: Math.round(turn.endedAt),
          metrics: Object.fromEntries(Object.entries(turn.metrics).map(([name, value]) => [name, typeof value === 'number' ? Math.round(value) : value])),
        })));
        await reshapeCallTurns.up(trx);
        expect(await turnsOf(old)).toEqual(expected);
        throw rolledBack;
      })).rejects.toBe(rolledBack);
    });
  });
});
