import type { Answer } from '../api/client.ts';
import { BASE } from '../router.ts';
import { Check, Choices, Field, Select, TextArea, type Option } from '../components/form.tsx';
import { KeyValues, PostCallSchema } from '../components/rows.tsx';
import { textOf } from '../components/collect.ts';
import { BuiltinTools, FillerPhrases } from './assistant-tools.tsx';

export type Assistant = Answer<'/user/assistant/{id}'>;
/** What the form starts from: a saved assistant, or the defaults of a new one. */
export type Values = Partial<Assistant>;

export interface Catalogs {
  languages: Option[];
  llmModels: Option[];
  multimodalModels: Option[];
  synthesizers: Option[];
  transcribers: Option[];
  tools: Option[];
  knowledgebases: Option[];
  folders: Option[];
  labels: Option[];
  /** Every number the user owns, and their assistants: what built-in tools may name. */
  numbers: Option[];
  assistants: Option[];
}

const text = textOf;
const number = (value: unknown) => (typeof value === 'number' ? value : undefined);

export function Basics({ a, catalogs, onType, onMode }: { a: Values; catalogs: Catalogs; onType: (type: string) => void; onMode: (mode: string) => void }) {
  return (
    <fieldset id="basics">
      <legend>Basics</legend>
      <Field name="name" label="Name" defaultValue={text(a.name)} maxLength={255} />
      <div class="columns">
        <Select name="type" label="Direction" options={[{ value: 'outbound', label: 'Outbound: it makes calls' }, { value: 'inbound', label: 'Inbound: it answers calls' }]}
          initial={a.type} onChange={(event) => onType(event.currentTarget.value)} />
        <Select name="mode" label="Engine" options={[{ value: 'pipeline', label: 'Pipeline (speech to text, model, text to speech)' }, { value: 'multimodal', label: 'Multimodal (speech to speech)' }]}
          initial={a.mode} onChange={(event) => onMode(event.currentTarget.value)} />
      </div>
      <div class="columns">
        <Field name="timezone" label="Time zone" defaultValue={text(a.timezone)} hint="An IANA name such as Europe/Berlin: the assistant's sense of today and now." />
        <Select name="folder_id" label="Folder" data-kind="id" empty="No folder" options={catalogs.folders} initial={a.folder_id} />
      </div>
      {catalogs.labels.length > 0 && <Choices name="label_ids" legend="Labels" options={catalogs.labels} initial={a.label_ids} />}
    </fieldset>
  );
}

export function VoiceAndLanguage({ a, catalogs, voices, onLanguage }: { a: Values; catalogs: Catalogs; voices: Option[]; onLanguage: (id: number) => void }) {
  return (
    <fieldset id="voice">
      <legend>Voice and language</legend>
      <div class="columns">
        <Select name="language_id" label="Language" data-kind="id" data-empty="omit" empty="Choose a language" options={catalogs.languages} initial={a.language_id}
          onChange={(event) => onLanguage(Number(event.currentTarget.value))} />
        <Select name="voice_id" label="Voice" data-kind="id" data-empty="omit" empty={voices.length ? 'Choose a voice' : 'No voice for this language and engine'} options={voices} initial={a.voice_id} />
      </div>
      <Select name="secondary_language_ids" label="Other languages it may switch to" multiple data-kind="ids" options={catalogs.languages.filter((language) => language.value !== a.language_id)}
        initial={a.secondary_language_ids ?? []} size={4} />
      <div class="columns">
        <Select name="synthesizer_provider_id" label="Text-to-speech provider" data-kind="id" empty="The voice's own" options={catalogs.synthesizers} initial={a.synthesizer_provider_id} />
        <Select name="transcriber_provider_id" label="Speech-to-text provider" data-kind="id" empty="The deployment's default" options={catalogs.transcribers} initial={a.transcriber_provider_id} />
      </div>
      <div class="columns">
        <Field name="speech_speed" label="Speech speed" type="number" step="0.05" min="0.7" max="1.2" defaultValue={text(number(a.speech_speed))} hint="0.7 to 1.2" />
        <Field name="voice_stability" label="Voice stability" type="number" step="0.05" min="0" max="1" defaultValue={text(number(a.voice_stability))} hint="0 to 1" />
        <Field name="voice_similarity" label="Voice similarity" type="number" step="0.05" min="0" max="1" defaultValue={text(number(a.voice_similarity))} hint="0 to 1" />
      </div>
      <Check name="tts_emotion_enabled" label="Expressive speech (emotion)" defaultChecked={a.tts_emotion_enabled} />
    </fieldset>
  );
}

export function PromptAndModel({ a, catalogs, mode }: { a: Values; catalogs: Catalogs; mode: string }) {
  return (
    <fieldset id="prompt">
      <legend>Prompt and first message</legend>
      <TextArea name="system_prompt" label="System prompt" rows={8} defaultValue={text(a.system_prompt)} hint="Who the assistant is and how it behaves. {{variable}} inserts a variable." />
      <Field name="initial_message" label="First message" defaultValue={text(a.initial_message)} maxLength={200} hint="Said when the call or chat starts (up to 200 characters)." />
      <Check name="wait_for_customer" label="The customer speaks first" defaultChecked={a.wait_for_customer} />
      <div class="columns">
        {mode === 'multimodal' ? (
          <>
            <Select name="multimodal_model_id" label="Speech-to-speech model" data-kind="id" data-empty="omit" empty="Choose a model" options={catalogs.multimodalModels} initial={a.multimodal_model_id} />
            <Select name="chat_llm_fallback_id" label="Chat model for tools and text" data-kind="id" empty="None" options={catalogs.llmModels} initial={a.chat_llm_fallback_id} />
          </>
        ) : (
          <Select name="llm_model_id" label="Language model" data-kind="id" data-empty="omit" empty="Choose a model" options={catalogs.llmModels} initial={a.llm_model_id} />
        )}
        <Field name="llm_temperature" label="Temperature" type="number" step="0.05" min="0" max="1" defaultValue={text(number(a.llm_temperature))} hint="0 (predictable) to 1 (varied)" />
      </div>
      <KeyValues name="variables" legend="Variables" hint="Default values for {{name}} in the prompt and first message; a call or chat may give its own." initial={(a.variables ?? {})} />
    </fieldset>
  );
}

export function TurnTaking({ a }: { a: Values }) {
  return (
    <fieldset id="turns">
      <legend>Turn-taking and interruptions</legend>
      <div class="columns">
        <Select name="endpoint_type" label="End of turn decided by" options={[{ value: 'vad', label: 'Silence (voice activity)' }, { value: 'ai', label: 'A turn-taking model' }]} initial={a.endpoint_type} />
        <Field name="endpoint_sensitivity" label="End-of-turn sensitivity" type="number" step="0.1" min="0" max="5" defaultValue={text(number(a.endpoint_sensitivity))} hint="0 to 5: higher answers sooner" />
        <Field name="turn_detection_threshold" label="Turn model threshold" type="number" step="0.05" min="0" max="1" data-empty="null" defaultValue={text(number(a.turn_detection_threshold))} hint="0 to 1; empty: the model's own" />
      </div>
      <Check name="allow_interruptions" label="The caller may interrupt the assistant" defaultChecked={a.allow_interruptions} />
      <div class="columns">
        <Field name="interrupt_sensitivity" label="Interruption sensitivity" type="number" step="0.1" min="0" max="5" defaultValue={text(number(a.interrupt_sensitivity))} hint="0 to 5" />
        <Field name="min_interrupt_words" label="Words before an interruption counts" type="number" step="1" min="0" max="10" data-empty="null" defaultValue={text(number(a.min_interrupt_words))} hint="0 to 10; empty: any speech" />
      </div>
      <Check name="fillers" label="Say short fillers while thinking" defaultChecked={a.fillers} />
      <FillerPhrases initial={a.filler_config} />
      <div class="columns">
        <Select name="ambient_sound" label="Background sound" options={['off', 'office', 'city', 'forest', 'crowded_room', 'cafe', 'nature'].map((value) => ({ value, label: value.replace('_', ' ') }))} initial={a.ambient_sound} />
        <Field name="ambient_sound_volume" label="Background volume" type="number" step="0.05" min="0" max="1" defaultValue={text(number(a.ambient_sound_volume))} hint="0 to 1" />
      </div>
      <Check name="enable_noise_cancellation" label="Cancel the caller's background noise" defaultChecked={a.enable_noise_cancellation} />
    </fieldset>
  );
}

export function CallLimits({ a }: { a: Values }) {
  return (
    <fieldset id="limits">
      <legend>Silence, voicemail and limits</legend>
      <div class="columns">
        <Field name="max_duration" label="Longest call (seconds)" type="number" step="1" min="20" max="1200" defaultValue={text(number(a.max_duration))} hint="20 to 1200" />
        <Field name="ringing_time" label="Ring for (seconds)" type="number" step="1" min="1" max="60" defaultValue={text(number(a.ringing_time))} hint="1 to 60" />
      </div>
      <div class="columns">
        <Field name="max_silence_duration" label="Hang up after silence of (seconds)" type="number" step="1" min="1" max="360" defaultValue={text(number(a.max_silence_duration))} />
        <Field name="max_initial_silence_duration" label="Hang up if nobody speaks at first within (seconds)" type="number" step="1" min="1" max="120" data-empty="null" defaultValue={text(number(a.max_initial_silence_duration))} hint="Empty: as any silence" />
      </div>
      <div class="columns">
        <Field name="reengagement_interval" label="Re-engage after (seconds)" type="number" step="1" min="7" max="600" defaultValue={text(number(a.reengagement_interval))} hint="7 to 600" />
        <Field name="reengagement_prompt" label="What to say to re-engage" data-empty="null" defaultValue={text(a.reengagement_prompt)} />
      </div>
      <Check name="end_call_on_voicemail" label="Hang up when a voicemail answers" defaultChecked={a.end_call_on_voicemail} />
      <Field name="voice_mail_message" label="Message to leave on voicemail" data-empty="null" defaultValue={text(a.voice_mail_message)} hint="Used when it does not hang up on voicemail." />
      <Check name="record" label="Record calls" defaultChecked={a.record} />
    </fieldset>
  );
}

export function ToolsAndKnowledge({ a, catalogs }: { a: Values; catalogs: Catalogs }) {
  return (
    <fieldset id="tools">
      <legend>Tools and knowledge</legend>
      <Choices name="tool_ids" legend="Mid-call HTTP tools" options={catalogs.tools} initial={a.tool_ids}
        hint={catalogs.tools.length === 0 ? <>No tools yet: <a href={`${BASE}/tools/new`}>create one</a> (this form is kept: save it first).</> : <>Made on the <a href={`${BASE}/tools`}>Tools</a> page.</>} />
      <BuiltinTools initial={a.tools ?? []} numbers={catalogs.numbers} assistants={catalogs.assistants.filter((assistant) => assistant.value !== a.id)} />
      <div class="columns">
        <Select name="knowledgebase_id" label="Knowledge base" data-kind="id" empty="None" options={catalogs.knowledgebases} initial={a.knowledgebase_id} />
        <Select name="knowledgebase_mode" label="How it uses the knowledge base" empty="The default" options={[{ value: 'function_call', label: 'Searches when it needs to' }, { value: 'prompt', label: 'Reads the best passages before each reply' }]}
          initial={a.knowledgebase_mode} />
      </div>
    </fieldset>
  );
}

export function PhoneNumber({ a, numbers }: { a: Values; numbers: Option[] }) {
  return (
    <fieldset id="number">
      <legend>Phone number</legend>
      <Select name="phone_number_id" label="Number" data-kind="id" empty="None" options={numbers} initial={a.phone_number_id}
        hint="Inbound: the number it answers. Outbound: the number it calls from. Buy numbers on the Phone numbers page." />
    </fieldset>
  );
}

export function Webhooks({ a }: { a: Values }) {
  return (
    <fieldset id="webhooks">
      <legend>Webhooks</legend>
      <Check name="is_webhook_active" label="Send a webhook after each call" defaultChecked={a.is_webhook_active} />
      <Field name="webhook_url" label="Post-call webhook URL" type="url" data-empty="null" defaultValue={text(a.webhook_url)} hint="Required while the webhook is on." />
      <Check name="send_webhook_only_on_completed" label="Only for calls that were answered and completed" defaultChecked={a.send_webhook_only_on_completed} />
      <Check name="include_recording_in_webhook" label="Include the recording's link" defaultChecked={a.include_recording_in_webhook} />
      <Field name="inbound_webhook_url" label="Inbound-call webhook URL" type="url" data-empty="null" defaultValue={text(a.inbound_webhook_url)} hint="Asked before an inbound call is answered, for variables." />
      <Field name="conversation_ended_webhook_url" label="Chat-ended webhook URL" type="url" data-empty="null" defaultValue={text(a.conversation_ended_webhook_url)} />
      <div class="columns">
        <Field name="conversation_inactivity_timeout" label="A chat ends after (minutes quiet)" type="number" step="1" min="1" max="1440" defaultValue={text(number(a.conversation_inactivity_timeout))} />
        <Check name="conversation_ended_retrigger" label="Announce a chat again each time it goes quiet" defaultChecked={a.conversation_ended_retrigger} />
      </div>
    </fieldset>
  );
}

export function Evaluation({ a }: { a: Values }) {
  return (
    <fieldset id="evaluation">
      <legend>Post-call evaluation</legend>
      <Check name="post_call_evaluation" label="Evaluate each call when it ends" defaultChecked={a.post_call_evaluation} />
      <PostCallSchema initial={(a.post_call_schema ?? [])} />
    </fieldset>
  );
}
