import { useState } from 'preact/hooks';
import { api, ok, type Answer } from '../api/client.ts';
import { Badge, PageHeader, Status } from '../components/page.tsx';
import { money, when } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { BASE } from '../router.ts';
import { DialingCountries, SipTrunks } from './sip-trunks.tsx';
import { formText } from '../components/collect.ts';
import { TableBox } from '../components/table-box.tsx';

type Owned = Answer<'/user/phone-numbers/all'>['data'][number];
type Offer = Answer<'/user/phone-numbers/search'>['data'][number];

function Rename({ number, onDone }: { number: Owned; onDone: () => void }) {
  const [error, setError] = useState('');
  const submit = async (event: Event) => {
    event.preventDefault();
    const nickname = formText(new FormData(event.currentTarget as HTMLFormElement), 'nickname').trim();
    try {
      await ok(api.PUT('/user/phone-numbers/{id}', { params: { path: { id: number.id } }, body: { nickname: nickname || null } }));
      setError('');
      onDone();
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  const id = `nickname-${number.id}`;
  return (
    <form class="inline" onSubmit={(event) => void submit(event)} aria-label={`Rename ${number.phone_number}`}>
      <label for={id} class="visually-hidden">Nickname of {number.phone_number}</label>
      <input id={id} name="nickname" defaultValue={number.nickname ?? ''} maxLength={50} placeholder="No nickname" aria-describedby={error ? `${id}-error` : undefined} aria-invalid={error ? 'true' : undefined} />
      <button type="submit">Rename</button>
      {error && <p id={`${id}-error`} class="field-error">{error}</p>}
    </form>
  );
}

/** Numbers offered in a country, with the price and its monthly renewal stated before the purchase is confirmed. */
function BuyNumber({ onBought }: { onBought: () => void }) {
  const [offers, setOffers] = useState<Offer[]>();
  const [chosen, setChosen] = useState<Offer>();
  const [message, setMessage] = useState<{ text: string; error?: boolean }>();
  const [busy, setBusy] = useState(false);
  const search = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const country = formText(form, 'country_code').trim() || 'US';
    const contains = formText(form, 'contains').trim();
    setMessage(undefined);
    setChosen(undefined);
    try {
      setOffers((await ok(api.GET('/user/phone-numbers/search', { params: { query: { country_code: country, ...(contains ? { contains } : {}) } } }))).data as Offer[]);
    } catch (error) {
      setOffers(undefined);
      setMessage({ text: (error as Error).message, error: true });
    }
  };
  const buy = async (offer: Offer) => {
    setBusy(true);
    try {
      const answer = await ok(api.POST('/user/phone-numbers/purchase', { body: { phone_number: offer.phone_number } }));
      setMessage({ text: `${answer.message} ${answer.data.phone_number} is yours.` });
      setChosen(undefined);
      setOffers(offers?.filter((other) => other !== offer));
      onBought();
    } catch (error) {
      setMessage({ text: (error as Error).message, error: true });
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card" aria-labelledby="buy">
      <h2 id="buy">Buy a number</h2>
      <form class="filters" role="search" aria-label="Search numbers to buy" onSubmit={(event) => void search(event)}>
        <div class="field">
          <label for="search-country">Country</label>
          <input id="search-country" name="country_code" defaultValue="US" maxLength={2} size={4} autoComplete="off" />
        </div>
        <div class="field">
          <label for="search-contains">Containing digits</label>
          <input id="search-contains" name="contains" inputMode="numeric" maxLength={10} autoComplete="off" />
        </div>
        <div class="filter-actions"><button type="submit" class="primary">Search</button></div>
      </form>
      {chosen && (
        <div class="confirm" role="alertdialog" aria-labelledby="confirm-title" aria-describedby="confirm-terms">
          <h3 id="confirm-title">Buy {chosen.phone_number_formatted}?</h3>
          <p id="confirm-terms">
            You pay <strong>{money(chosen.price)}</strong> now from your default card, and <strong>{money(chosen.price)} every month</strong> after
            until you release the number. Purchases are not refunded.
          </p>
          <div class="form-actions">
            <button type="button" class="primary" disabled={busy} onClick={() => void buy(chosen)}>Buy for {money(chosen.price)} a month</button>
            <button type="button" onClick={() => setChosen(undefined)}>Cancel</button>
          </div>
        </div>
      )}
      {message && <p class={message.error ? 'notice error' : 'notice'} role={message.error ? 'alert' : 'status'}>{message.text}</p>}
      {offers && (
        <TableBox label="Numbers offered">
          <table>
            <caption class="visually-hidden">Numbers offered</caption>
            <thead><tr><th scope="col">Number</th><th scope="col">SMS</th><th scope="col">Address needed</th><th scope="col" class="num">Price a month</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {offers.map((offer) => (
                <tr key={offer.phone_number}>
                  <td>{offer.phone_number_formatted}</td>
                  <td>{offer.sms_capable ? 'yes' : 'no'}</td>
                  <td>{offer.address_requirements}</td>
                  <td class="num">{money(offer.price)}</td>
                  <td><button type="button" onClick={() => setChosen(offer)} aria-label={`Buy ${offer.phone_number}`}>Buy…</button></td>
                </tr>
              ))}
            </tbody>
          </table>
          {offers.length === 0 && <p class="empty">No number matches.</p>}
        </TableBox>
      )}
    </section>
  );
}

/** The numbers the user has (bought, SIP trunks, caller IDs), buying more, SIP trunks and where calls may go. */
export function Numbers() {
  const owned = useLoad(() => ok(api.GET('/user/phone-numbers/all')), []);
  const [message, setMessage] = useState('');
  const release = async (number: Owned) => {
    const what = number.type === 'normal' ? 'Release' : 'Delete';
    if (!confirm(`${what} ${number.phone_number}? Inbound assistants lose it and campaigns stop calling from it.`)) return;
    try {
      setMessage((await ok(api.DELETE('/user/phone-numbers/{id}', { params: { path: { id: number.id } } }))).message);
    } catch (error) {
      setMessage((error as Error).message);
    }
    owned.reload();
  };
  return (
    <>
      <PageHeader title="Phone numbers" lead="Numbers your assistants call from and answer." />
      <section class="card wide" aria-labelledby="owned">
        <h2 id="owned">Your numbers</h2>
        <Status loading={owned.loading && !owned.data} error={owned.error} retry={owned.reload} />
        {message && <p role="status" class="notice">{message}</p>}
        {owned.data?.data.length === 0 && <p class="empty">No numbers yet. Buy one below; you need a card on the <a href={`${BASE}/billing`}>Billing</a> page.</p>}
        {owned.data && owned.data.data.length > 0 && (
          <TableBox label="Your numbers">
            <table>
              <caption class="visually-hidden">Your numbers</caption>
              <thead><tr><th scope="col">Number</th><th scope="col">Nickname</th><th scope="col">Kind</th><th scope="col">Country</th><th scope="col">Renews</th><th scope="col">Added</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
              <tbody>
                {owned.data.data.map((number) => (
                  <tr key={number.id}>
                    <td>{number.phone_number}</td>
                    <td><Rename number={number} onDone={owned.reload} /></td>
                    <td>{number.type_label}</td>
                    <td>{number.country_code}</td>
                    <td>{number.type === 'normal' ? <Badge value={number.has_active_subscription ? 'monthly' : 'released'} tone={number.has_active_subscription ? 'good' : 'wait'} /> : '—'}</td>
                    <td>{when(number.created_at)}</td>
                    <td>{(number.type !== 'normal' || number.has_active_subscription) && (
                      <button type="button" class="danger" onClick={() => void release(number)}>{number.type === 'normal' ? 'Release' : 'Delete'}</button>
                    )}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableBox>
        )}
      </section>
      <BuyNumber onBought={owned.reload} />
      <SipTrunks onChange={owned.reload} />
      <DialingCountries />
    </>
  );
}
