import { metricLabel, ms } from '../format.ts';

/** A turn's metrics as the API shows them: latencies in whole milliseconds, and whatever else the engine measures. */
export type Metrics = Record<string, number | boolean | string | null | undefined>;

/**
 * Metrics the engine measures from the end of the caller's speech (src/voice/hooks.ts `TurnMetrics`): each is drawn
 * from 0 to when it happened, so stages that overlap (a transcript final after the turn was decided, a reply drafted
 * before it) show as overlapping bars, in the order they happened.
 */
const FROM_END_OF_SPEECH: [string, string][] = [
  ['end_of_turn_decision_ms', 'end of turn decided'],
  ['stt_final_delay_ms', 'recognizer final'],
];
const TOTAL = 'end_of_speech_to_first_audio_ms';

/**
 * Metrics that are a stage's own duration, from its request to its first answer: the engine does not record when
 * the stage began, so each is drawn as its length only, apart from the timeline. Any other `_ms` metric is one too.
 */
const DURATIONS: [string, string][] = [
  ['llm_first_token_ms', 'model first token'],
  ['tts_first_byte_ms', 'first audio synthesized'],
];

/** Figures that are not times, written as text. */
const FIGURES: Record<string, { label: string; text: (value: Metrics[string]) => string }> = {
  turn_model_score: { label: 'turn model score', text: (value) => (typeof value === 'number' ? value.toFixed(3) : String(value)) },
  preemptive: { label: 'drafted during the pause', text: (value) => (value === 1 || value === true ? 'yes' : 'no') },
  preemptive_discarded: { label: 'drafts discarded', text: (value) => String(value) },
};

function otherValue(value: Metrics[string]): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : value.toFixed(3);
  return String(value ?? '—');
}

const timeMetric = (name: string, value: Metrics[string]): value is number => /_ms$/.test(name) && typeof value === 'number';

function BarRow({ name, label, value, scale, kind }: { name: string; label: string; value: number; scale: number; kind: 'at' | 'total' | 'length' }) {
  const width = `${Math.max(0.5, (Math.min(Math.max(value, 0), scale) / scale) * 100)}%`;
  return (
    <tr class={kind === 'total' ? 'total' : kind === 'length' ? 'length' : undefined} data-metric={name}>
      <th scope="row" title={name}>{label}</th>
      <td class="bar"><span class={`fill ${name.replace(/_ms$/, '')}`} style={{ width }} /></td>
      <td class="num">{ms(value)}</td>
    </tr>
  );
}

/**
 * The latency waterfall of one assistant turn on one time scale starting at the end of the caller's speech: what
 * happened when, the first audio (the caller's wait) among it, each also written out ("412 ms"); then the stages'
 * own durations; then the turn's other figures as text (new measures show up here without a change).
 */
export function Waterfall({ metrics, scaleMs }: { metrics: Metrics; scaleMs: number }) {
  const present = (name: string) => metrics[name] !== undefined && metrics[name] !== null;
  const total = typeof metrics[TOTAL] === 'number' ? metrics[TOTAL] : undefined;
  const known = new Set([TOTAL, ...FROM_END_OF_SPEECH.map(([name]) => name), ...DURATIONS.map(([name]) => name), ...Object.keys(FIGURES)]);
  const timeline = FROM_END_OF_SPEECH.filter(([name]) => typeof metrics[name] === 'number');
  // What happened when, in the order it happened, the first audio (the caller's wait) among them.
  const events = [...timeline, ...(total !== undefined ? [[TOTAL, 'caller waited'] as [string, string]] : [])]
    .sort(([a], [b]) => (metrics[a] as number) - (metrics[b] as number));
  const durations = [...DURATIONS, ...Object.keys(metrics).filter((name) => !known.has(name) && timeMetric(name, metrics[name])).map((name) => [name, metricLabel(name)] as [string, string])]
    .filter(([name]) => typeof metrics[name] === 'number');
  const figures = [
    ...Object.entries(FIGURES).filter(([name]) => present(name)).map(([name, figure]) => [name, figure.label, figure.text(metrics[name])]),
    ...Object.entries(metrics).filter(([name, value]) => !known.has(name) && !timeMetric(name, value) && value !== undefined).map(([name, value]) => [name, metricLabel(name), otherValue(value)]),
  ];
  const scale = Math.max(scaleMs, total ?? 0, ...timeline.map(([name]) => metrics[name] as number), ...durations.map(([name]) => metrics[name] as number), 1);
  return (
    <div class="waterfall">
      <table>
        <caption class="visually-hidden">Latency of this reply, from the end of the caller's speech</caption>
        <tbody>
          {events.map(([name, label]) => <BarRow key={name} name={name} label={label} value={metrics[name] as number} scale={scale} kind={name === TOTAL ? 'total' : 'at'} />)}
        </tbody>
        {durations.length > 0 && (
          <tbody>
            <tr class="part"><th scope="rowgroup" colSpan={3}>Stage durations (when each began is not recorded)</th></tr>
            {durations.map(([name, label]) => <BarRow key={name} name={name} label={label} value={metrics[name] as number} scale={scale} kind="length" />)}
          </tbody>
        )}
        {figures.length > 0 && (
          <tbody>
            {figures.map(([name, label, text]) => (
            <tr key={name} class="other" data-metric={name}>
              <th scope="row" title={name}>{label}</th>
              <td class="bar" />
              <td class="num">{text}</td>
            </tr>
          ))}
          </tbody>
        )}
      </table>
    </div>
  );
}
