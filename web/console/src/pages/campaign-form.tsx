import { api, ok, type Answer } from '../api/client.ts';
import { Check, Choices, Field, Select } from '../components/form.tsx';
import { useLoad } from '../hooks.ts';

export type Campaign = Answer<'/user/campaigns/{id}'>;
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

/** The API's documented defaults of a new campaign (its OpenAPI descriptions), shown in the create form. */
const NEW_CAMPAIGN = {
  max_calls_in_parallel: 3,
  allowed_hours_start_time: '00:00',
  allowed_hours_end_time: '23:59',
  allowed_days: [...DAYS],
  max_retries: 3,
  retry_interval: 60,
  retry_on_voicemail: false,
  retry_on_goal_incomplete: false,
  mark_complete_when_no_leads: true,
};

const hhmm = (time: string | undefined) => time?.slice(0, 5) ?? '';

/** The fields of a campaign, named as the API's; the same for creating and changing one. */
export function CampaignFields({ campaign }: { campaign?: Campaign }) {
  const a = campaign ?? { ...NEW_CAMPAIGN, name: '', assistant_id: null, timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || '', goal_completion_variable: null, phone_number_ids: [] as number[] };
  const assistants = useLoad(() => ok(api.GET('/user/assistants/outbound')), []);
  const numbers = useLoad(() => ok(api.GET('/user/assistants/phone-numbers', { params: { query: { type: 'outbound' } } })), []);
  return (
    <>
      <div class="columns">
        <Field name="name" label="Name" defaultValue={a.name} maxLength={255} />
        <Select name="assistant_id" label="Assistant" data-kind="id" data-empty="omit" empty={assistants.data?.length === 0 ? 'No outbound assistant yet' : 'Choose an assistant'}
          options={(assistants.data ?? []).map((assistant) => ({ value: assistant.id, label: assistant.name }))} initial={a.assistant_id} />
      </div>
      <div class="columns">
        <Field name="timezone" label="Time zone of the calling hours" defaultValue={a.timezone} hint="An IANA name, such as America/New_York." />
        <Field name="max_calls_in_parallel" label="Calls at once" type="number" min="1" max="1000" step="1" defaultValue={String(a.max_calls_in_parallel)} />
      </div>
      <div class="columns">
        <Field name="allowed_hours_start_time" label="Calls from" type="time" defaultValue={hhmm(a.allowed_hours_start_time)} />
        <Field name="allowed_hours_end_time" label="Calls until" type="time" defaultValue={hhmm(a.allowed_hours_end_time)} hint="An end before the start crosses midnight." />
      </div>
      <Choices name="allowed_days" legend="Days it calls" options={DAYS.map((day) => ({ value: day, label: day[0]!.toUpperCase() + day.slice(1) }))} initial={a.allowed_days} />
      <div class="columns">
        <Field name="max_retries" label="Calls again after the first" type="number" min="1" max="5" step="1" defaultValue={String(a.max_retries)} hint="1 to 5" />
        <Field name="retry_interval" label="Minutes between calls of a lead" type="number" min="10" max="4320" step="1" defaultValue={String(a.retry_interval)} />
      </div>
      <Check name="retry_on_voicemail" label="Call again when a voicemail answered" defaultChecked={a.retry_on_voicemail} />
      <Check name="retry_on_goal_incomplete" label="Call again when the goal was not met" defaultChecked={a.retry_on_goal_incomplete} />
      <Field name="goal_completion_variable" label="Goal: the evaluation field that says it was met" data-empty="null" defaultValue={a.goal_completion_variable ?? ''} />
      <Check name="mark_complete_when_no_leads" label="Complete the campaign when no lead is left to call" defaultChecked={a.mark_complete_when_no_leads} />
      <Choices name="phone_number_ids" legend="Numbers it calls from (in turn)" options={(numbers.data ?? []).map((number) => ({ value: number.id, label: number.phone_number }))}
        initial={a.phone_number_ids} hint={numbers.data?.length === 0 ? 'None: it calls from its assistant\'s number.' : undefined} />
    </>
  );
}
