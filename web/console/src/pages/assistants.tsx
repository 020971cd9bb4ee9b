import { useState } from 'preact/hooks';
import { api, ok, type Answer, type Body } from '../api/client.ts';
import { Badge, PageHeader, Status } from '../components/page.tsx';
import { Pager } from '../components/pager.tsx';
import { when } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { BASE, navigate, useLocation, withQuery } from '../router.ts';
import { TableBox } from '../components/table-box.tsx';

const positive = (text: string | null) => (text && /^\d+$/.test(text) ? Number(text) : undefined);

type Listed = Answer<'/user/assistants/get'>['data'][number];
type Badges = Answer<'/user/folders'>['data'];

/**
 * Puts the chosen assistants in a folder, or adds or takes off a label, through each assistant's update (the API
 * has no batch of it): `label_ids` replaces the list, so each is sent with its own labels changed.
 */
function Organize({ chosen, folders, labels, onDone }: { chosen: Listed[]; folders: Badges; labels: Badges; onDone: (message: string) => void }) {
  const [busy, setBusy] = useState(false);
  const apply = async (change: (assistant: Listed) => { folder_id?: number | null; label_ids?: number[] }, done: string) => {
    setBusy(true);
    const failed: string[] = [];
    for (const assistant of chosen) {
      try {
        await ok(api.PUT('/user/assistant/{id}', { params: { path: { id: assistant.id } }, body: change(assistant) as Body<'/user/assistant/{id}', 'put'> }));
      } catch (error) {
        failed.push(`${assistant.name}: ${(error as Error).message}`);
      }
    }
    setBusy(false);
    onDone(failed.length ? `Not changed: ${failed.join(' ')}` : done);
  };
  const value = (id: string) => (document.getElementById(id) as HTMLSelectElement | null)?.value ?? '';
  const move = () => {
    const folder = value('organize-folder');
    void apply(() => ({ folder_id: folder ? Number(folder) : null }), `${chosen.length} moved.`);
  };
  const label = (add: boolean) => {
    const id = Number(value('organize-label'));
    if (!id) return;
    void apply((assistant) => ({ label_ids: add ? [...new Set([...assistant.label_ids, id])] : assistant.label_ids.filter((other) => other !== id) }),
      `${chosen.length} ${add ? 'labelled' : 'unlabelled'}.`);
  };
  return (
    <div class="filters organize" role="group" aria-label={`Organize the ${chosen.length} chosen assistants`}>
      <p><strong>{chosen.length} chosen</strong></p>
      <div class="field">
        <label for="organize-folder">Folder</label>
        <select id="organize-folder"><option value="">No folder</option>{folders.map((folder) => <option key={folder.id} value={folder.id}>{folder.name}</option>)}</select>
      </div>
      <div class="filter-actions"><button type="button" disabled={busy} onClick={move}>Move to folder</button></div>
      {labels.length > 0 && (
        <>
          <div class="field">
            <label for="organize-label">Label</label>
            <select id="organize-label">{labels.map((item) => <option key={item.id} value={item.id}>{item.name}</option>)}</select>
          </div>
          <div class="filter-actions">
            <button type="button" disabled={busy} onClick={() => label(true)}>Add label</button>
            <button type="button" disabled={busy} onClick={() => label(false)}>Remove label</button>
          </div>
        </>
      )}
    </div>
  );
}

/** The user's assistants, a page at a time, narrowed by folder or label (kept in the address). */
export function Assistants() {
  const { query } = useLocation();
  const page = positive(query.get('page')) ?? 1;
  const folder = positive(query.get('folder_id'));
  const label = positive(query.get('label_id'));
  const list = useLoad(() => ok(api.GET('/user/assistants/get', { params: { query: { page, per_page: 25, folder_id: folder, label_id: label } } })), [page, folder, label]);
  const folders = useLoad(() => ok(api.GET('/user/folders', { params: { query: { per_page: 100 } } })), []);
  const labels = useLoad(() => ok(api.GET('/user/labels', { params: { query: { per_page: 100 } } })), []);
  const numbers = useLoad(() => ok(api.GET('/user/phone-numbers/all')), []);
  const folderName = new Map(folders.data?.data.map((item) => [item.id, item.name]));
  const labelName = new Map(labels.data?.data.map((item) => [item.id, item.name]));
  const numberOf = new Map(numbers.data?.data.map((item) => [item.id, item.phone_number]));
  const folderColor = new Map(folders.data?.data.map((item) => [item.id, item.color]));
  const labelColor = new Map(labels.data?.data.map((item) => [item.id, item.color]));
  const tone = (color: string | null | undefined) => (color ? `color-${color}` : 'plain');
  const [chosen, setChosen] = useState<Set<number>>(new Set());
  const [message, setMessage] = useState('');
  const toggle = (id: number, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(id);
    else next.delete(id);
    setChosen(next);
  };
  const organized = (text: string) => {
    setMessage(text);
    setChosen(new Set());
    list.reload();
    folders.reload();
    labels.reload();
  };

  const filter = (name: string) => (event: Event) => navigate(withQuery({ [name]: (event.currentTarget as HTMLSelectElement).value, page: undefined }));

  return (
    <>
      <PageHeader title="Assistants" lead="Voice and chat assistants: what they say, how they sound, which numbers they answer.">
        <a class="button" href={`${BASE}/folders`}>Folders and labels</a>
        <a class="button primary" href={`${BASE}/assistants/new`}>New assistant</a>
      </PageHeader>
      <div class="filters" role="search" aria-label="Filter assistants">
        <div class="field">
          <label for="filter-folder">Folder</label>
          <select id="filter-folder" name="folder_id" onChange={filter('folder_id')}>
            <option value="">All folders</option>
            {folders.data?.data.map((item) => <option key={item.id} value={item.id} selected={item.id === folder}>{item.name} ({item.assistants_count})</option>)}
          </select>
        </div>
        <div class="field">
          <label for="filter-label">Label</label>
          <select id="filter-label" name="label_id" onChange={filter('label_id')}>
            <option value="">All labels</option>
            {labels.data?.data.map((item) => <option key={item.id} value={item.id} selected={item.id === label}>{item.name} ({item.assistants_count})</option>)}
          </select>
        </div>
      </div>
      {chosen.size > 0 && list.data && (
        <Organize chosen={list.data.data.filter((assistant) => chosen.has(assistant.id))} folders={folders.data?.data ?? []} labels={labels.data?.data ?? []} onDone={organized} />
      )}
      {message && <p role="status" class="notice">{message}</p>}
      <Status loading={list.loading && !list.data} error={list.error} retry={list.reload} />
      {list.data && (
        <>
          <TableBox label="Assistants">
            <table>
              <caption class="visually-hidden">Assistants</caption>
              <thead>
                <tr><th scope="col"><span class="visually-hidden">Chosen</span></th><th scope="col">Name</th><th scope="col">Direction</th><th scope="col">Engine</th><th scope="col">Phone number</th><th scope="col">Folder</th><th scope="col">Labels</th><th scope="col">Created</th></tr>
              </thead>
              <tbody>
                {list.data.data.map((assistant) => (
                  <tr key={assistant.id}>
                    <td><input type="checkbox" checked={chosen.has(assistant.id)} aria-label={`Choose ${assistant.name}`} onChange={(event) => toggle(assistant.id, event.currentTarget.checked)} /></td>
                    <td><a href={`${BASE}/assistants/${assistant.id}`}>{assistant.name}</a></td>
                    <td>{assistant.type}</td>
                    <td>{assistant.mode}</td>
                    <td>{assistant.phone_number_id ? numberOf.get(assistant.phone_number_id) ?? `#${assistant.phone_number_id}` : '—'}</td>
                    <td>{assistant.folder_id ? <Badge value={folderName.get(assistant.folder_id) ?? `#${assistant.folder_id}`} tone={tone(folderColor.get(assistant.folder_id))} /> : '—'}</td>
                    <td>{assistant.label_ids.map((id) => <Badge key={id} value={labelName.get(id) ?? `#${id}`} tone={tone(labelColor.get(id))} />)}</td>
                    <td>{when(assistant.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableBox>
          {list.data.total === 0 && <p class="empty">No assistants yet. <a href={`${BASE}/assistants/new`}>Create your first assistant</a>.</p>}
          <Pager page={list.data} noun="assistants" />
        </>
      )}
    </>
  );
}
