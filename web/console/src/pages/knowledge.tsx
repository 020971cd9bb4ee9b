import { api, ok } from '../api/client.ts';
import { Field, Form } from '../components/form.tsx';
import { Badge, PageHeader, Status } from '../components/page.tsx';
import { when } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { BASE, navigate } from '../router.ts';
import { textOf } from '../components/collect.ts';
import { TableBox } from '../components/table-box.tsx';

/** The user's knowledge bases, and a new one. */
export function Knowledge() {
  const bases = useLoad(() => ok(api.GET('/user/knowledgebases')), []);
  const create = async (body: Record<string, unknown>) => {
    const answer = await ok(api.POST('/user/knowledgebases', { body: { name: textOf(body.name), ...(body.description ? { description: textOf(body.description) } : {}) } }));
    navigate(`${BASE}/knowledge/${answer.data.id}`);
  };
  return (
    <>
      <PageHeader title="Knowledge" lead="Documents and websites your assistants can search while they talk." />
      <Status loading={bases.loading && !bases.data} error={bases.error} retry={bases.reload} />
      {bases.data?.data.length === 0 && <p class="empty">No knowledge bases yet.</p>}
      {bases.data && bases.data.data.length > 0 && (
        <TableBox label="Knowledge bases">
          <table>
            <caption class="visually-hidden">Knowledge bases</caption>
            <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col" class="num">Documents</th><th scope="col" class="num">Assistants</th><th scope="col">Created</th></tr></thead>
            <tbody>
              {bases.data.data.map((base) => (
                <tr key={base.id}>
                  <td><a href={`${BASE}/knowledge/${base.id}`}>{base.name}</a></td>
                  <td><Badge value={base.status} /></td>
                  <td class="num">{base.documents_count}</td>
                  <td class="num">{base.assistants_count}</td>
                  <td>{when(base.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableBox>
      )}
      <section class="card" aria-labelledby="new-base">
        <h2 id="new-base">New knowledge base</h2>
        <Form onSubmit={create} submitLabel="Create knowledge base" label="New knowledge base">
          <Field name="name" label="Name" maxLength={255} />
          <Field name="description" label="Description" maxLength={255} />
        </Form>
      </section>
    </>
  );
}
