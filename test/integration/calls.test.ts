import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import * as reshapeCallTurns from '../../migrations/20261124350001_reshape_call_turns.ts';
import { CallItem, CallPage } from '../../src/resources/calls/schemas.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { insertCall, insertCalls, spokenTurns } from '../support/calls.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { schemaViolations } from '../support/response-schema.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

const SQL_TIMESTAMP = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;
// A file's bytes stand for a recording: only its removal is checked here.
const WAV = Buffer.concat([Buffer.from('RIFF\x2c\x00\x00\x00WAVEfmt ', 'latin1'), Buffer.alloc(36, 7)]);

const ids = (body: { data: { id: number }[] }) => body.data.map((call) => call.id);

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

  describe('GET /user/calls', () => {
    it('filters by each parameter, and by several at once', async () => {
      const user = await createTestUser(knex());
      const other = await createTestUser(knex());
      const [a, b, c, d, e] = await insertCalls(knex(), user.id, [
        { status: 'completed', type: 'outbound', assistant_id: null, campaign_id: 5, client_phone_number: '+40721000001', created_at: '2026-03-01T00:00:00Z' },
        { status: 'failed', type: 'outbound', campaign_id: 5, client_phone_number: '+40721000002', created_at: '2026-03-01T23:59:59Z' },
        { status: 'completed', type: 'inbound', client_phone_number: '+40721000001', created_at: '2026-03-02T00:00:00Z' },
        { status: 'completed', type: 'web', created_at: '2026-03-03T12:00:00Z' },
        { status: 'no-answer', type: 'outbound', campaign_id: 6, client_phone_number: '+40721000001', created_at: '2026-03-04T00:00:00Z' },
      ]);
      await insertCalls(knex(), other.id, [{ status: 'completed', type: 'outbound', campaign_id: 5, client_phone_number: '+40721000001' }]);
      const list = async (query: string) => {
        const response = await get(user, `/user/calls?${query}`);
        expect(response.status).toBe(200);
        expect(response.body.total).toBe(response.body.data.length);
        return ids(response.body);
      };

      expect(await list('')).toEqual([e, d, c, b, a]);
      expect(await list('status=completed')).toEqual([d, c, a]);
      expect(await list('type=outbound')).toEqual([e, b, a]);
      expect(await list('campaign_id=5')).toEqual([b, a]);
      expect(await list('phone_number=%2B40721000001')).toEqual([e, c, a]);
      // Without the `+`, and with it unencoded (it arrives as a space).
      expect(await list('phone_number=40721000001')).toEqual([e, c, a]);
      expect(await list('phone_number=+40721000001')).toEqual([e, c, a]);
      expect(await list('date_from=2026-03-01&date_to=2026-03-01')).toEqual([b, a]);
      expect(await list('date_from=2026-03-02')).toEqual([e, d, c]);
      expect(await list('date_to=2026-03-02')).toEqual([c, b, a]);
      expect(await list('status=completed&type=outbound')).toEqual([a]);
      expect(await list('status=completed&date_from=2026-03-02&date_to=2026-03-03')).toEqual([d, c]);
      expect(await list('phone_number=40721000001&type=outbound&date_from=2026-03-02')).toEqual([e]);
      expect(await list('status=busy')).toEqual([]);
      expect(await list('date_from=2027-01-01')).toEqual([]);
    });

    it('counts date ranges over whole months and the days at their edges, in UTC', async () => {
      const user = await createTestUser(knex());
      const at = ['2025-12-31T23:59:59Z', '2026-01-01T00:00:00Z', '2026-01-31T23:59:59Z', '2026-02-01T00:00:00Z', '2026-02-28T23:59:59Z', '2026-03-01T00:00:00Z', '2026-04-15T12:00:00Z'];
      const created = await insertCalls(knex(), user.id, at.map((createdAt) => ({ created_at: createdAt })));
      const list = async (query: string) => {
        const { body } = await get(user, `/user/calls?${query}`);
        expect(body.total).toBe(body.data.length);
        return ids(body).map((id: number) => at[created.indexOf(id)]);
      };
      expect(await list('date_from=2026-01-01&date_to=2026-02-28')).toEqual(at.slice(1, 5).reverse());
      expect(await list('date_from=2026-01-31&date_to=2026-03-01')).toEqual(at.slice(2, 6).reverse());
      expect(await list('date_from=2025-12-15&date_to=2026-04-15')).toEqual([...at].reverse());
      expect(await list('date_from=2026-02-01')).toEqual(at.slice(3).reverse());
      expect(await list('date_to=2026-01-31')).toEqual(at.slice(0, 3).reverse());
      expect(await list('date_from=2026-03-02&date_to=2026-04-14')).toEqual([]);
    });

    it('filters by assistant, and keeps counting right as calls change status and are deleted', async () => {
      const user = await createTestUser(knex());
      const { id: assistantId } = await createTestAssistant(platform, user);
      const [first, second, third] = await insertCalls(knex(), user.id, [
        { assistant_id: assistantId, status: 'in-progress' },
        { assistant_id: assistantId, status: 'in-progress' },
        { status: 'in-progress' },
      ]);
      expect(ids((await get(user, `/user/calls?assistant_id=${assistantId}`)).body)).toEqual([second, first]);

      await knex()('calls').where({ id: first }).update({ status: 'completed' });
      await knex()('calls').where({ id: third }).update({ turns: JSON.stringify(spokenTurns(new Date(), [{ role: 'user', text: 'x', fromMs: 0, toMs: 400 }])) });
      const count = async (query: string) => (await get(user, `/user/calls?${query}`)).body.total as number;
      expect(await count('status=in-progress')).toBe(2);
      expect(await count('status=completed')).toBe(1);
      expect(await count(`status=completed&assistant_id=${assistantId}&date_from=2000-01-01`)).toBe(1);

      // Deleting the assistant keeps its calls, now without one.
      await knex()('assistants').where({ id: assistantId }).delete();
      expect(await count(`assistant_id=${assistantId}`)).toBe(0);
      expect(await count('')).toBe(3);
      expect((await platform.request('DELETE', `/user/calls/${second}`, { token: user.token })).status).toBe(200);
      expect(await count('status=in-progress')).toBe(1);
      expect(await count('')).toBe(2);
    });

    it('paginates newest first like Laravel, keeping the filters in every page link', async () => {
      const user = await createTestUser(knex());
      const all = await insertCalls(knex(), user.id, Array.from({ length: 8 }, (_, index) => ({ status: index === 3 ? 'failed' : 'completed' })));
      const completed = all.filter((_, index) => index !== 3).reverse();
      const page = async (number: number) => (await get(user, `/user/calls?status=completed&per_page=3&page=${number}`)).body;

      const first = await page(1);
      const path = `${platform.config.publicUrl}/api/user/calls`;
      expect(first).toMatchObject({
        current_page: 1, per_page: 3, total: 7, last_page: 3, from: 1, to: 3, path,
        first_page_url: `${path}?status=completed&per_page=3&page=1`,
        last_page_url: `${path}?status=completed&per_page=3&page=3`,
        next_page_url: `${path}?status=completed&per_page=3&page=2`,
        prev_page_url: null,
      });
      expect(first.links.map((link: { label: string }) => link.label)).toEqual(['&laquo; Previous', '1', '2', '3', 'Next &raquo;']);
      // Pages near the oldest end are read from it: the same order either way.
      const pages = [first, await page(2), await page(3)];
      expect(pages.flatMap(ids)).toEqual(completed);
      expect(pages[2]).toMatchObject({ from: 7, to: 7, next_page_url: null, prev_page_url: `${path}?status=completed&per_page=3&page=2` });
      expect(await page(4)).toMatchObject({ data: [], from: null, to: null, total: 7 });
      const fifteen = await get(user, '/user/calls');
      expect(fifteen.body.per_page).toBe(15);
    });

    it('answers 422 in the Laravel shape for filters out of their rules', async () => {
      const user = await createTestUser(knex());
      const cases: [string, string, string][] = [
        ['status=done', 'status', 'The selected status is invalid.'],
        ['type=sms', 'type', 'The selected type is invalid.'],
        ['per_page=101', 'per_page', 'The per page field must be between 1 and 100.'],
        ['per_page=0', 'per_page', 'The per page field must be between 1 and 100.'],
        ['assistant_id=x', 'assistant_id', 'The assistant id field must be an integer.'],
        ['date_from=2026-13-01', 'date_from', 'The date from field must match the format Y-m-d.'],
        ['date_to=01/02/2026', 'date_to', 'The date to field must match the format Y-m-d.'],
        ['date_from=2026-03-02&date_to=2026-03-01', 'date_to', 'The date to field must be a date after or equal to date from.'],
        ['phone_number=call-me', 'phone_number', 'The phone number field must be a phone number in E.164 format.'],
      ];
      for (const [query, field, message] of cases) {
        const response = await get(user, `/user/calls?${query}`);
        expect(response.status, query).toBe(422);
        expect(response.body, query).toEqual({ message, errors: { [field]: [message] } });
      }
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
