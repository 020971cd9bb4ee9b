import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import { CopyButton } from '../components/copy.tsx';
import { Deliveries } from '../components/deliveries.tsx';
import { PageHeader, Status } from '../components/page.tsx';
import { Pager } from '../components/pager.tsx';
import { when } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { BASE, filterAddress, navigate, useLocation } from '../router.ts';

const STATUSES = ['pending', 'delivered', 'failed', 'dead', 'cancelled'] as const;

/** The secret that signs webhooks, shown on request, and its rotation. */
function SigningSecret() {
  const [secret, setSecret] = useState<string>();
  const [note, setNote] = useState('');
  const reveal = async () => setSecret((await ok(api.GET('/user/webhook-signing-secret'))).data.secret);
  const rotate = async () => {
    if (!confirm('Issue a new signing secret? For 24 hours webhooks carry signatures by both.')) return;
    const answer = await ok(api.POST('/user/webhook-signing-secret/rotate'));
    setSecret(answer.data.secret);
    setNote(`The previous secret also signs until ${when(answer.data.previous_secret_expires_at)}.`);
  };
  return (
    <section class="card" aria-labelledby="secret">
      <h2 id="secret">Signing secret</h2>
      <p class="hint">Each webhook carries an <code>X-Parley-Signature</code> header made with this secret: check it to know the request came from Parley.</p>
      {secret ? <p><code class="secret">{secret}</code> <CopyButton text={secret} /></p> : <button type="button" onClick={() => void reveal()}>Show the secret</button>}
      <button type="button" class="quiet" onClick={() => void rotate()}>Rotate</button>
      {note && <p role="status">{note}</p>}
    </section>
  );
}

/** Every webhook the account sent, newest first, with filters and redelivery. */
export function Webhooks() {
  const { query } = useLocation();
  const page = Number(query.get('page') ?? 1) || 1;
  const status = query.get('status') ?? '';
  const assistant = query.get('assistant_id') ?? '';
  const call = query.get('call_id') ?? '';
  const deliveries = useLoad(() => ok(api.GET('/user/webhook-deliveries', { params: { query: {
    page, per_page: 25, ...(status ? { status: status as 'pending' } : {}), ...(/^\d+$/.test(assistant) ? { assistant_id: Number(assistant) } : {}),
    ...(/^\d+$/.test(call) ? { call_id: Number(call) } : {}),
  } } })), [page, status, assistant, call]);
  const assistants = useLoad(() => ok(api.GET('/user/assistants')), []);
  const apply = (event: Event) => {
    event.preventDefault();
    navigate(filterAddress(`${BASE}/webhooks`, event.currentTarget as HTMLFormElement, ['status', 'assistant_id', 'call_id']));
  };
  return (
    <>
      <PageHeader title="Webhooks" lead="What Parley sent to your webhook URLs, each attempt and its answer." />
      <form class="filters" role="search" aria-label="Filter deliveries" onSubmit={apply} key={query.toString()}>
        <div class="field">
          <label for="deliveries-status">Status</label>
          <select id="deliveries-status" name="status">
            <option value="">Any</option>
            {STATUSES.map((value) => <option key={value} value={value} selected={value === status}>{value}</option>)}
          </select>
        </div>
        <div class="field">
          <label for="deliveries-assistant">Assistant</label>
          <select id="deliveries-assistant" name="assistant_id">
            <option value="">Any</option>
            {assistants.data?.map((item) => <option key={item.id} value={item.id} selected={String(item.id) === assistant}>{item.name}</option>)}
          </select>
        </div>
        <div class="field">
          <label for="deliveries-call">Call id</label>
          <input id="deliveries-call" name="call_id" inputMode="numeric" defaultValue={call} />
        </div>
        <div class="filter-actions"><button type="submit" class="primary">Apply</button></div>
      </form>
      <Status loading={deliveries.loading && !deliveries.data} error={deliveries.error} retry={deliveries.reload} />
      {deliveries.data && (
        <>
          <Deliveries deliveries={deliveries.data.data} onChange={deliveries.reload} />
          {deliveries.data.total === 0 && <p class="empty">No webhooks sent yet. Turn them on in an assistant's settings.</p>}
          <Pager page={deliveries.data} noun="deliveries" />
        </>
      )}
      <SigningSecret />
    </>
  );
}
