import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { FieldShell, Group, useFieldId } from './form.tsx';
import { textOf } from './collect.ts';

let nextKey = 0;
const key = () => ++nextKey;

/**
 * Free key-value pairs (an assistant's or a call's variables): each value is a control named `<name>.<key>`, so
 * the API's messages about one land beside it. With no pair left, `{}` is sent, which clears them.
 */
export function KeyValues({ name, legend, hint, initial }: { name: string; legend: string; hint?: string; initial: Record<string, unknown> }) {
  const [rows, setRows] = useState(() => Object.entries(initial).map(([k, v]) => ({ id: key(), k, v: textOf(v) })));
  const groupId = useFieldId(name);
  const change = (id: number, field: 'k' | 'v', value: string) => setRows(rows.map((row) => (row.id === id ? { ...row, [field]: value } : row)));
  const keyId = (index: number) => `${groupId}-key-${index}`;
  return (
    <Group name={name} legend={legend} hint={hint}>
      {rows.length === 0 && <input type="hidden" name={name} data-kind="json" value="{}" />}
      {rows.map((row, index) => (
        <div class="row" key={row.id}>
          <div class="field">
            <label for={keyId(index)}>Name</label>
            <input id={keyId(index)} value={row.k} onInput={(event) => change(row.id, 'k', event.currentTarget.value)} />
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

/** A control of one row of a `RowList`, named `<list>.<index>.<field>` as the API's messages name it. */
export function RowControl({ name, label, class: className, children }: {
  name: string;
  label: string;
  class?: string;
  children: (control: { id: string; name: string; invalid: boolean; describedBy: string | undefined }) => ComponentChildren;
}) {
  return (
    <FieldShell name={name} label={label} class={className}>
      {({ id, invalid, describedBy }) => children({ id, name, invalid: Boolean(invalid), describedBy })}
    </FieldShell>
  );
}

/** The attributes that tie a row's control to its label and the API's messages. */
export const tied = (control: { id: string; name: string; invalid: boolean; describedBy: string | undefined }) =>
  ({ id: control.id, name: control.name, 'aria-invalid': control.invalid ? 'true' as const : undefined, 'aria-describedby': control.describedBy });

/**
 * A list field of objects (a tool's headers, an evaluation's fields): one row of controls per item, named
 * `<name>.<index>.<field>`, which can be added and removed; with no row left, `[]` is sent, which empties the list.
 */
export function RowList<T extends object>({ name, legend, hint, initial, blank, addLabel, removeLabel, row }: {
  name: string;
  legend: string;
  hint?: ComponentChildren;
  initial: T[];
  blank: () => T;
  addLabel: string;
  removeLabel: (index: number) => string;
  row: (item: T, prefix: string, index: number) => ComponentChildren;
}) {
  const [rows, setRows] = useState(() => initial.map((item) => ({ id: key(), item })));
  return (
    <Group name={name} legend={legend} hint={hint}>
      {rows.length === 0 && <input type="hidden" name={name} data-kind="json" value="[]" />}
      {rows.map(({ id, item }, index) => (
        <div class="row" key={id}>
          {row(item, `${name}.${index}`, index)}
          <button type="button" class="quiet" onClick={() => setRows(rows.filter((other) => other.id !== id))} aria-label={removeLabel(index)}>Remove</button>
        </div>
      ))}
      <button type="button" onClick={() => setRows([...rows, { id: key(), item: blank() }])}>{addLabel}</button>
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
  return (
    <RowList name="post_call_schema" legend="Fields to extract after each call" initial={initial} addLabel="Add a field"
      hint="Each becomes a value of the call's evaluation: a name (letters, digits, underscores), a type and what to put in it."
      blank={() => ({ name: '', type: 'string', description: '' })} removeLabel={(index) => `Remove field ${index + 1}`}
      row={(field, prefix) => (
        <>
          <RowControl name={`${prefix}.name`} label="Name">{(control) => <input {...tied(control)} data-empty="keep" defaultValue={field.name} />}</RowControl>
          <RowControl name={`${prefix}.type`} label="Type">
            {(control) => <select {...tied(control)}>{['string', 'number', 'bool'].map((type) => <option key={type} value={type} selected={field.type === type}>{type}</option>)}</select>}
          </RowControl>
          <RowControl name={`${prefix}.description`} label="Description" class="grow">
            {(control) => <input {...tied(control)} data-empty="keep" defaultValue={field.description} />}
          </RowControl>
        </>
      )} />
  );
}
