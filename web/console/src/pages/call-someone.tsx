import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import { Field, Form } from '../components/form.tsx';
import { BASE } from '../router.ts';
import type { Assistant } from './assistant-sections.tsx';
import { textOf } from '../components/collect.ts';

/**
 * Places a phone call with the assistant (`POST /user/make_call`) from its number. On the embedded default the
 * sandbox network answers: a person at the softphone page, or a scripted callee chosen by the number's last two
 * digits (the README has the table).
 */
export function CallSomeone({ assistant }: { assistant: Assistant }) {
  const [placed, setPlaced] = useState<number>();
  const submit = async (body: Record<string, unknown>) => {
    setPlaced(undefined);
    const answer = await ok(api.POST('/user/make_call', { body: { phone_number: textOf(body.phone_number), assistant_id: assistant.id } }));
    setPlaced(answer.call_id);
  };
  return (
    <section class="card" aria-labelledby="call-someone">
      <h2 id="call-someone">Call a phone number</h2>
      {!assistant.phone_number_id && <p class="hint">The assistant calls from its phone number: choose one in its settings first.</p>}
      <Form onSubmit={submit} submitLabel="Call" label="Call a phone number">
        <Field name="phone_number" label="Number to call" type="tel" placeholder="+14155550123" autoComplete="off" hint="E.164, with the country code." />
      </Form>
      {placed !== undefined && <p role="status">Calling… <a href={`${BASE}/calls/${placed}`}>Follow call {placed}</a></p>}
    </section>
  );
}
