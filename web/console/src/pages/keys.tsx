import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import { CopyButton } from '../components/copy.tsx';
import { Field, Form } from '../components/form.tsx';
import { PageHeader, Status } from '../components/page.tsx';
import { when } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { textOf } from '../components/collect.ts';
import { TableBox } from '../components/table-box.tsx';

/** API keys: a new key's token is shown once, here and now (it is not kept by the page: a reload loses it); revoking. */
export function KeysPage() {
  const keys = useLoad(() => ok(api.GET('/user/api-keys')), []);
  const [created, setCreated] = useState<{ name: string; token: string }>();
  const [message, setMessage] = useState('');
  const create = async (body: Record<string, unknown>, form: HTMLFormElement) => {
    const answer = await ok(api.POST('/user/api-keys', { body: { name: textOf(body.name) } }));
    setCreated({ name: answer.api_key.name, token: answer.api_key.token });
    form.reset();
    keys.reload();
  };
  const revoke = async (id: number, name: string) => {
    if (!confirm(`Revoke the key "${name}"? Anything using it stops working at once.`)) return;
    try {
      await ok(api.DELETE('/user/api-keys/{id}', { params: { path: { id } } }));
      setMessage(`Revoked "${name}".`);
    } catch (error) {
      setMessage((error as Error).message);
    }
    keys.reload();
  };
  return (
    <>
      <PageHeader title="API keys" lead="Keys for your own code to call the Parley API as you." />
      {created && (
        <div class="notice token" role="status">
          <p>Your new key <strong>{created.name}</strong>. Copy it now: it is shown only this once.</p>
          <p><code class="secret" data-testid="new-token">{created.token}</code> <CopyButton text={created.token} /></p>
          <button type="button" class="quiet" onClick={() => setCreated(undefined)}>I have copied it</button>
        </div>
      )}
      <section class="card" aria-labelledby="new-key">
        <h2 id="new-key">New key</h2>
        <Form onSubmit={create} submitLabel="Create key" label="New API key">
          <Field name="name" label="Name" maxLength={255} hint="What the key is for, such as the system that uses it." />
        </Form>
      </section>
      <Status loading={keys.loading && !keys.data} error={keys.error} retry={keys.reload} />
      {message && <p role="status">{message}</p>}
      {keys.data && (
        <TableBox label="API keys">
          <table>
            <caption class="visually-hidden">API keys</caption>
            <thead><tr><th scope="col">Name</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {keys.data.api_keys.map((key) => (
                <tr key={key.id}>
                  <td>{key.name}</td>
                  <td>{when(key.created_at)}</td>
                  <td>{when(key.last_used_at)}</td>
                  <td><button type="button" class="danger" onClick={() => void revoke(key.id, key.name)} aria-label={`Revoke ${key.name}`}>Revoke</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableBox>
      )}
    </>
  );
}
