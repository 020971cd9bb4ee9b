import { useState } from 'preact/hooks';
import { fieldId, FieldShell, Group } from './form.tsx';
import { textOf } from './collect.ts';

let nextKey = 0;
const key = () => ++nextKey;

/**
 * Free key-value pairs (an assistant's or a call's variables): each value is a control named `<name>.<key>`, so
 * the API's messages about one land beside it. With no pair left, `{}` is sent, which clears them.
 */
export function KeyValues({ name, legend, hint, initial }: { name: string; legend: string; hint?: string; initial: Record<string, unknown> }) {
  const [rows, setRows] = useState(() => Object.entries(initial).map(([k, v]) => ({ id: key(), k, v: textOf(v) })));
  const change = (id: number, field: 'k' | 'v', value: string) => setRows(rows.map((row) => (row.id === id ? { ...row, [field]: value } : row)));
  return (
    <Group name={name} legend={legend} hint={hint}>
      {rows.length === 0 && <input type="hidden" name={name} data-kind="json" value="{}" />}
      {rows.map((row, index) => (
        <div class="row" key={row.id}>
          <div class="field">
            <label for={`${fieldId(name)}-key-${index}`}>Name</label>
            <input id={`${fieldId(name)}-key-${index}`} value={row.k} onInput={(event) => change(row.id, 'k', event.currentTarget.value)} />
          </div>
          <FieldShell name={row.k ? `${name}.${row.k}` : `${name}.#${index}`} label="Value">
            {({ id, invalid, describedBy }) => (
              <input id={id} name={row.k ? `${name}.${row.k}` : undefined} data-empty="keep" value={row.v} aria-invalid={invalid ? 'true' : undefined} aria-describedby={describedBy}
                onInput={(event) => change(row.id, 'v', event.currentTarget.value)} />
            )}
          </FieldShell>
          <button type="button" class="quiet" onClick={() => setRows(rows.filter((other) => other.id !== row.id))} aria-label={`Remove ${row.k || 'this pair'}`}>Remove</button>
        </div>
      ))}
      <button type="button" onClick={() => setRows([...rows, { id: key(), k: '', v: '' }])}>Add a variable</button>
    </Group>
  );
}

export interface SchemaField {
  name: string;
  type: string;
  description: string;
}

/** The fields a post-call evaluation extracts: rows named `post_call_schema.<i>.name|type|description`. */
export function PostCallSchema({ initial }: { initial: SchemaField[] }) {
  const [rows, setRows] = useState(() => initial.map((field) => ({ id: key(), ...field })));
  const name = 'post_call_schema';
  return (
    <Group name={name} legend="Fields to extract after each call" hint="Each becomes a value of the call's evaluation: a name (letters, digits, underscores), a type and what to put in it.">
      {rows.length === 0 && <input type="hidden" name={name} data-kind="json" value="[]" />}
      {rows.map((row, index) => (
        <div class="row" key={row.id}>
          <FieldShell name={`${name}.${index}.name`} label="Name">
            {({ id, invalid, describedBy }) => <input id={id} name={`${name}.${index}.name`} data-empty="keep" defaultValue={row.name} aria-invalid={invalid ? 'true' : undefined} aria-describedby={describedBy} />}
          </FieldShell>
          <FieldShell name={`${name}.${index}.type`} label="Type">
            {({ id, invalid, describedBy }) => (
              <select id={id} name={`${name}.${index}.type`} aria-invalid={invalid ? 'true' : undefined} aria-describedby={describedBy}>
                {['string', 'number', 'bool'].map((type) => <option key={type} value={type} selected={row.type === type}>{type}</option>)}
              </select>
            )}
          </FieldShell>
          <FieldShell name={`${name}.${index}.description`} label="Description" class="grow">
            {({ id, invalid, describedBy }) => <input id={id} name={`${name}.${index}.description`} data-empty="keep" defaultValue={row.description} aria-invalid={invalid ? 'true' : undefined} aria-describedby={describedBy} />}
          </FieldShell>
          <button type="button" class="quiet" onClick={() => setRows(rows.filter((other) => other.id !== row.id))} aria-label={`Remove field ${index + 1}`}>Remove</button>
        </div>
      ))}
      <button type="button" onClick={() => setRows([...rows, { id: key(), name: '', type: 'string', description: '' }])}>Add a field</button>
    </Group>
  );
}
