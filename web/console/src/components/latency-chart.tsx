import { useEffect, useRef, useState } from 'preact/hooks';
import { ms } from '../format.ts';

export interface LatencyDay {
  date: string;
  latency_p50_ms: number | null;
  latency_p95_ms: number | null;
}

/**
 * The caller-felt latency per day, p50 and p95, drawn by uPlot (loaded with this chart, not with the first page),
 * with the same figures as a table for those who do not see the chart.
 */
export function LatencyChart({ days }: { days: LatencyDay[] }) {
  const box = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState('');
  useEffect(() => {
    const element = box.current;
    if (!element) return undefined;
    let plot: { destroy(): void; setSize(size: { width: number; height: number }): void } | undefined;
    let observer: ResizeObserver | undefined;
    let gone = false;
    import('uplot').then(({ default: UPlot }) => {
      if (gone) return;
      const x = days.map((day) => Date.parse(`${day.date}T00:00:00Z`) / 1000);
      const size = () => ({ width: Math.max(element.clientWidth, 240), height: 240 });
      plot = new UPlot({
        ...size(),
        scales: { x: { time: true }, y: { range: (_self, _min, max) => [0, Math.max(100, max * 1.15)] } },
        axes: [{}, { label: 'ms', values: (_self, ticks) => ticks.map((tick) => `${tick}`) }],
        series: [
          { value: (_self, value) => (value === null ? '—' : new Date(value * 1000).toISOString().slice(0, 10)) },
          { label: 'p50', stroke: '#1f5fbf', width: 2, spanGaps: false, value: (_self, value) => ms(value) },
          { label: 'p95', stroke: '#b4461f', width: 2, dash: [6, 4], spanGaps: false, value: (_self, value) => ms(value) },
        ],
      }, [x, days.map((day) => day.latency_p50_ms), days.map((day) => day.latency_p95_ms)], element);
      observer = new ResizeObserver(() => plot?.setSize(size()));
      observer.observe(element);
    }, (error: unknown) => setFailed(`The chart could not be drawn: ${(error as Error).message}`));
    return () => {
      gone = true;
      observer?.disconnect();
      plot?.destroy();
    };
  }, [days]);
  const measured = days.filter((day) => day.latency_p50_ms !== null);
  return (
    <figure class="chart">
      <div ref={box} class="chart-box" role="img" aria-label="Caller-felt latency per day, p50 and p95; the figures are in the table below." />
      {failed && <p class="notice error">{failed}</p>}
      <figcaption>
        <details>
          <summary>The figures ({measured.length} days with measured replies)</summary>
          <table>
            <caption class="visually-hidden">Caller-felt latency per day</caption>
            <thead><tr><th scope="col">Day (UTC)</th><th scope="col" class="num">p50</th><th scope="col" class="num">p95</th></tr></thead>
            <tbody>
              {measured.map((day) => <tr key={day.date}><td>{day.date}</td><td class="num">{ms(day.latency_p50_ms)}</td><td class="num">{ms(day.latency_p95_ms)}</td></tr>)}
            </tbody>
          </table>
        </details>
      </figcaption>
    </figure>
  );
}
