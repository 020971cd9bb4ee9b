import type { ComponentChildren } from 'preact';
import { api, ok } from '../api/client.ts';
import { LatencyChart } from '../components/latency-chart.tsx';
import { PageHeader, Status } from '../components/page.tsx';
import { money, ms, percent } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { BASE } from '../router.ts';

const rate = (period: { answered: number; unanswered: number }) => {
  const reached = period.answered + period.unanswered;
  return reached === 0 ? null : period.answered / reached;
};

function Figure({ label, value, detail }: { label: string; value: string; detail?: ComponentChildren }) {
  return (
    <div class="figure">
      <dt>{label}</dt>
      <dd><span class="value">{value}</span>{detail && <span class="detail">{detail}</span>}</dd>
    </div>
  );
}

/** The account at a glance: balance, today and the last 30 days, and how fast the assistants answered. */
export function Overview() {
  const me = useLoad(() => ok(api.GET('/user/me')), []);
  const stats = useLoad(() => ok(api.GET('/user/calls/stats', { params: { query: { days: 30 } } })), []);
  const data = stats.data?.data;
  const today = data?.days.at(-1);
  return (
    <>
      <PageHeader title="Overview" lead={me.data ? `Hello, ${me.data.name}.` : undefined}>
        <a class="button primary" href={`${BASE}/assistants/new`}>New assistant</a>
      </PageHeader>
      <Status loading={(me.loading && !me.data) || (stats.loading && !data)} error={me.error ?? stats.error} retry={() => { me.reload(); stats.reload(); }} />
      {me.data && data && today && (
        <>
          <dl class="figures">
            <Figure label="Balance" value={money(me.data.total_balance)} detail={<a href={`${BASE}/billing`}>Add funds</a>} />
            <Figure label="Calls today" value={today.calls.toLocaleString()} detail={`${today.minutes} min`} />
            <Figure label="Calls, 30 days" value={data.total.calls.toLocaleString()} detail={`${data.total.minutes.toLocaleString()} min`} />
            <Figure label="Spend, 30 days" value={money(data.total.spend)} detail={`today ${money(today.spend)}`} />
            <Figure label="Answer rate, 30 days" value={percent(rate(data.total))} detail={`${data.total.answered} of ${data.total.answered + data.total.unanswered} dialled`} />
            <Figure label="Latency, 30 days" value={ms(data.total.latency_p50_ms)} detail={`p50 · p95 ${ms(data.total.latency_p95_ms)}`} />
          </dl>
          <section class="card wide" aria-labelledby="latency">
            <h2 id="latency">Caller-felt latency per day</h2>
            <p class="hint">From the end of the caller's speech to the assistant's first audio, over {data.total.replies.toLocaleString()} replies; days in UTC.</p>
            <LatencyChart days={data.days} />
          </section>
        </>
      )}
    </>
  );
}
