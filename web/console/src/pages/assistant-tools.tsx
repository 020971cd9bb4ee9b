import { useState } from 'preact/hooks';
import { Check, Field, Group, Select, TextArea, type Option } from '../components/form.tsx';
import { textOf } from '../components/collect.ts';

/** The built-in tool types (src/resources/assistants/builtin-tools.ts), as a user knows them. */
const TYPES = {
  end_call: 'End the call',
  call_transfer: 'Transfer the call',
  warm_call_transfer: 'Warm transfer to a supervisor',
  dtmf_input: 'Press keys (DTMF)',
  collect_keypad: 'Collect keys the caller presses',
  calendar_integration: 'Book in a Cal.com calendar',
  assistant_transfer: 'Hand over to another assistant',
} as const;
type ToolType = keyof typeof TYPES;

/**
 * One field of a built-in tool: its control and, for booleans and choices, the API's default (which the form shows
 * when the stored tool leaves it out).
 */
type Control =
  | { field: string; label: string; kind: 'text' | 'tel' | 'url' | 'secret' | 'area' | 'json'; hint?: string; placeholder?: string }
  | { field: string; label: string; kind: 'check'; initial: boolean }
  | { field: string; label: string; kind: 'number'; min: number; max: number; hint?: string }
  | { field: string; label: string; kind: 'choice'; choices: string[]; initial: string }
  | { field: string; label: string; kind: 'number_id' | 'assistant_id' };

const description = (label: string): Control => ({ field: 'description', label, kind: 'area' });
const FIELDS: Record<ToolType, Control[]> = {
  end_call: [description('When to end the call')],
  call_transfer: [
    { field: 'phone_number', label: 'Transfer to', kind: 'tel', placeholder: '+14155550100' },
    description('When to transfer'),
    { field: 'custom', label: 'The assistant takes the number from the conversation instead', kind: 'check', initial: false },
    { field: 'timezone', label: 'Time zone of the number', kind: 'text', placeholder: 'Europe/Berlin' },
    { field: 'warm_transfer', label: 'Speak to the person first (warm)', kind: 'check', initial: false },
    { field: 'warm_transfer_message', label: 'What to tell them', kind: 'area' },
  ],
  warm_call_transfer: [
    { field: 'supervisor_phone', label: 'Supervisor number', kind: 'tel', placeholder: '+14155550100' },
    { field: 'outbound_phone_id', label: 'Call the supervisor from', kind: 'number_id' },
    description('When to transfer'),
    { field: 'caller_id_mode', label: 'Caller ID the supervisor sees', kind: 'choice', choices: ['outbound_number', 'customer_number', 'custom'], initial: 'outbound_number' },
    { field: 'custom_caller_id', label: 'Custom caller ID', kind: 'tel' },
    { field: 'custom_sip', label: 'The supervisor is a SIP address', kind: 'check', initial: false },
    { field: 'hold_music', label: 'While the caller waits', kind: 'choice', choices: ['hold_music', 'none'], initial: 'hold_music' },
    { field: 'hold_music_volume', label: 'Hold music volume', kind: 'number', min: 0, max: 100, hint: '0 to 100; empty: 80' },
    { field: 'hold_message', label: 'Said to the caller before the hold', kind: 'area', hint: 'Empty: the default text.' },
    { field: 'summary_instructions', label: 'How to summarise the call for the supervisor', kind: 'area', hint: 'Empty: the default text.' },
    { field: 'briefing_initial_message', label: 'First words to the supervisor', kind: 'area', hint: 'Empty: the default text.' },
    { field: 'connected_message', label: 'Said when the two are connected', kind: 'area', hint: 'Empty: the default text.' },
  ],
  dtmf_input: [description('When to press keys')],
  collect_keypad: [
    { field: 'timeout', label: 'Wait for keys (seconds)', kind: 'number', min: 1, max: 30, hint: '1 to 30; empty: 5' },
    { field: 'stop_key', label: 'Key that ends the input', kind: 'choice', choices: ['#', '*'], initial: '#' },
  ],
  calendar_integration: [
    { field: 'calcom_api_key', label: 'Cal.com API key', kind: 'secret', hint: 'Stored encrypted.' },
    { field: 'calcom_event_slug', label: 'Event type (slug)', kind: 'text' },
    { field: 'calcom_team_slug', label: 'Team (slug)', kind: 'text' },
    { field: 'calcom_endpoint', label: 'Cal.com region', kind: 'choice', choices: ['us', 'eu', 'custom'], initial: 'us' },
    { field: 'calcom_custom_endpoint', label: 'Custom Cal.com URL', kind: 'url' },
    { field: 'calcom_booking_fields', label: 'Booking fields (JSON)', kind: 'json', hint: 'Optional: [{"slug": "notes", "type": "textarea", "label": "Notes", "required": false}].' },
    description('When to book'),
  ],
  assistant_transfer: [
    { field: 'assistant_id', label: 'Hand over to', kind: 'assistant_id' },
    description('When to hand over'),
    { field: 'message_before_transfer', label: 'Said before the hand-over', kind: 'area' },
    { field: 'speak_transfer_greeting', label: 'The other assistant greets the caller', kind: 'check', initial: true },
  ],
};

/** A built-in tool as the API lists it (`{type, data}`); it is sent flat (`{type, ...fields}`). */
export interface StoredTool {
  type: string;
  data?: Record<string, unknown>;
}

function ToolControl({ control, prefix, data, numbers, assistants }: { control: Control; prefix: string; data: Record<string, unknown>; numbers: Option[]; assistants: Option[] }) {
  const name = `${prefix}.${control.field}`;
  const value = data[control.field];
  switch (control.kind) {
    case 'check':
      return <Check name={name} label={control.label} defaultChecked={typeof value === 'boolean' ? value : control.initial} />;
    case 'choice':
      return <Select name={name} label={control.label} options={control.choices.map((choice) => ({ value: choice, label: choice.replace(/_/g, ' ') }))} initial={textOf(value) || control.initial} />;
    case 'number':
      return <Field name={name} label={control.label} type="number" min={control.min} max={control.max} step="1" defaultValue={textOf(value)} hint={control.hint} />;
    case 'number_id':
    case 'assistant_id':
      return <Select name={name} label={control.label} data-kind="id" data-empty="omit" empty="Choose one" options={control.kind === 'number_id' ? numbers : assistants} initial={typeof value === 'number' ? value : undefined} />;
    case 'area':
      return <TextArea name={name} label={control.label} rows={2} defaultValue={textOf(value)} hint={control.hint} />;
    case 'json':
      return <TextArea name={name} label={control.label} data-kind="json" rows={3} defaultValue={value === undefined ? '' : JSON.stringify(value, null, 2)} hint={control.hint} />;
    default:
      return <Field name={name} label={control.label} type={control.kind === 'secret' ? 'password' : control.kind} autoComplete="off" defaultValue={textOf(value)} hint={control.hint} placeholder={control.placeholder} />;
  }
}

let nextKey = 0;

/**
 * The assistant's built-in tools, each with its own fields as controls named `tools.<i>.<field>` (the API's
 * messages land beside them); with none left, `[]` is sent, which removes them all.
 */
export function BuiltinTools({ initial, numbers, assistants }: { initial: StoredTool[]; numbers: Option[]; assistants: Option[] }) {
  const [tools, setTools] = useState(() => initial.filter((tool) => tool.type in TYPES).map((tool) => ({ id: ++nextKey, type: tool.type as ToolType, data: tool.data ?? {} })));
  const [adding, setAdding] = useState<ToolType>('end_call');
  return (
    <Group name="tools" legend="Built-in tools" hint="Actions the assistant may take during a call: end it, transfer it, press or collect keys, book a meeting, hand over.">
      {tools.length === 0 && <input type="hidden" name="tools" data-kind="json" value="[]" />}
      {tools.map((tool, index) => (
        <fieldset class="builtin-tool" key={tool.id}>
          <legend>{TYPES[tool.type]}</legend>
          <input type="hidden" name={`tools.${index}.type`} value={tool.type} />
          {FIELDS[tool.type].map((control) => (
            <ToolControl key={control.field} control={control} prefix={`tools.${index}`} data={tool.data} numbers={numbers} assistants={assistants} />
          ))}
          <button type="button" class="quiet" onClick={() => setTools(tools.filter((other) => other.id !== tool.id))}>Remove “{TYPES[tool.type]}”</button>
        </fieldset>
      ))}
      <div class="row">
        <div class="field">
          <label for="add-builtin-tool">Add a built-in tool</label>
          <select id="add-builtin-tool" value={adding} onChange={(event) => setAdding(event.currentTarget.value as ToolType)}>
            {Object.entries(TYPES).map(([type, label]) => <option key={type} value={type}>{label}</option>)}
          </select>
        </div>
        <button type="button" onClick={() => setTools([...tools, { id: ++nextKey, type: adding, data: {} }])}>Add</button>
      </div>
    </Group>
  );
}

/** Filler phrases by mood, one per line (`filler_config`); all left empty, the assistant uses its own. */
export function FillerPhrases({ initial }: { initial: Record<string, string[]> | null | undefined }) {
  const moods: [string, string][] = [['neutral', 'Neutral (said while a tool runs)'], ['positive', 'Positive'], ['negative', 'Negative'], ['question', 'After a question']];
  return (
    <Group name="filler_config" legend="Filler phrases" hint="One phrase a line, such as “Let me check.”; all empty: the built-in ones.">
      <div class="columns">
        {moods.map(([mood, label]) => (
          <TextArea key={mood} name={`filler_config.${mood}`} label={label} data-kind="lines" rows={3} defaultValue={(initial?.[mood] ?? []).join('\n')} />
        ))}
      </div>
    </Group>
  );
}

/** `filler_config` as the form collected it, or null when every mood was left empty (the API's "none"). */
export function fillerConfigOf(collected: unknown): Record<string, string[]> | null {
  if (!collected || typeof collected !== 'object') return null;
  const moods = Object.entries(collected as Record<string, string[]>).filter(([, phrases]) => phrases.length > 0);
  return moods.length > 0 ? Object.fromEntries(moods) : null;
}
