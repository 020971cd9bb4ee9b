import { useState } from 'preact/hooks';
import { api, ok, upload, type Answer } from '../api/client.ts';
import { Form } from '../components/form.tsx';
import { Badge, PageHeader, Status } from '../components/page.tsx';
import { plural, when } from '../format.ts';
import { useInterval, useLoad } from '../hooks.ts';
import { BASE, navigate } from '../router.ts';
import { CampaignFields, type Campaign } from './campaign-form.tsx';
import { LEAD_STATUSES, Leads } from './campaign-leads.tsx';

type Imported = Answer<'/user/campaigns/{id}/leads/import', 'post'>;

/** Leads by status as one bar and as numbers, calls in progress against the limit, and the next calling window. */
function Progress({ campaign }: { campaign: Campaign }) {
  const { progress } = campaign;
  const total = Math.max(progress.leads, 1);
  return (
    <section class="card" aria-labelledby="progress">
      <h2 id="progress">Progress</h2>
      <div class="stacked" aria-hidden="true">
        {LEAD_STATUSES.filter((status) => progress.leads_by_status[status] > 0).map((status) => (
          <span key={status} class={`segment ${status}`} style={{ width: `${(progress.leads_by_status[status] / total) * 100}%` }} />
        ))}
      </div>
      <dl class="facts" aria-live="polite">
        <div><dt>Leads</dt><dd>{progress.leads}</dd></div>
        {LEAD_STATUSES.map((status) => <div key={status}><dt><span class={`swatch ${status}`} aria-hidden="true" />{status.replace(/-/g, ' ')}</dt><dd data-status={status}>{progress.leads_by_status[status]}</dd></div>)}
        <div>
          <dt>Calls in progress</dt>
          <dd>
            <span data-testid="calls-in-progress">{progress.calls_in_progress}</span> of {campaign.max_calls_in_parallel}
            <progress max={campaign.max_calls_in_parallel} value={progress.calls_in_progress} aria-label="Calls in progress against the limit" />
          </dd>
        </div>
        <div><dt>Next calling window</dt><dd>{progress.next_window_opens_at ? when(progress.next_window_opens_at) : campaign.status === 'in-progress' ? 'Open now' : '—'}</dd></div>
      </dl>
      <p><a href={`${BASE}/calls?campaign_id=${campaign.id}`}>Calls of this campaign</a></p>
    </section>
  );
}

/** Leads from a CSV file, sent as it is read with a progress bar; then what was created, repeated or refused, by line. */
function ImportLeads({ campaign, onImported }: { campaign: Campaign; onImported: () => void }) {
  const [sent, setSent] = useState<number>();
  const [result, setResult] = useState<Imported>();
  const [error, setError] = useState('');
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const file = (form.elements.namedItem('file') as HTMLInputElement).files?.[0];
    const allowDuplicates = (form.elements.namedItem('allow_dupplicate') as HTMLInputElement).checked;
    setError('');
    setResult(undefined);
    if (!file) return setError('Choose a CSV file first.');
    setSent(0);
    try {
      const answer = await upload<Imported>(`/user/campaigns/${campaign.id}/leads/import${allowDuplicates ? '?allow_dupplicate=1' : ''}`, file, { contentType: 'text/csv', onProgress: setSent });
      setSent(1);
      setResult(answer);
      onImported();
    } catch (failure) {
      setSent(undefined);
      setError((failure as Error).message);
    }
  };
  return (
    <section class="card" aria-labelledby="import">
      <h2 id="import">Import leads</h2>
      <form onSubmit={(event) => void submit(event)} aria-label="Import leads">
        <div class="field">
          <label for="import-file">CSV file</label>
          <input id="import-file" name="file" type="file" accept=".csv,text/csv" aria-describedby="import-hint" />
          <p id="import-hint" class="hint">A <code>phone_number</code> column (or <code>phone</code>, <code>number</code>); other columns become the lead's variables.</p>
        </div>
        <div class="field check">
          <input id="import-duplicates" name="allow_dupplicate" type="checkbox" />
          <label for="import-duplicates">Allow numbers the campaign already has</label>
        </div>
        <div class="form-actions"><button type="submit" class="primary" disabled={sent !== undefined && sent < 1}>Import</button></div>
      </form>
      {sent !== undefined && (
        <div class="field">
          <label for="import-progress">Sent</label>
          <progress id="import-progress" max={1} value={sent}>{Math.round(sent * 100)} %</progress>
        </div>
      )}
      {error && <p class="notice error" role="alert">{error}</p>}
      {result && (
        <div role="status">
          <p>{plural(result.rows, 'row')} read: {result.created} created, {result.duplicates} already in the campaign, {result.invalid} invalid.</p>
          {result.reasons.length > 0 && (
            <ul class="reasons">{result.reasons.map((reason) => <li key={reason.row}>Line {reason.row} ({reason.phone_number}): {reason.reason}</li>)}</ul>
          )}
          {result.reasons_omitted > 0 && <p class="hint">And {result.reasons_omitted} more.</p>}
        </div>
      )}
    </section>
  );
}

/** One campaign: its live progress, start and stop, its leads and their import, and its settings. */
export function CampaignPage({ id }: { id: number }) {
  const campaign = useLoad(() => ok(api.GET('/user/campaigns/{id}', { params: { path: { id } } })), [id]);
  const [message, setMessage] = useState('');
  const data = campaign.data;
  useInterval(campaign.reload, 2000, data?.status === 'in-progress');

  const change = async (action: 'start' | 'stop') => {
    setMessage('');
    try {
      const answer = await ok(api.POST('/user/campaigns/update-status', { body: { campaign_id: id, action } }));
      setMessage(answer.message);
    } catch (error) {
      setMessage((error as Error).message);
    }
    campaign.reload();
  };
  const save = async (body: Record<string, unknown>) => {
    const answer = await ok(api.PUT('/user/campaigns/{id}', { params: { path: { id } }, body: body }));
    setMessage(answer.message);
    campaign.reload();
  };
  const remove = async () => {
    if (!data || !confirm(`Delete the campaign "${data.name}" and its leads?`)) return;
    await ok(api.DELETE('/user/campaigns/{id}', { params: { path: { id } } }));
    navigate(`${BASE}/campaigns`);
  };

  return (
    <>
      <PageHeader title={data?.name ?? `Campaign ${id}`} lead={data ? <>Campaign {id} · <Badge value={data.status} /></> : undefined}>
        {data && data.status !== 'in-progress' && data.status !== 'completed' && <button type="button" class="primary" onClick={() => void change('start')}>Start</button>}
        {data?.status === 'in-progress' && <button type="button" class="danger" onClick={() => void change('stop')}>Stop</button>}
        <a class="button" href={`${BASE}/campaigns`}>All campaigns</a>
      </PageHeader>
      {message && <p role="status" class="notice">{message}</p>}
      <Status loading={campaign.loading && !data} error={campaign.error} retry={campaign.reload} />
      {data && (
        <div class="campaign-layout">
          <Progress campaign={data} />
          <ImportLeads campaign={data} onImported={campaign.reload} />
          <Leads campaign={data} onChange={campaign.reload} />
          <section class="card wide" aria-labelledby="settings">
            <h2 id="settings">Settings</h2>
            <Form onSubmit={save} submitLabel="Save changes" label="Campaign settings" key={data.updated_at}
              actions={<button type="button" class="danger" onClick={() => void remove()}>Delete campaign</button>}>
              <CampaignFields campaign={data} />
            </Form>
          </section>
        </div>
      )}
    </>
  );
}
