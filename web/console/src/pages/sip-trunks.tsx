import { useState } from 'preact/hooks';
import { api, ok, type Answer, type Body } from '../api/client.ts';
import { Check, Field, Form, Select } from '../components/form.tsx';
import { Status } from '../components/page.tsx';
import { useLoad } from '../hooks.ts';
import { TableBox } from '../components/table-box.tsx';

type Trunk = Answer<'/user/phone-numbers/sip-trunks'>['data'][number];

/**
 * A trunk's fields as the API names them, filled from `trunk` when one is edited: its password is never shown, and
 * left empty it stays as it is (only the fields sent change).
 */
function TrunkFields({ trunk }: { trunk?: Trunk }) {
  return (
    <>
      <div class="columns">
        <Field name="phone_number" label="Number or extension" defaultValue={trunk?.phone_number ?? ''} />
        <Field name="nickname" label="Nickname" data-empty="null" maxLength={50} defaultValue={trunk?.nickname ?? ''} />
      </div>
      <div class="columns">
        <Select name="sip_trunk_type" label="Kind" options={[{ value: 'number', label: 'A phone number' }, { value: 'extension', label: 'An extension' }]} initial={trunk?.sip_trunk_type} />
        <Field name="country_code" label="Country" defaultValue={trunk?.country_code ?? 'US'} maxLength={2} />
      </div>
      <div class="columns">
        <Field name="sip_address" label="SIP server" placeholder="sip.example.com" defaultValue={trunk?.sip_address ?? ''} />
        <Select name="sip_calling_format" label="Dial numbers as" options={[{ value: '+e164', label: '+E.164' }, { value: 'e164', label: 'E.164 without +' }, { value: 'national', label: 'National' }]}
          initial={trunk?.sip_calling_format} />
      </div>
      <div class="columns">
        <Field name="sip_username" label="User name" autoComplete="off" defaultValue={trunk?.sip_username ?? ''} />
        <Field name="sip_password" label={trunk ? 'New password' : 'Password'} type="password" autoComplete="new-password"
          hint={trunk ? 'Empty keeps the current one, which is never shown.' : 'Stored encrypted, never shown again.'} />
      </div>
      <div class="columns">
        <Select name="inbound_authorization_type" label="Inbound calls are checked by" options={[{ value: 'auth', label: 'User and password' }, { value: 'ip', label: 'Source address' }]}
          initial={trunk?.inbound_authorization_type} />
        <Field name="allowed_inbound_ips" label="Allowed source addresses" data-kind="csv" defaultValue={trunk?.allowed_inbound_ips.join(', ') ?? ''}
          hint="Comma-separated; needed when checked by address." />
      </div>
      <Check name="outbound_proxy" label="Send outbound calls through the proxy" defaultChecked={trunk?.outbound_proxy} />
    </>
  );
}

/** The user's SIP trunks (their own carrier's numbers): adding one, and changing one. */
export function SipTrunks({ onChange }: { onChange: () => void }) {
  const trunks = useLoad(() => ok(api.GET('/user/phone-numbers/sip-trunks')), []);
  const [message, setMessage] = useState('');
  const [editing, setEditing] = useState<Trunk>();
  const update = async (body: Record<string, unknown>) => {
    if (!editing) return;
    const answer = await ok(api.PUT('/user/phone-numbers/sip-trunks/{id}', { params: { path: { id: editing.id } }, body: body }));
    setMessage(`${answer.message} ${answer.data.phone_number}`);
    setEditing(undefined);
    trunks.reload();
    onChange();
  };
  const add = async (body: Record<string, unknown>, form: HTMLFormElement) => {
    const answer = await ok(api.POST('/user/phone-numbers/sip-trunks', { body: body as Body<'/user/phone-numbers/sip-trunks', 'post'> }));
    setMessage(`${answer.message} ${answer.data.phone_number}`);
    form.reset();
    trunks.reload();
    onChange();
  };
  return (
    <section class="card" aria-labelledby="sip">
      <h2 id="sip">SIP trunks</h2>
      <Status loading={trunks.loading && !trunks.data} error={trunks.error} />
      {trunks.data && trunks.data.data.length > 0 && (
        <TableBox label="SIP trunks">
          <table>
            <caption class="visually-hidden">SIP trunks</caption>
            <thead>
              <tr>
                <th scope="col">Number</th><th scope="col">Kind</th><th scope="col">Address</th><th scope="col">User</th><th scope="col">Inbound by</th><th scope="col">Format</th>
                <th scope="col"><span class="visually-hidden">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {trunks.data.data.map((trunk) => (
                <tr key={trunk.id}>
                  <td>{trunk.phone_number}{trunk.nickname ? ` (${trunk.nickname})` : ''}</td>
                  <td>{trunk.sip_trunk_type}</td>
                  <td>{trunk.sip_address}</td>
                  <td>{trunk.sip_username}</td>
                  <td>{trunk.inbound_authorization_type === 'ip' ? `addresses ${trunk.allowed_inbound_ips.join(', ')}` : 'user and password'}</td>
                  <td>{trunk.sip_calling_format}</td>
                  <td class="actions"><button type="button" onClick={() => setEditing(trunk)} aria-label={`Edit SIP trunk ${trunk.phone_number}`}>Edit</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableBox>
      )}
      {editing && (
        <Form onSubmit={update} submitLabel="Save trunk" label={`Edit SIP trunk ${editing.phone_number}`} idPrefix="trunk-edit-" key={editing.id}
          actions={<button type="button" onClick={() => setEditing(undefined)}>Cancel</button>}>
          <h3>Edit {editing.phone_number}</h3>
          <TrunkFields trunk={editing} />
        </Form>
      )}
      <details>
        <summary>Add a SIP trunk</summary>
        <Form onSubmit={add} submitLabel="Add SIP trunk" label="Add a SIP trunk" idPrefix="trunk-new-">
          <TrunkFields />
        </Form>
      </details>
      {message && <p role="status">{message}</p>}
    </section>
  );
}

/** The countries the account may call, text and transfer to: its own numbers' countries unless set. */
export function DialingCountries() {
  const countries = useLoad(() => ok(api.GET('/user/dialing-countries')), []);
  const [message, setMessage] = useState('');
  const save = async (body: Record<string, unknown>) => {
    const list = (body.countries as string[] | undefined) ?? [];
    const answer = await ok(api.PUT('/user/dialing-countries', { body: { countries: list } }));
    countries.setData(answer);
    setMessage(answer.data.default ? 'Back to the default: the countries of your numbers.' : 'Saved.');
  };
  return (
    <section class="card" aria-labelledby="dialing">
      <h2 id="dialing">Dialing countries</h2>
      <Status loading={countries.loading && !countries.data} error={countries.error} />
      {countries.data && (
        <Form onSubmit={save} submitLabel="Save countries" label="Dialing countries" key={countries.data.data.countries.join()}>
          <Field name="countries" label="Countries calls may go to" data-kind="csv" defaultValue={countries.data.data.default ? '' : countries.data.data.countries.join(', ')}
            placeholder={countries.data.data.countries.join(', ')}
            hint={countries.data.data.default ? `Now the default: the countries of your numbers (${countries.data.data.countries.join(', ') || 'none yet'}). Two-letter codes, comma-separated; empty restores the default.` : 'Two-letter codes, comma-separated; empty restores the default.'} />
        </Form>
      )}
      {message && <p role="status">{message}</p>}
    </section>
  );
}
