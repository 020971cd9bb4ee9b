import { useState } from 'preact/hooks';
import { api, ok, type Answer, type Body } from '../api/client.ts';
import { formText } from '../components/collect.ts';
import { Check, Field, Form, Select } from '../components/form.tsx';
import { Badge, Status } from '../components/page.tsx';
import { Pager } from '../components/pager.tsx';
import { KeyValues } from '../components/rows.tsx';
import { TableBox } from '../components/table-box.tsx';
import { when } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { navigate, useLocation, withQuery } from '../router.ts';
import type { Campaign } from './campaign-form.tsx';

export const LEAD_STATUSES = ['created', 'scheduled', 'processing', 'completed', 'rescheduled', 'reached-max-retries', 'blacklisted'] as const;
/** The statuses a user may set (src/resources/leads/model.ts SETTABLE_LEAD_STATUSES); the campaign moves leads through the rest. */
const SETTABLE = ['created', 'completed', 'reached-max-retries'] as const;
type Lead = Answer<'/user/leads'>['data'][number];

/**
 * Changes one lead as `PUT /user/leads/{id}` allows: its number, its status (to one a user may set), its campaign,
 * and variables merged into its own.
 */
function EditLead({ lead, campaigns, onDone }: { lead: Lead; campaigns: { id: number; name: string }[]; onDone: (message?: string) => void }) {
  const save = async (body: Record<string, unknown>) => {
    const answer = await ok(api.PUT('/user/leads/{id}', { params: { path: { id: lead.id } }, body: body }));
    onDone(answer.message);
  };
  const settable = (SETTABLE as readonly string[]).includes(lead.status);
  return (
    <Form onSubmit={save} submitLabel="Save lead" label={`Edit lead ${lead.phone_number}`} idPrefix="lead-edit-" key={lead.id}
      actions={<button type="button" onClick={() => onDone()}>Cancel</button>}>
      <h3>Edit {lead.phone_number}</h3>
      <div class="columns">
        <Field name="phone_number" label="Phone number" type="tel" defaultValue={lead.phone_number} />
        <Select name="status" label="Status" options={SETTABLE.map((status) => ({ value: status, label: status.replace(/-/g, ' ') }))} initial={settable ? lead.status : undefined}
          empty={settable ? undefined : `Keep ${lead.status.replace(/-/g, ' ')}`} hint="Created calls it again; the others take it out of the queue." />
        <Select name="campaign_id" label="Campaign" data-kind="id" data-empty="omit" options={campaigns.map((campaign) => ({ value: campaign.id, label: campaign.name }))} initial={lead.campaign_id} />
      </div>
      <KeyValues name="variables" legend="Variables" initial={lead.variables}
        hint="Merged into the lead's variables: a variable removed here keeps its stored value; give it an empty value to blank it." />
    </Form>
  );
}

/** One lead added by hand, as `POST /user/lead` takes it. */
function AddLead({ campaign, onAdded }: { campaign: Campaign; onAdded: (message: string) => void }) {
  const add = async (body: Record<string, unknown>, form: HTMLFormElement) => {
    const answer = await ok(api.POST('/user/lead', { body: body as Body<'/user/lead', 'post'> }));
    form.reset();
    onAdded(`${answer.message}: ${answer.data.phone_number}`);
  };
  return (
    <details>
      <summary>Add a lead</summary>
      <Form onSubmit={add} submitLabel="Add lead" label="Add a lead" idPrefix="lead-new-">
        <input type="hidden" name="campaign_id" data-kind="id" value={campaign.id} />
        <div class="columns">
          <Field name="phone_number" label="Phone number" type="tel" placeholder="+14155550123" />
          <Field name="variables.customer_name" label="Name" />
          <Field name="variables.email" label="Email" type="email" />
        </div>
        <Check name="allow_dupplicate" label="Add it even if the campaign has this number" />
      </Form>
    </details>
  );
}

/** The campaign's leads with their filters, a page at a time; each can be changed or deleted, and one added by hand. */
export function Leads({ campaign, onChange }: { campaign: Campaign; onChange: () => void }) {
  const { query } = useLocation();
  const page = Number(query.get('page') ?? 1) || 1;
  const status = query.get('status') ?? '';
  const phone = query.get('phone_number') ?? '';
  const leads = useLoad(() => ok(api.GET('/user/leads', { params: { query: {
    campaign_id: campaign.id, page, per_page: 25, ...(status ? { status: status as 'created' } : {}), ...(phone ? { phone_number: phone } : {}),
  } } })), [campaign.id, page, status, phone, JSON.stringify(campaign.progress.leads_by_status)]);
  const campaigns = useLoad(() => ok(api.GET('/user/campaigns')), []);
  const [editing, setEditing] = useState<Lead>();
  const [message, setMessage] = useState('');
  const changed = (text?: string) => {
    setEditing(undefined);
    if (text) setMessage(text);
    leads.reload();
    onChange();
  };
  const remove = async (lead: Lead) => {
    if (!confirm(`Delete the lead ${lead.phone_number}?`)) return;
    try {
      changed((await ok(api.DELETE('/user/leads/{id}', { params: { path: { id: lead.id } } }))).message);
    } catch (error) {
      setMessage((error as Error).message);
    }
  };
  const filter = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    navigate(withQuery({ status: formText(form, 'status'), phone_number: formText(form, 'phone_number').trim(), page: undefined }));
  };
  return (
    <section class="card wide" aria-labelledby="leads">
      <h2 id="leads">Leads</h2>
      <form class="filters" role="search" aria-label="Filter leads" onSubmit={filter}>
        <div class="field">
          <label for="leads-status">Status</label>
          <select id="leads-status" name="status">
            <option value="">Any</option>
            {LEAD_STATUSES.map((value) => <option key={value} value={value} selected={value === status}>{value}</option>)}
          </select>
        </div>
        <div class="field">
          <label for="leads-phone">Phone number</label>
          <input id="leads-phone" name="phone_number" type="tel" defaultValue={phone} />
        </div>
        <div class="filter-actions"><button type="submit">Filter</button></div>
      </form>
      <Status loading={leads.loading && !leads.data} error={leads.error} />
      {leads.data && (
        <>
          <TableBox label="Leads of the campaign">
            <table>
              <caption class="visually-hidden">Leads of the campaign</caption>
              <thead>
                <tr><th scope="col">Phone number</th><th scope="col">Status</th><th scope="col">Variables</th><th scope="col">Added</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr>
              </thead>
              <tbody>
                {leads.data.data.map((lead) => (
                  <tr key={lead.id}>
                    <td>{lead.phone_number}{lead.secondary_contacts.length > 0 && <span class="hint"> +{lead.secondary_contacts.length} more</span>}</td>
                    <td><Badge value={lead.status} /></td>
                    <td class="excerpt">{Object.entries(lead.variables).map(([key, value]) => `${key}: ${String(value)}`).join(', ')}</td>
                    <td>{when(lead.created_at)}</td>
                    <td class="actions">
                      <button type="button" onClick={() => setEditing(lead)} aria-label={`Edit lead ${lead.phone_number}`}>Edit</button>
                      <button type="button" class="danger" onClick={() => void remove(lead)} aria-label={`Delete lead ${lead.phone_number}`}>Delete</button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableBox>
          <Pager page={leads.data} noun="leads" />
        </>
      )}
      {editing && <EditLead lead={editing} campaigns={campaigns.data ?? [campaign]} onDone={changed} />}
      <AddLead campaign={campaign} onAdded={(text) => changed(text)} />
      {message && <p role="status">{message}</p>}
    </section>
  );
}
