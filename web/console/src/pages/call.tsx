import { useRef, useState } from 'preact/hooks';
import { api, ok, type Answer } from '../api/client.ts';
import { Deliveries } from '../components/deliveries.tsx';
import { Badge, PageHeader, Status } from '../components/page.tsx';
import { Waterfall, type Metrics } from '../components/waterfall.tsx';
import { money, offset, seconds, when } from '../format.ts';
import { useInterval, useLoad } from '../hooks.ts';
import { BASE } from '../router.ts';

type Call = Answer<'/user/calls/{id}'>;
type Turn = Call['turns'][number];

const LIVE = new Set(['initiated', 'ringing', 'in-progress']);
const SETTLING_MS = 60_000;

function Facts({ call }: { call: Call }) {
  const rows: [string, string][] = [
    ['Assistant', call.assistant_name],
    ['Type', call.type],
    ['Client number', call.client_phone_number ?? '—'],
    ['Assistant number', call.assistant_phone_number ?? '—'],
    ['Campaign', call.campaign_name ?? '—'],
    ['Started', when(call.created_at)],
    ['Answered', when(call.answered_at)],
    ['Ended', when(call.ended_at)],
    ['Duration', seconds(call.duration)],
    ['Answered by', call.answered_by ?? '—'],
    ['Why it ended', call.end_reason?.replace(/_/g, ' ') ?? '—'],
    ['Carrier cost', money(call.carrier_cost)],
    ['Total cost', money(call.total_cost)],
  ];
  return (
    <dl class="facts">
      {rows.map(([term, value]) => <div key={term}><dt>{term}</dt><dd>{value}</dd></div>)}
    </dl>
  );
}

/** The transcript turn by turn; the turn being played is marked, and a turn's time plays the recording from there. */
function Turns({ turns, playingAt, seek, scaleMs }: { turns: Turn[]; playingAt: number | undefined; seek?: (ms: number) => void; scaleMs: number }) {
  if (turns.length === 0) return <p class="empty">Nothing was said.</p>;
  return (
    <ol class="turns">
      {turns.map((turn, index) => {
        const playing = playingAt !== undefined && playingAt >= turn.start_offset_ms && playingAt < turn.end_offset_ms;
        const metrics = turn.metrics as Metrics;
        return (
          <li key={index} class={`turn ${turn.role}${playing ? ' playing' : ''}`} aria-current={playing ? 'true' : undefined}>
            <div class="turn-head">
              {seek ? (
                <button type="button" class="time" onClick={() => seek(turn.start_offset_ms)} aria-label={`Play from ${offset(turn.start_offset_ms)}`}>{offset(turn.start_offset_ms)}</button>
              ) : <span class="time">{offset(turn.start_offset_ms)}</span>}
              <strong>{turn.role === 'assistant' ? 'Assistant' : turn.role === 'user' ? 'Caller' : 'Handed over to'}</strong>
              {turn.interrupted && <Badge value="interrupted" tone="bad" />}
            </div>
            <p class="turn-text">{turn.text}</p>
            {turn.role === 'assistant' && Object.keys(metrics).length > 0 && <Waterfall metrics={metrics} scaleMs={scaleMs} />}
          </li>
        );
      })}
    </ol>
  );
}

function Evaluation({ evaluation }: { evaluation: Call['evaluation'] }) {
  if (!evaluation || Object.keys(evaluation).length === 0) return <p class="empty">No evaluation.</p>;
  return (
    <dl class="facts">
      {Object.entries(evaluation).map(([key, value]) => (
        <div key={key}><dt>{key.replace(/_/g, ' ')}</dt><dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd></div>
      ))}
    </dl>
  );
}

/** One call: what was said and when, its recording following the transcript, each reply's latency, evaluation, cost and webhooks. */
export function CallPage({ id }: { id: number }) {
  const call = useLoad(() => ok(api.GET('/user/calls/{id}', { params: { path: { id } } })), [id]);
  const deliveries = useLoad(() => ok(api.GET('/user/webhook-deliveries', { params: { query: { call_id: id, per_page: 50 } } })), [id]);
  const audio = useRef<HTMLAudioElement>(null);
  const [playingAt, setPlayingAt] = useState<number>();
  const data = call.data;
  const live = data ? LIVE.has(data.status) : false;
  // After the hang-up the evaluation, the recording and the webhook follow within moments: the page waits for them.
  const endedAt = data?.ended_at ? Date.parse(`${data.ended_at.replace(' ', 'T')}Z`) : undefined;
  const settling = endedAt !== undefined && Date.now() - endedAt < SETTLING_MS
    && (!data?.evaluation || !deliveries.data?.data.length || deliveries.data.data.some((delivery) => delivery.status === 'pending'));
  useInterval(() => {
    call.reload();
    deliveries.reload();
  }, 2000, live || settling);
  // Each read signs the recording's link afresh; the player keeps the first, so a refresh never restarts it.
  const [recording, setRecording] = useState<string | null>(null);
  if (!recording && data?.recording_url) setRecording(data.recording_url);

  const scaleMs = Math.max(0, ...(data?.turns ?? []).map((turn) => Number((turn.metrics as Metrics).end_of_speech_to_first_audio_ms ?? 0)));
  const seek = (ms: number) => {
    if (!audio.current) return;
    audio.current.currentTime = ms / 1000;
    void audio.current.play().catch(() => undefined);
  };

  return (
    <>
      <PageHeader title={`Call ${id}`} lead={data ? <>{data.type} call with {data.client_phone_number ?? 'a web visitor'} · <Badge value={data.status} /></> : undefined}>
        <a class="button" href={`${BASE}/calls`}>All calls</a>
      </PageHeader>
      <Status loading={call.loading && !data} error={call.error} retry={call.reload} />
      {data && (
        <div class="call-layout">
          <section aria-labelledby="call-facts" class="card">
            <h2 id="call-facts">Summary</h2>
            <Facts call={data} />
          </section>
          <section aria-labelledby="call-evaluation" class="card">
            <h2 id="call-evaluation">Evaluation</h2>
            <Evaluation evaluation={data.evaluation} />
            {Object.keys(data.variables).length > 0 && (
              <>
                <h3>Variables</h3>
                <Evaluation evaluation={data.variables} />
              </>
            )}
          </section>
          <section aria-labelledby="call-transcript" class="card wide">
            <h2 id="call-transcript">Transcript</h2>
            {recording ? (
              <div class="recording">
                <audio ref={audio} controls preload="metadata" src={recording} aria-label="Recording of the call"
                  onTimeUpdate={(event) => setPlayingAt(event.currentTarget.currentTime * 1000)} onEnded={() => setPlayingAt(undefined)} />
              </div>
            ) : <p class="hint">{live ? 'The recording is ready once the call ends.' : 'No recording of this call (recording is off in its assistant\'s settings).'}</p>}
            <Turns turns={data.turns} playingAt={playingAt} seek={recording ? seek : undefined} scaleMs={scaleMs} />
          </section>
          {data.transfers.length > 0 && (
            <section aria-labelledby="call-transfers" class="card">
              <h2 id="call-transfers">Transfers</h2>
              <ul>{data.transfers.map((transfer, index) => <li key={index}>{transfer.type} transfer{'to' in transfer ? ` to ${transfer.to}` : ''}{'status' in transfer ? `: ${transfer.status}` : ''}</li>)}</ul>
            </section>
          )}
          <section aria-labelledby="call-webhooks" class="card wide">
            <h2 id="call-webhooks">Webhook deliveries</h2>
            <Status loading={deliveries.loading && !deliveries.data} error={deliveries.error} />
            {deliveries.data && (deliveries.data.data.length === 0
              ? <p class="empty">No webhook was sent for this call.</p>
              : <Deliveries deliveries={deliveries.data.data} onChange={deliveries.reload} showCall={false} />)}
          </section>
        </div>
      )}
    </>
  );
}
