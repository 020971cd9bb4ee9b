import { useState } from 'preact/hooks';
import { api, ok, type Answer, type Body } from '../api/client.ts';
import { Check, Field, Form, Select, TextArea } from '../components/form.tsx';
import { PageHeader, Status } from '../components/page.tsx';
import { RowControl, RowList, tied } from '../components/rows.tsx';
import { TableBox } from '../components/table-box.tsx';
import { when } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { BASE, navigate } from '../router.ts';

type Tool = Answer<'/user/tools/{id}'>;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The user's mid-call HTTP tools: what each calls, and a way to a new one. */
export function Tools() {
  const tools = useLoad(() => ok(api.GET('/user/tools')), []);
  return (
    <>
      <PageHeader title="Tools" lead="HTTP requests an assistant may make during a call or chat, with values it takes from the conversation.">
        <a class="button primary" href={`${BASE}/tools/new`}>New tool</a>
      </PageHeader>
      <Status loading={tools.loading && !tools.data} error={tools.error} retry={tools.reload} />
      {tools.data && (tools.data.length === 0
        ? <p class="empty">No tools yet. <a href={`${BASE}/tools/new`}>Create your first tool</a>, then attach it in an assistant's settings.</p>
        : (
          <TableBox label="Tools">
            <table>
              <caption class="visually-hidden">Tools</caption>
              <thead><tr><th scope="col">Name</th><th scope="col">Request</th><th scope="col">What it is for</th><th scope="col" class="num">Parameters</th><th scope="col">Changed</th></tr></thead>
              <tbody>
                {tools.data.map((tool) => (
                  <tr key={tool.id}>
                    <td><a href={`${BASE}/tools/${tool.id}`}>{tool.name}</a></td>
                    <td class="excerpt"><code>{tool.method}</code> {tool.endpoint}</td>
                    <td class="excerpt">{tool.description}</td>
                    <td class="num">{tool.schema.length}</td>
                    <td>{when(tool.updated_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableBox>
        ))}
    </>
  );
}

/** Every field of the tool resource: its request, the headers sent with it, and the parameters the model fills in. */
function ToolFields({ tool }: { tool: Tool | undefined }) {
  return (
    <>
      <fieldset>
        <legend>The tool</legend>
        <Field name="name" label="Name" defaultValue={tool?.name ?? ''} maxLength={64} placeholder="check_availability"
          hint="What the model calls it: lowercase letters and underscores, starting with a letter." />
        <TextArea name="description" label="When to use it" rows={2} maxLength={255} defaultValue={tool?.description ?? ''}
          hint="Tells the assistant when and how to use the tool (up to 255 characters)." />
      </fieldset>
      <fieldset>
        <legend>The request</legend>
        <div class="columns">
          <Select name="method" label="Method" options={METHODS.map((method) => ({ value: method, label: method }))} initial={tool?.method ?? 'GET'} />
          <Field name="timeout" label="Timeout (seconds)" type="number" min="1" max="30" step="1" defaultValue={String(tool?.timeout ?? 10)} hint="1 to 30" />
        </div>
        <Field name="endpoint" label="URL" type="url" defaultValue={tool?.endpoint ?? ''} placeholder="https://api.example.com/availability?date={date}"
          hint="{parameter} puts a parameter's value in the URL; {{variable}} a call variable." />
        <RowList name="headers" legend="Headers" initial={tool?.headers ?? []} blank={() => ({ name: '', value: '' })} addLabel="Add a header"
          hint="Sent with every request; values are stored encrypted." removeLabel={(index) => `Remove header ${index + 1}`}
          row={(header, prefix) => (
            <>
              <RowControl name={`${prefix}.name`} label="Header">{(control) => <input {...tied(control)} data-empty="keep" defaultValue={header.name} autoComplete="off" />}</RowControl>
              <RowControl name={`${prefix}.value`} label="Value" class="grow">{(control) => <input {...tied(control)} data-empty="keep" defaultValue={header.value} autoComplete="off" />}</RowControl>
            </>
          )} />
      </fieldset>
      <RowList name="schema" legend="Parameters the assistant fills in" initial={tool?.schema ?? []} addLabel="Add a parameter"
        blank={() => ({ name: '', type: 'string', description: '', required: true })} removeLabel={(index) => `Remove parameter ${index + 1}`}
        hint="Sent as the JSON body (query parameters for GET and DELETE); the assistant takes each from the conversation."
        row={(parameter, prefix) => (
          <>
            <RowControl name={`${prefix}.name`} label="Name">{(control) => <input {...tied(control)} data-empty="keep" defaultValue={parameter.name} />}</RowControl>
            <RowControl name={`${prefix}.type`} label="Type">
              {(control) => <select {...tied(control)}>{['string', 'number', 'boolean'].map((type) => <option key={type} value={type} selected={parameter.type === type}>{type}</option>)}</select>}
            </RowControl>
            <RowControl name={`${prefix}.description`} label="Description" class="grow">{(control) => <input {...tied(control)} data-empty="keep" defaultValue={parameter.description} />}</RowControl>
            <Check name={`${prefix}.required`} label="Required" defaultChecked={parameter.required} />
          </>
        )} />
    </>
  );
}

/** Create a tool, or change or delete one: one form of the API's fields, its 422 messages beside them. */
export function ToolEditor({ id }: { id?: number }) {
  const saved = useLoad(() => (id ? ok(api.GET('/user/tools/{id}', { params: { path: { id } } })) : Promise.resolve(undefined)), [id]);
  const [notice, setNotice] = useState('');
  const tool = saved.data;
  const submit = async (body: Record<string, unknown>) => {
    setNotice('');
    if (id) {
      const answer = await ok(api.PUT('/user/tools/{id}', { params: { path: { id } }, body: body }));
      saved.setData(answer.data);
      setNotice(answer.message);
    } else {
      const answer = await ok(api.POST('/user/tools', { body: body as Body<'/user/tools', 'post'> }));
      navigate(`${BASE}/tools/${answer.data.id}`);
    }
  };
  const remove = async () => {
    if (!tool || !confirm(`Delete the tool "${tool.name}"? It is detached from every assistant.`)) return;
    await ok(api.DELETE('/user/tools/{id}', { params: { path: { id: tool.id } } }));
    navigate(`${BASE}/tools`);
  };
  return (
    <>
      <PageHeader title={id ? tool?.name ?? 'Tool' : 'New tool'} lead={tool ? `Tool ${tool.id} · changed ${when(tool.updated_at)}` : undefined}>
        <a class="button" href={`${BASE}/tools`}>All tools</a>
      </PageHeader>
      <Status loading={Boolean(id) && saved.loading && !tool} error={saved.error} retry={saved.reload} />
      {(!id || tool) && (
        <Form onSubmit={submit} submitLabel={id ? 'Save changes' : 'Create tool'} label={id ? 'Tool settings' : 'New tool'} class="settings" key={tool?.updated_at}
          actions={<>
            {notice && <span role="status" class="saved">{notice}</span>}
            {tool && <button type="button" class="danger" onClick={() => void remove()}>Delete tool</button>}
          </>}>
          <ToolFields tool={tool} />
        </Form>
      )}
    </>
  );
}
