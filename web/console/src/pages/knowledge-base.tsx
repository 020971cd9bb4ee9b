import { useState } from 'preact/hooks';
import { api, ok, upload, type Answer, type ApiError } from '../api/client.ts';
import { Field, Form, Select } from '../components/form.tsx';
import { Badge, PageHeader, Status } from '../components/page.tsx';
import { when } from '../format.ts';
import { useInterval, useLoad } from '../hooks.ts';
import { BASE, navigate } from '../router.ts';
import { textOf } from '../components/collect.ts';
import { TableBox } from '../components/table-box.tsx';

type Found = Answer<'/user/knowledgebases/{id}/search', 'post'>;

/** A document from a file (multipart, with the upload's progress) or from a website (its URL, crawled). */
function AddDocument({ baseId, onAdded }: { baseId: number; onAdded: () => void }) {
  const [type, setType] = useState('website');
  const [sent, setSent] = useState<number>();
  const submit = async (body: Record<string, unknown>, form: HTMLFormElement) => {
    if (type === 'website') {
      await ok(api.POST('/user/knowledgebases/{knowledgebaseId}/documents', {
        params: { path: { knowledgebaseId: baseId } },
        body: body as never,
      }));
    } else {
      const data = new FormData();
      for (const [key, value] of Object.entries(body)) data.set(key, textOf(value));
      const file = (form.elements.namedItem('file') as HTMLInputElement).files?.[0];
      if (file) data.set('file', file);
      setSent(0);
      try {
        await upload(`/user/knowledgebases/${baseId}/documents`, data, { onProgress: setSent });
      } finally {
        setSent(undefined);
      }
    }
    form.reset();
    setType('website');
    onAdded();
  };
  return (
    <section class="card" aria-labelledby="add-document">
      <h2 id="add-document">Add a document</h2>
      <Form onSubmit={submit} submitLabel="Add document" label="Add a document">
        <div class="columns">
          <Field name="name" label="Name" maxLength={255} />
          <Select name="type" label="Kind" options={[{ value: 'website', label: 'Website' }, { value: 'pdf', label: 'PDF' }, { value: 'txt', label: 'Text file' }, { value: 'docx', label: 'Word document' }]}
            initial={type} onChange={(event) => setType(event.currentTarget.value)} />
        </div>
        <Field name="description" label="Description" maxLength={255} />
        {type === 'website' ? (
          <div class="columns">
            <Field name="url" label="Website address" type="url" placeholder="https://example.com/help" />
            <Field name="relative_links_limit" label="Pages to follow from it" type="number" min="1" max="50" step="1" defaultValue="10" />
          </div>
        ) : (
          <Field name="file" label="File" type="file" accept={{ pdf: '.pdf,application/pdf', txt: '.txt,text/plain', docx: '.docx' }[type]} data-skip hint="Up to 20 MB." />
        )}
      </Form>
      {sent !== undefined && <progress max={1} value={sent} aria-label="Upload sent">{Math.round(sent * 100)} %</progress>}
    </section>
  );
}

/** What an assistant would retrieve for a question: the best passages, their document and score. */
function Search({ baseId }: { baseId: number }) {
  const [found, setFound] = useState<Found>();
  const search = async (body: Record<string, unknown>) => {
    setFound(await ok(api.POST('/user/knowledgebases/{id}/search', { params: { path: { id: baseId } }, body: { query: textOf(body.query), top_k: 5 } })));
  };
  return (
    <section class="card wide" aria-labelledby="search">
      <h2 id="search">Search</h2>
      <Form onSubmit={search} submitLabel="Search" label="Search the knowledge base" class="inline-form">
        <Field name="query" label="Question" type="search" placeholder="What would a caller ask?" />
      </Form>
      {found && (
        <>
          <p class="hint">{found.mode === 'hybrid' ? 'Full text and meaning (hybrid).' : 'Full text only: no embeddings provider is configured.'}</p>
          {found.data.length === 0 ? <p class="empty">Nothing found.</p> : (
            <ol class="results">
              {found.data.map((hit) => (
                <li key={hit.chunk_id}>
                  <p class="result-head"><strong>{hit.document_name}</strong> · score {hit.score.toFixed(3)}{hit.metadata.url ? ` · ${hit.metadata.url}` : ''}</p>
                  <p>{hit.text}</p>
                </li>
              ))}
            </ol>
          )}
        </>
      )}
    </section>
  );
}

/** One knowledge base: its documents with their status (refreshed until each is active or failed), adding more, searching. */
export function KnowledgeBasePage({ id }: { id: number }) {
  const base = useLoad(() => ok(api.GET('/user/knowledgebases/{id}', { params: { path: { id } } })), [id]);
  const documents = useLoad(() => ok(api.GET('/user/knowledgebases/{knowledgebaseId}/documents', { params: { path: { knowledgebaseId: id } } })), [id]);
  const processing = documents.data?.data.some((document) => document.status === 'processing') ?? false;
  useInterval(() => {
    documents.reload();
    base.reload();
  }, 2000, processing);

  const removeDocument = async (documentId: number, name: string) => {
    if (!confirm(`Delete the document "${name}"?`)) return;
    await ok(api.DELETE('/user/knowledgebases/{knowledgebaseId}/documents/{documentId}', { params: { path: { knowledgebaseId: id, documentId } } })).catch((error: ApiError) => alert(error.message));
    documents.reload();
    base.reload();
  };
  const removeBase = async () => {
    if (!base.data || !confirm(`Delete the knowledge base "${base.data.data.name}" with its documents?`)) return;
    await ok(api.DELETE('/user/knowledgebases/{id}', { params: { path: { id } } }));
    navigate(`${BASE}/knowledge`);
  };

  return (
    <>
      <PageHeader title={base.data?.data.name ?? `Knowledge base ${id}`} lead={base.data ? <><Badge value={base.data.data.status} /> · used by {base.data.data.assistants_count} assistants</> : undefined}>
        <button type="button" class="danger" onClick={() => void removeBase()}>Delete</button>
        <a class="button" href={`${BASE}/knowledge`}>All knowledge bases</a>
      </PageHeader>
      <Status loading={base.loading && !base.data} error={base.error} retry={base.reload} />
      <section class="card wide" aria-labelledby="documents">
        <h2 id="documents">Documents</h2>
        <Status loading={documents.loading && !documents.data} error={documents.error} />
        {documents.data && (
          <TableBox label="Documents">
            <table>
              <caption class="visually-hidden">Documents</caption>
              <thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Status</th><th scope="col">Added</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
              <tbody aria-live="polite">
                {documents.data.data.map((document) => (
                  <tr key={document.id}>
                    <td>{document.name}</td>
                    <td>{document.type_label}</td>
                    <td><Badge value={document.status} />{document.status === 'failed' && document.error && <p class="field-error">{document.error}</p>}</td>
                    <td>{when(document.created_at)}</td>
                    <td><button type="button" class="danger" onClick={() => void removeDocument(document.id, document.name)} aria-label={`Delete ${document.name}`}>Delete</button></td>
                  </tr>
                ))}
              </tbody>
            </table>
            {documents.data.data.length === 0 && <p class="empty">No documents yet.</p>}
          </TableBox>
        )}
      </section>
      <AddDocument baseId={id} onAdded={() => { documents.reload(); base.reload(); }} />
      <Search baseId={id} />
    </>
  );
}
