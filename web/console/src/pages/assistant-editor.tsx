import { useState } from 'preact/hooks';
import { api, ok, type Body } from '../api/client.ts';
import { Form, type Option } from '../components/form.tsx';
import { PageHeader, Status } from '../components/page.tsx';
import { useLoad } from '../hooks.ts';
import { BASE, navigate } from '../router.ts';
import { NEW_ASSISTANT } from './assistant-defaults.ts';
import {
  Basics, CallLimits, Evaluation, PhoneNumber, PromptAndModel, ToolsAndKnowledge, TurnTaking, VoiceAndLanguage, Webhooks,
  type Assistant, type Catalogs, type Values,
} from './assistant-sections.tsx';
import { fillerConfigOf } from './assistant-tools.tsx';
import { CallSomeone } from './call-someone.tsx';
import { TryIt } from './try-it.tsx';

const named = (items: { id: number; name: string }[]): Option[] => items.map((item) => ({ value: item.id, label: item.name }));

async function loadCatalogs(): Promise<Catalogs> {
  const [languages, llm, multimodal, synthesizers, transcribers, tools, knowledgebases, folders, labels, numbers, assistants] = await Promise.all([
    ok(api.GET('/user/assistants/languages')),
    ok(api.GET('/user/assistants/models', { params: { query: { type: 'llm' } } })),
    ok(api.GET('/user/assistants/models', { params: { query: { type: 'multimodal' } } })),
    ok(api.GET('/user/assistants/synthesizer-providers')),
    ok(api.GET('/user/assistants/transcriber-providers')),
    ok(api.GET('/user/tools')),
    ok(api.GET('/user/knowledgebases')),
    ok(api.GET('/user/folders', { params: { query: { per_page: 100 } } })),
    ok(api.GET('/user/labels', { params: { query: { per_page: 100 } } })),
    ok(api.GET('/user/phone-numbers/all')),
    ok(api.GET('/user/assistants')),
  ]);
  return {
    languages: named(languages),
    llmModels: named(llm),
    multimodalModels: named(multimodal),
    synthesizers: named(synthesizers),
    transcribers: named(transcribers),
    tools: tools.map((tool) => ({ value: tool.id, label: `${tool.name}: ${tool.description}` })),
    knowledgebases: named(knowledgebases.data),
    folders: named(folders.data),
    labels: named(labels.data),
    numbers: numbers.data.map((number) => ({ value: number.id, label: number.nickname ? `${number.phone_number} (${number.nickname})` : number.phone_number })),
    assistants: named(assistants),
  };
}

/** A new assistant's starting values: the API's defaults, the reader's time zone, English and the first model. */
function newValues(catalogs: Catalogs): Values {
  const english = catalogs.languages.find((language) => /^english/i.test(language.label)) ?? catalogs.languages[0];
  return {
    ...NEW_ASSISTANT,
    type: 'outbound',
    mode: 'pipeline',
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
    language_id: english ? Number(english.value) : undefined,
    llm_model_id: catalogs.llmModels[0] ? Number(catalogs.llmModels[0].value) : undefined,
    initial_message: 'Hello! How can I help you today?',
  };
}

function AssistantForm({ saved, catalogs, onSaved }: { saved: Assistant | undefined; catalogs: Catalogs; onSaved: (assistant: Assistant) => void }) {
  const [start] = useState<Values>(() => saved ?? newValues(catalogs));
  const [type, setType] = useState(start.type ?? 'outbound');
  const [mode, setMode] = useState(start.mode ?? 'pipeline');
  const [language, setLanguage] = useState(start.language_id ?? undefined);
  const [notice, setNotice] = useState('');
  const voices = useLoad(() => ok(api.GET('/user/assistants/voices', { params: { query: { mode: mode as 'pipeline', language_id: language ?? undefined } } })), [mode, language]);
  const numbers = useLoad(() => ok(api.GET('/user/assistants/phone-numbers', { params: { query: { type: type as 'inbound' } } })), [type]);
  const voiceOptions = (voices.data ?? []).map((voice) => ({ value: voice.id, label: [voice.name, voice.gender, voice.accent].filter(Boolean).join(', ') }));
  // The saved number stays choosable even when it is not "available" (it is this assistant's).
  const numberOptions = (numbers.data ?? []).filter((number) => number.is_available || number.id === start.phone_number_id)
    .map((number) => ({ value: number.id, label: `${number.phone_number} (${number.type_label})` }));
  const values: Values = { ...start, voice_id: start.voice_id ?? (voiceOptions[0] ? Number(voiceOptions[0].value) : undefined) };

  const submit = async (collected: Record<string, unknown>) => {
    setNotice('');
    const body: Record<string, unknown> = { ...collected, filler_config: fillerConfigOf(collected.filler_config) };
    if (saved) {
      const answer = await ok(api.PUT('/user/assistant/{id}', { params: { path: { id: saved.id } }, body: body as Body<'/user/assistant/{id}', 'put'> }));
      onSaved(answer.data as Assistant);
      setNotice('Saved.');
    } else {
      const answer = await ok(api.POST('/user/assistant', { body: body as Body<'/user/assistant', 'post'> }));
      navigate(`${BASE}/assistants/${answer.data.id}`);
    }
  };
  const remove = async () => {
    if (!saved || !confirm(`Delete the assistant "${saved.name}"? Its calls stay in the call history.`)) return;
    await ok(api.DELETE('/user/assistant/{id}', { params: { path: { id: saved.id } } }));
    navigate(`${BASE}/assistants`);
  };

  return (
    <Form onSubmit={submit} submitLabel={saved ? 'Save changes' : 'Create assistant'} label={saved ? 'Assistant settings' : 'New assistant'} class="settings"
      actions={<>
        {notice && <span role="status" class="saved">{notice}</span>}
        {saved && <button type="button" class="danger" onClick={() => void remove()}>Delete assistant</button>}
      </>}>
      <nav class="toc" aria-label="Settings sections">
        {[['basics', 'Basics'], ['voice', 'Voice and language'], ['prompt', 'Prompt'], ['turns', 'Turn-taking'], ['limits', 'Limits'], ['tools', 'Tools and knowledge'], ['number', 'Phone number'], ['webhooks', 'Webhooks'], ['evaluation', 'Evaluation']]
          .map(([id, label]) => <a key={id} href={`#${id}`}>{label}</a>)}
      </nav>
      <Basics a={values} catalogs={catalogs} onType={(value) => setType(value as typeof type)} onMode={(value) => setMode(value as typeof mode)} />
      <VoiceAndLanguage a={values} catalogs={catalogs} voices={voiceOptions} onLanguage={setLanguage} />
      <PromptAndModel a={values} catalogs={catalogs} mode={mode} />
      <TurnTaking a={values} />
      <CallLimits a={values} />
      <ToolsAndKnowledge a={values} catalogs={catalogs} />
      <PhoneNumber a={values} numbers={numberOptions} />
      <Webhooks a={values} />
      <Evaluation a={values} />
    </Form>
  );
}

/** Create an assistant, or change one, with every setting of the API on one page; try a saved one beside it. */
export function AssistantEditor({ id }: { id?: number }) {
  const saved = useLoad(() => (id ? ok(api.GET('/user/assistant/{id}', { params: { path: { id } } })) : Promise.resolve(undefined)), [id]);
  const catalogs = useLoad(loadCatalogs, []);
  const title = id ? saved.data?.name ?? 'Assistant' : 'New assistant';
  const ready = catalogs.data && (!id || saved.data);
  return (
    <>
      <PageHeader title={title} lead={saved.data ? `${saved.data.type === 'inbound' ? 'Inbound' : 'Outbound'} · ${saved.data.mode} · id ${saved.data.id}` : undefined}>
        <a class="button" href={`${BASE}/assistants`}>All assistants</a>
      </PageHeader>
      <Status loading={!ready && !saved.error && !catalogs.error} error={saved.error ?? catalogs.error} retry={() => { saved.reload(); catalogs.reload(); }} />
      {ready && catalogs.data && (
        <div class={saved.data ? 'editor with-side' : 'editor'}>
          <AssistantForm saved={saved.data} catalogs={catalogs.data} onSaved={saved.setData} />
          {saved.data && (
            <aside class="side" aria-label="Try the assistant">
              <TryIt assistant={saved.data} />
              <CallSomeone assistant={saved.data} />
            </aside>
          )}
        </div>
      )}
    </>
  );
}
