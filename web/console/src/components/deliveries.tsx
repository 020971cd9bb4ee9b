import { useState } from 'preact/hooks';
import { api, ok, type Answer } from '../api/client.ts';
import { ms, when } from '../format.ts';
import { BASE } from '../router.ts';
import { Badge } from './page.tsx';
import { TableBox } from './table-box.tsx';

export type Delivery = Answer<'/user/webhook-deliveries'>['data'][number];

const REDELIVERABLE = new Set(['delivered', 'failed', 'dead', 'cancelled']);

/** A delivery's attempts: when, the answer's status and time, and what went wrong. */
function Attempts({ delivery }: { delivery: Delivery }) {
  if (delivery.attempts.length === 0) return <p class="hint">No attempt yet.</p>;
  return (
    <table class="attempts">
      <caption class="visually-hidden">Attempts of delivery {delivery.id}</caption>
      <thead><tr><th scope="col">Attempt</th><th scope="col">When</th><th scope="col">Answer</th><th scope="col" class="num">Took</th><th scope="col">Response or error</th></tr></thead>
      <tbody>
        {delivery.attempts.map((attempt) => (
          <tr key={attempt.attempt}>
            <td>{attempt.attempt}</td>
            <td>{when(attempt.attempted_at)}</td>
            <td>{attempt.status_code ?? '—'}</td>
            <td class="num">{ms(attempt.latency_ms)}</td>
            <td class="excerpt">{attempt.error ?? attempt.response_excerpt}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * Webhook deliveries with their attempts and a redeliver button; a redelivery is a new delivery of the same event
 * (`onChange` reloads the list to show it).
 */
export function Deliveries({ deliveries, onChange, showCall = true }: { deliveries: Delivery[]; onChange: () => void; showCall?: boolean }) {
  const [message, setMessage] = useState('');
  const redeliver = async (delivery: Delivery) => {
    setMessage('');
    try {
      const answer = await ok(api.POST('/user/webhook-deliveries/{id}/redeliver', { params: { path: { id: delivery.id } } }));
      setMessage(`${answer.message}: delivery ${answer.data.id}.`);
      onChange();
    } catch (error) {
      setMessage((error as Error).message);
    }
  };
  return (
    <>
      <TableBox label="Webhook deliveries">
        <table class="deliveries">
          <caption class="visually-hidden">Webhook deliveries</caption>
          <thead>
            <tr>
              <th scope="col">Delivery</th><th scope="col">Event</th>{showCall && <th scope="col">Of</th>}<th scope="col">URL</th><th scope="col">Status</th>
              <th scope="col" class="num">Attempts</th><th scope="col">Created</th><th scope="col"><span class="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((delivery) => (
              <tr key={delivery.id}>
                <td>
                  <details>
                    <summary>#{delivery.id}{delivery.redelivery_of ? ` (again of #${delivery.redelivery_of})` : ''}</summary>
                    <Attempts delivery={delivery} />
                    {delivery.last_error && <p class="field-error">{delivery.last_error}</p>}
                    {delivery.next_attempt_at && <p class="hint">Next attempt {when(delivery.next_attempt_at)}</p>}
                  </details>
                </td>
                <td>{delivery.kind}</td>
                {showCall && <td>{delivery.call_id ? <a href={`${BASE}/calls/${delivery.call_id}`}>call {delivery.call_id}</a> : delivery.conversation_id ? `chat ${delivery.conversation_id}` : '—'}</td>}
                <td class="url">{delivery.url}</td>
                <td><Badge value={delivery.status} /></td>
                <td class="num">{delivery.attempts_count}</td>
                <td>{when(delivery.created_at)}</td>
                <td>
                  {REDELIVERABLE.has(delivery.status) && (
                    <button type="button" onClick={() => void redeliver(delivery)} aria-label={`Redeliver delivery ${delivery.id}`}>Redeliver</button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableBox>
      {message && <p role="status">{message}</p>}
    </>
  );
}
