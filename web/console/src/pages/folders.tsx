import { useState } from 'preact/hooks';
import { api, ok, type Answer } from '../api/client.ts';
import { Field, Form, Select } from '../components/form.tsx';
import { Badge, PageHeader, Status } from '../components/page.tsx';
import { TableBox } from '../components/table-box.tsx';
import { useLoad } from '../hooks.ts';
import { BASE } from '../router.ts';

type Badge = Answer<'/user/folders'>['data'][number];
type Kind = 'folder' | 'label';

/** The badge colours the API takes (src/resources/badges/schemas.ts COLORS). */
const COLORS = ['gray', 'slate', 'red', 'orange', 'amber', 'green', 'teal', 'blue', 'purple', 'pink'] as const;
const colorOptions = COLORS.map((color) => ({ value: color, label: color }));

/** Folders and labels share one API shape at their own paths; the typed client needs each path spelled out. */
const badgeApi = {
  folder: {
    list: () => ok(api.GET('/user/folders', { params: { query: { per_page: 100 } } })),
    create: (body: Record<string, unknown>) => ok(api.POST('/user/folder', { body: body as { name: string } })),
    update: (id: number, body: Record<string, unknown>) => ok(api.PUT('/user/folder/{id}', { params: { path: { id } }, body })),
    remove: (id: number) => ok(api.DELETE('/user/folder/{id}', { params: { path: { id } } })),
  },
  label: {
    list: () => ok(api.GET('/user/labels', { params: { query: { per_page: 100 } } })),
    create: (body: Record<string, unknown>) => ok(api.POST('/user/label', { body: body as { name: string } })),
    update: (id: number, body: Record<string, unknown>) => ok(api.PUT('/user/label/{id}', { params: { path: { id } }, body })),
    remove: (id: number) => ok(api.DELETE('/user/label/{id}', { params: { path: { id } } })),
  },
};

const TEXTS = {
  folder: { title: 'Folders', one: 'folder', lead: 'An assistant sits in at most one folder.', deleted: 'its assistants stay, in no folder', count: 'Assistants' },
  label: { title: 'Labels', one: 'label', lead: 'An assistant carries any number of labels.', deleted: 'it is taken off its assistants, which stay', count: 'Assistants with it' },
};

/** One kind of badge: its list with the assistants of each, rename or recolour one, delete one, add one. */
function Badges({ kind }: { kind: Kind }) {
  const calls = badgeApi[kind];
  const texts = TEXTS[kind];
  const list = useLoad(calls.list, [kind]);
  const [editing, setEditing] = useState<Badge>();
  const [message, setMessage] = useState('');
  const filter = kind === 'folder' ? 'folder_id' : 'label_id';

  const create = async (body: Record<string, unknown>, form: HTMLFormElement) => {
    const answer = await calls.create(body);
    setMessage(answer.message);
    form.reset();
    list.reload();
  };
  const update = async (body: Record<string, unknown>) => {
    if (!editing) return;
    const answer = await calls.update(editing.id, body);
    setMessage(answer.message);
    setEditing(undefined);
    list.reload();
  };
  const remove = async (badge: Badge) => {
    if (!confirm(`Delete the ${texts.one} "${badge.name}"? ${texts.deleted[0]?.toUpperCase()}${texts.deleted.slice(1)}.`)) return;
    try {
      setMessage((await calls.remove(badge.id)).message);
    } catch (error) {
      setMessage((error as Error).message);
    }
    if (editing?.id === badge.id) setEditing(undefined);
    list.reload();
  };

  return (
    <section class="card" aria-labelledby={`${kind}s`}>
      <h2 id={`${kind}s`}>{texts.title}</h2>
      <p class="hint">{texts.lead}</p>
      <Status loading={list.loading && !list.data} error={list.error} retry={list.reload} />
      {list.data && list.data.data.length === 0 && <p class="empty">No {texts.one}s yet.</p>}
      {list.data && list.data.data.length > 0 && (
        <TableBox label={texts.title}>
          <table>
            <caption class="visually-hidden">{texts.title}</caption>
            <thead><tr><th scope="col">Name</th><th scope="col" class="num">{texts.count}</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {list.data.data.map((badge) => (
                <tr key={badge.id}>
                  <td><Badge value={badge.name} tone={badge.color ? `color-${badge.color}` : 'plain'} /></td>
                  <td class="num"><a href={`${BASE}/assistants?${filter}=${badge.id}`} aria-label={`${badge.assistants_count} assistants with ${texts.one} ${badge.name}`}>{badge.assistants_count}</a></td>
                  <td class="actions">
                    <button type="button" onClick={() => setEditing(badge)} aria-label={`Edit ${texts.one} ${badge.name}`}>Edit</button>
                    <button type="button" class="danger" onClick={() => void remove(badge)} aria-label={`Delete ${texts.one} ${badge.name}`}>Delete</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableBox>
      )}
      {list.data && list.data.total > list.data.data.length && <p class="hint">The first {list.data.data.length} of {list.data.total}.</p>}
      {editing && (
        <Form onSubmit={update} submitLabel="Save" label={`Edit ${texts.one} ${editing.name}`} idPrefix={`${kind}-edit-`} key={editing.id}
          actions={<button type="button" onClick={() => setEditing(undefined)}>Cancel</button>}>
          <div class="columns">
            <Field name="name" label={`Name of ${texts.one} ${editing.name}`} defaultValue={editing.name} maxLength={255} />
            <Select name="color" label="Colour" data-empty="null" empty="No colour" options={colorOptions} initial={editing.color} />
          </div>
        </Form>
      )}
      <details>
        <summary>Add a {texts.one}</summary>
        <Form onSubmit={create} submitLabel={`Add ${texts.one}`} label={`Add a ${texts.one}`} idPrefix={`${kind}-new-`}>
          <div class="columns">
            <Field name="name" label="Name" maxLength={255} />
            <Select name="color" label="Colour" empty="No colour" options={colorOptions} />
          </div>
        </Form>
      </details>
      {message && <p role="status">{message}</p>}
    </section>
  );
}

/** Folders and labels of the user's assistants: made, renamed, recoloured and deleted here, applied on the Assistants page. */
export function Folders() {
  return (
    <>
      <PageHeader title="Folders and labels" lead="Sort assistants: put them in a folder or give them labels on the Assistants page, or in an assistant's settings.">
        <a class="button" href={`${BASE}/assistants`}>Assistants</a>
      </PageHeader>
      <div class="call-layout">
        <Badges kind="folder" />
        <Badges kind="label" />
      </div>
    </>
  );
}
