import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import { Badge, PageHeader, Status } from '../components/page.tsx';
import { Pager } from '../components/pager.tsx';
import { money, seconds, when } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { BASE, filterAddress, navigate, useLocation } from '../router.ts';
import { TableBox } from '../components/table-box.tsx';
import { CALL_STATUSES, FILTERS, queryOf } from './calls-query.ts';

/** The user's calls, newest first, with every filter of the API, a page at a time; the address keeps the filters. */
export function Calls() {
  const { query: search } = useLocation();
  const query = queryOf(search);
  const key = search.toString();
  const calls = useLoad(() => ok(api.GET('/user/calls', { params: { query } })), [key]);
  // The filters' choices come after the list, so the list's own request never waits behind them.
  const listed = calls.data !== undefined;
  const assistants = useLoad(() => (listed ? ok(api.GET('/user/assistants')) : Promise.resolve(undefined)), [listed]);
  const campaigns = useLoad(() => (listed ? ok(api.GET('/user/campaigns')) : Promise.resolve(undefined)), [listed]);

  const apply = (event: Event) => {
    event.preventDefault();
    navigate(filterAddress(`${BASE}/calls`, event.currentTarget as HTMLFormElement, FILTERS));
  };
  const selected = (name: string, value: string | number) => search.get(name) === String(value);
  const active = FILTERS.filter((name) => name !== 'per_page' && search.get(name)).length;
  // On a phone the filters fold away until asked for, so the list is on the first screen.
  const [narrow] = useState(() => matchMedia('(max-width: 760px)').matches);

  return (
    <>
      <PageHeader title="Calls" lead="Phone and web calls, newest first." />
      <details class="filter-box" open={!narrow}>
        <summary>Filters{active > 0 ? ` (${active} on)` : ''}</summary>
        <form class="filters" role="search" aria-label="Filter calls" onSubmit={apply} key={key}>
          <div class="field">
            <label for="calls-status">Status</label>
            <select id="calls-status" name="status">
              <option value="">Any</option>
              {CALL_STATUSES.map((status) => <option key={status} value={status} selected={selected('status', status)}>{status}</option>)}
            </select>
          </div>
          <div class="field">
            <label for="calls-type">Type</label>
            <select id="calls-type" name="type">
              <option value="">Any</option>
              {['inbound', 'outbound', 'web'].map((type) => <option key={type} value={type} selected={selected('type', type)}>{type}</option>)}
            </select>
          </div>
          <div class="field">
            <label for="calls-phone">Client number</label>
            <input id="calls-phone" name="phone_number" type="tel" defaultValue={search.get('phone_number') ?? ''} placeholder="+14155550123" />
          </div>
          <div class="field">
            <label for="calls-assistant">Assistant</label>
            <select id="calls-assistant" name="assistant_id">
              <option value="">Any</option>
              {assistants.data?.map((assistant) => <option key={assistant.id} value={assistant.id} selected={selected('assistant_id', assistant.id)}>{assistant.name}</option>)}
            </select>
          </div>
          <div class="field">
            <label for="calls-campaign">Campaign</label>
            <select id="calls-campaign" name="campaign_id">
              <option value="">Any</option>
              {campaigns.data?.map((campaign) => <option key={campaign.id} value={campaign.id} selected={selected('campaign_id', campaign.id)}>{campaign.name}</option>)}
            </select>
          </div>
          <div class="field">
            <label for="calls-from">From</label>
            <input id="calls-from" name="date_from" type="date" defaultValue={search.get('date_from') ?? ''} />
          </div>
          <div class="field">
            <label for="calls-to">To</label>
            <input id="calls-to" name="date_to" type="date" defaultValue={search.get('date_to') ?? ''} />
          </div>
          <div class="field">
            <label for="calls-per-page">Per page</label>
            <select id="calls-per-page" name="per_page">
              {[15, 25, 50, 100].map((size) => <option key={size} value={size === 15 ? '' : size} selected={selected('per_page', size)}>{size}</option>)}
            </select>
          </div>
          <div class="filter-actions">
            <button type="submit" class="primary">Apply</button>
            {key && <a class="button" href={`${BASE}/calls`}>Clear</a>}
          </div>
        </form>
      </details>
      <Status loading={calls.loading && !calls.data} error={calls.error} retry={calls.reload} />
      {calls.data && (
        <>
          <TableBox label="Calls">
            <table class="calls">
              <caption class="visually-hidden">Calls</caption>
              <thead>
                <tr>
                  <th scope="col">Call</th><th scope="col">Started</th><th scope="col">Client number</th><th scope="col">Type</th><th scope="col">Status</th>
                  <th scope="col">Assistant</th><th scope="col">Campaign</th><th scope="col" class="num">Duration</th><th scope="col" class="num">Cost</th>
                </tr>
              </thead>
              <tbody>
                {calls.data.data.map((call) => (
                  <tr key={call.id}>
                    <td><a href={`${BASE}/calls/${call.id}`}>#{call.id}</a></td>
                    <td>{when(call.created_at)}</td>
                    <td>{call.client_phone_number ?? '—'}</td>
                    <td>{call.type}</td>
                    <td><Badge value={call.status} /></td>
                    <td>{call.assistant_name}</td>
                    <td>{call.campaign_name ?? '—'}</td>
                    <td class="num">{seconds(call.duration)}</td>
                    <td class="num">{money(call.total_cost)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableBox>
          <Pager page={calls.data} noun="calls" />
        </>
      )}
    </>
  );
}
