import { api, ok } from '../api/client.ts';
import { Badge, PageHeader, Status } from '../components/page.tsx';
import { Pager } from '../components/pager.tsx';
import { when } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { BASE, navigate, useLocation, withQuery } from '../router.ts';
import { TableBox } from '../components/table-box.tsx';

const positive = (text: string | null) => (text && /^\d+$/.test(text) ? Number(text) : undefined);

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

  const filter = (name: string) => (event: Event) => navigate(withQuery({ [name]: (event.currentTarget as HTMLSelectElement).value, page: undefined }));

  return (
    <>
      <PageHeader title="Assistants" lead="Voice and chat assistants: what they say, how they sound, which numbers they answer.">
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
      <Status loading={list.loading && !list.data} error={list.error} retry={list.reload} />
      {list.data && (
        <>
          <TableBox label="Assistants">
            <table>
              <caption class="visually-hidden">Assistants</caption>
              <thead>
                <tr><th scope="col">Name</th><th scope="col">Direction</th><th scope="col">Engine</th><th scope="col">Phone number</th><th scope="col">Folder</th><th scope="col">Labels</th><th scope="col">Created</th></tr>
              </thead>
              <tbody>
                {list.data.data.map((assistant) => (
                  <tr key={assistant.id}>
                    <td><a href={`${BASE}/assistants/${assistant.id}`}>{assistant.name}</a></td>
                    <td>{assistant.type}</td>
                    <td>{assistant.mode}</td>
                    <td>{assistant.phone_number_id ? numberOf.get(assistant.phone_number_id) ?? `#${assistant.phone_number_id}` : '—'}</td>
                    <td>{assistant.folder_id ? folderName.get(assistant.folder_id) ?? '' : '—'}</td>
                    <td>{assistant.label_ids.map((id) => <Badge key={id} value={labelName.get(id) ?? `#${id}`} tone="plain" />)}</td>
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
