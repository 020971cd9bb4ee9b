import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import { Check, Field, Form } from '../components/form.tsx';
import { Badge, PageHeader, Status } from '../components/page.tsx';
import { Pager } from '../components/pager.tsx';
import { money, when } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { useLocation } from '../router.ts';
import { textOf } from '../components/collect.ts';
import { TableBox } from '../components/table-box.tsx';

/** Stripe's test PaymentMethods, which the embedded sandbox payment provider accepts. */
const TEST_CARDS = ['pm_card_visa', 'pm_card_mastercard', 'pm_card_amex', 'pm_card_chargeDeclined', 'pm_card_authenticationRequired'];

function Cards({ onChange }: { onChange: () => void }) {
  const cards = useLoad(() => ok(api.GET('/user/payment-methods')), []);
  const [message, setMessage] = useState('');
  const act = async (run: () => Promise<{ message: string }>) => {
    try {
      setMessage((await run()).message);
    } catch (error) {
      setMessage((error as Error).message);
    }
    cards.reload();
    onChange();
  };
  const add = async (body: Record<string, unknown>, form: HTMLFormElement) => {
    const answer = await ok(api.POST('/user/payment-methods', { body: { payment_method: textOf(body.payment_method) } }));
    setMessage(`${answer.message} ${answer.data.brand} ending ${answer.data.last4}.`);
    form.reset();
    cards.reload();
  };
  return (
    <section class="card" aria-labelledby="cards">
      <h2 id="cards">Payment methods</h2>
      <Status loading={cards.loading && !cards.data} error={cards.error} />
      {cards.data && (cards.data.data.length === 0 ? <p class="empty">No card yet: numbers and top-ups need one.</p> : (
        <TableBox label="Cards">
          <table>
            <caption class="visually-hidden">Cards</caption>
            <thead><tr><th scope="col">Card</th><th scope="col">Expires</th><th scope="col">Default</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {cards.data.data.map((card) => (
                <tr key={card.id}>
                  <td>{card.brand} ending {card.last4}</td>
                  <td>{String(card.exp_month).padStart(2, '0')}/{card.exp_year}</td>
                  <td>{card.is_default ? <Badge value="default" tone="good" /> : (
                    <button type="button" onClick={() => void act(() => ok(api.POST('/user/payment-methods/{id}/default', { params: { path: { id: card.id } } })))}>Make default</button>
                  )}</td>
                  <td><button type="button" class="danger" onClick={() => void act(() => ok(api.DELETE('/user/payment-methods/{id}', { params: { path: { id: card.id } } })))}
                    aria-label={`Remove ${card.brand} ending ${card.last4}`}>Remove</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableBox>
      ))}
      <Form onSubmit={add} submitLabel="Add card" label="Add a card">
        <Field name="payment_method" label="PaymentMethod id" list="test-cards" autoComplete="off" placeholder="pm_card_visa"
          hint="The id of a PaymentMethod made by Stripe.js (pm_…). On the embedded sandbox, Stripe's test ids work: pm_card_visa, pm_card_mastercard…" />
        <datalist id="test-cards">{TEST_CARDS.map((card) => <option key={card} value={card} />)}</datalist>
      </Form>
      {message && <p role="status">{message}</p>}
    </section>
  );
}

function TopUp({ onChange }: { onChange: () => void }) {
  const [message, setMessage] = useState('');
  const submit = async (body: Record<string, unknown>) => {
    setMessage('');
    // One key per submission: a retry of this same request is answered once, never charged twice.
    const answer = await ok(api.POST('/user/balance/top-up', { body: { amount: Number(body.amount) }, headers: { 'Idempotency-Key': crypto.randomUUID() } }));
    setMessage(`${answer.message} Balance: ${money(answer.data.balance)}.`);
    onChange();
  };
  const recharge = useLoad(() => ok(api.GET('/user/balance/auto-recharge')), []);
  const saveRecharge = async (body: Record<string, unknown>) => {
    const answer = await ok(api.PUT('/user/balance/auto-recharge', { body: { enabled: Boolean(body.enabled), threshold: Number(body.threshold), amount: Number(body.amount) } }));
    recharge.setData(answer);
  };
  return (
    <section class="card" aria-labelledby="top-up">
      <h2 id="top-up">Add funds</h2>
      <Form onSubmit={submit} submitLabel="Top up" label="Top up the balance">
        <Field name="amount" label="Amount (USD)" type="number" min="5" max="1000" step="0.01" defaultValue="20" hint="5 to 1000, charged to the default card." />
      </Form>
      {message && <p role="status">{message}</p>}
      <h3>Automatic top-up</h3>
      {recharge.data && (
        <Form onSubmit={saveRecharge} submitLabel="Save" label="Automatic top-up" key={JSON.stringify(recharge.data.data)}>
          <Check name="enabled" label="Top up automatically when the balance runs low" defaultChecked={recharge.data.data.enabled} />
          <div class="columns">
            <Field name="threshold" label="When the balance falls below (USD)" type="number" min="0" step="0.01" defaultValue={String(recharge.data.data.threshold)} />
            <Field name="amount" label="Add (USD)" type="number" min="5" max="1000" step="0.01" defaultValue={String(recharge.data.data.amount)} />
          </div>
        </Form>
      )}
    </section>
  );
}

function Ledger({ version }: { version: number }) {
  const { query } = useLocation();
  const page = Number(query.get('page') ?? 1) || 1;
  const ledger = useLoad(() => ok(api.GET('/user/balance/transactions', { params: { query: { page, per_page: 25 } } })), [page, version]);
  return (
    <section class="card wide" aria-labelledby="ledger">
      <h2 id="ledger">Ledger</h2>
      <Status loading={ledger.loading && !ledger.data} error={ledger.error} />
      {ledger.data && (
        <>
          <TableBox label="Ledger entries">
            <table>
              <caption class="visually-hidden">Ledger entries</caption>
              <thead><tr><th scope="col">When</th><th scope="col">Kind</th><th scope="col">Description</th><th scope="col" class="num">Amount</th></tr></thead>
              <tbody>
                {ledger.data.data.map((entry) => (
                  <tr key={entry.id}>
                    <td>{when(entry.created_at)}</td>
                    <td>{entry.type.replace(/_/g, ' ')}</td>
                    <td>{entry.description}</td>
                    <td class={`num ${entry.amount < 0 ? 'debit' : 'credit'}`}>{money(entry.amount)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableBox>
          <Pager page={ledger.data} noun="entries" />
        </>
      )}
    </section>
  );
}

/** The balance, cards, top-ups (by hand or automatic) and the ledger of every charge and credit. */
export function Billing() {
  const me = useLoad(() => ok(api.GET('/user/me')), []);
  const [version, setVersion] = useState(0);
  const changed = () => {
    me.reload();
    setVersion(version + 1);
  };
  return (
    <>
      <PageHeader title="Billing" lead={me.data ? <>Balance: <strong>{money(me.data.total_balance)}</strong></> : undefined} />
      <div class="grid">
        <Cards onChange={changed} />
        <TopUp onChange={changed} />
        <Ledger version={version} />
      </div>
    </>
  );
}
