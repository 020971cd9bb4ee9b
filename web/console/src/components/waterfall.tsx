import { metricLabel, ms } from '../format.ts';

/** A turn's metrics as the API shows them: latencies in whole milliseconds, and whatever else the engine measures. */
export type Metrics = Record<string, number | boolean | string | null | undefined>;

/**
 * The steps of a reply from the end of the caller's speech, in the order they happen; each is drawn from where
 * the one before it ended (the engine records each step's own duration), and the caller-felt total spans them all.
 */
const STEPS: [string, string][] = [
  ['end_of_turn_decision_ms', 'end of turn decided'],
  ['stt_final_delay_ms', 'recognizer final'],
  ['llm_first_token_ms', 'model first token'],
  ['tts_first_byte_ms', 'first audio synthesized'],
];
const TOTAL = 'end_of_speech_to_first_audio_ms';

function otherValue(value: Metrics[string]): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : value.toFixed(3);
  return String(value ?? '—');
}

/**
 * The latency waterfall of one assistant turn: a bar per measured step on one time scale, each also written out
 * ("412 ms"), then any other metric of the turn (new turn-taking measures show up here without a change).
 */
export function Waterfall({ metrics, scaleMs }: { metrics: Metrics; scaleMs: number }) {
  const measured = STEPS.filter(([name]) => typeof metrics[name] === 'number');
  const total = typeof metrics[TOTAL] === 'number' ? metrics[TOTAL] : undefined;
  const known = new Set([TOTAL, ...STEPS.map(([name]) => name)]);
  const others = Object.entries(metrics).filter(([name, value]) => !known.has(name) && value !== undefined);
  const scale = Math.max(scaleMs, total ?? 0, 1);
  let at = 0;
  const width = (value: number) => `${Math.max(0.5, (value / scale) * 100)}%`;
  return (
    <div class="waterfall">
      <table>
        <caption class="visually-hidden">Latency of this reply</caption>
        <tbody>
          {total !== undefined && (
            <tr class="total">
              <th scope="row">caller waited</th>
              <td class="bar"><span class="fill total" style={{ marginLeft: '0%', width: width(total) }} /></td>
              <td class="num">{ms(total)}</td>
            </tr>
          )}
          {measured.map(([name, label]) => {
            const value = metrics[name] as number;
            const left = `${(Math.min(at, scale) / scale) * 100}%`;
            at += value;
            return (
              <tr key={name}>
                <th scope="row" title={name}>{label}</th>
                <td class="bar"><span class={`fill ${name.replace(/_ms$/, '')}`} style={{ marginLeft: left, width: width(value) }} /></td>
                <td class="num">{ms(value)}</td>
              </tr>
            );
          })}
          {others.map(([name, value]) => (
            <tr key={name} class="other">
              <th scope="row" title={name}>{metricLabel(name)}</th>
              <td class="bar" />
              <td class="num">{/_ms$/.test(name) && typeof value === 'number' ? ms(value) : otherValue(value)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
