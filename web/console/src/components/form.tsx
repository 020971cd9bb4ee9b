import { createContext, type ComponentChildren, type LooseInputHTMLAttributes, type LooseSelectHTMLAttributes, type TextareaHTMLAttributes } from 'preact';
import { useContext, useState } from 'preact/hooks';
import { ApiError } from '../api/client.ts';
import { collectForm, FieldInputError } from './collect.ts';

type Errors = Record<string, string[]>;
const ErrorsContext = createContext<Errors>({});
/** Set by a form whose field names another form on the same page also uses, so the controls' ids stay unique. */
const IdPrefixContext = createContext('');

/** The id of a control named `name` (dots and brackets are not safe in a selector), after its form's prefix. */
function fieldId(name: string, prefix = ''): string {
  return `${prefix}field-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}

/** `fieldId` within the form being rendered. */
export function useFieldId(name: string): string {
  return fieldId(name, useContext(IdPrefixContext));
}

/** An error's name is shown beside a control of that name, or beside a group (`data-errors`) it falls under. */
function shownBeside(form: HTMLFormElement, name: string): boolean {
  if ([...form.elements].some((element) => (element as HTMLInputElement).name === name)) return true;
  return [...form.querySelectorAll<HTMLElement>('[data-errors]')].some((group) => {
    const prefix = group.dataset.errors ?? '';
    return name === prefix || name.startsWith(`${prefix}.`);
  });
}

interface FormProps {
  /** Gets the form's fields as the API's body (collect.ts); a rejection with an ApiError shows its messages. */
  onSubmit: (body: Record<string, unknown>, form: HTMLFormElement) => Promise<unknown>;
  submitLabel: string;
  children: ComponentChildren;
  label?: string;
  class?: string;
  /** Extra buttons beside the submit button. */
  actions?: ComponentChildren;
  /** Before each control's id, when another form on the page has controls of the same names. */
  idPrefix?: string;
}

/**
 * A form whose controls are named as the API's fields. On submit its body goes to `onSubmit`; a 422's messages
 * are shown beside their controls (tied with aria-describedby), any other error above the buttons.
 */
export function Form(props: FormProps) {
  const [errors, setErrors] = useState<Errors>({});
  const [problem, setProblem] = useState<{ message: string; unmatched: [string, string[]][] }>();
  const [busy, setBusy] = useState(false);

  const fail = (form: HTMLFormElement, message: string, fields: Errors) => {
    setErrors(fields);
    const unmatched = Object.entries(fields).filter(([name]) => !shownBeside(form, name));
    const named = Object.keys(fields).length > unmatched.length;
    setProblem({ message: named ? 'Check the fields marked below.' : message, unmatched });
    // After the messages render: the first control in error takes the focus, or the summary does.
    requestAnimationFrame(() => {
      const first = form.querySelector<HTMLElement>('[aria-invalid="true"]') ?? form.querySelector<HTMLElement>('.form-problem');
      first?.focus();
    });
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    let body: Record<string, unknown>;
    try {
      body = collectForm(form);
    } catch (error) {
      if (error instanceof FieldInputError) fail(form, error.message, { [error.field]: [error.message] });
      return;
    }
    setBusy(true);
    setProblem(undefined);
    try {
      await props.onSubmit(body, form);
      setErrors({});
    } catch (error) {
      if (error instanceof ApiError) fail(form, error.message, error.fields);
      else fail(form, error instanceof Error ? error.message : String(error), {});
    } finally {
      setBusy(false);
    }
  };

  return (
    <IdPrefixContext.Provider value={props.idPrefix ?? ''}>
    <ErrorsContext.Provider value={errors}>
      <form class={props.class} aria-label={props.label} onSubmit={(event) => void submit(event)} noValidate>
        {props.children}
        {problem && (
          <div class="form-problem" role="alert" tabIndex={-1}>
            <p>{problem.message}</p>
            {problem.unmatched.length > 0 && (
              <ul>{problem.unmatched.map(([name, messages]) => <li key={name}><code>{name}</code>: {messages.join(' ')}</li>)}</ul>
            )}
          </div>
        )}
        <div class="form-actions">
          <button type="submit" class="primary" disabled={busy}>{busy ? 'Working…' : props.submitLabel}</button>
          {props.actions}
        </div>
      </form>
    </ErrorsContext.Provider>
    </IdPrefixContext.Provider>
  );
}

interface ShellProps {
  name: string;
  label: string;
  hint?: ComponentChildren;
  children: (control: { id: string; invalid: boolean; describedBy: string | undefined }) => ComponentChildren;
  class?: string;
  /** The label after the control (checkboxes). */
  after?: boolean;
}

/** A control with its label, its hint and the API's messages about it. */
export function FieldShell({ name, label, hint, children, class: className, after }: ShellProps) {
  const messages = useContext(ErrorsContext)[name];
  const id = useFieldId(name);
  const describedBy = [hint ? `${id}-hint` : '', messages ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  const control = children({ id, invalid: Boolean(messages), describedBy });
  return (
    <div class={`field${after ? ' check' : ''}${messages ? ' invalid' : ''}${className ? ` ${className}` : ''}`}>
      {after ? <>{control}<label for={id}>{label}</label></> : <><label for={id}>{label}</label>{control}</>}
      {hint && <p id={`${id}-hint`} class="hint">{hint}</p>}
      {messages && <p id={`${id}-error`} class="field-error">{messages.join(' ')}</p>}
    </div>
  );
}

/** An input's attributes, as preact types them (with `list`, which they lack), and its label and hint. */
type InputProps = Omit<LooseInputHTMLAttributes<HTMLInputElement>, 'label' | 'name'> & { name: string; label: string; hint?: ComponentChildren; list?: string };

export function Field({ name, label, hint, class: className, ...input }: InputProps) {
  return (
    <FieldShell name={name} label={label} hint={hint} class={className as string | undefined}>
      {({ id, invalid, describedBy }) => <input id={id} name={name} aria-invalid={invalid ? 'true' : undefined} aria-describedby={describedBy} {...(input as object)} />}
    </FieldShell>
  );
}

export function Check({ name, label, hint, class: className, ...input }: InputProps) {
  return (
    <FieldShell name={name} label={label} hint={hint} class={className as string | undefined} after>
      {({ id, invalid, describedBy }) => <input type="checkbox" id={id} name={name} aria-invalid={invalid ? 'true' : undefined} aria-describedby={describedBy} {...(input as object)} />}
    </FieldShell>
  );
}

type AreaProps = Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'label' | 'name'> & { name: string; label: string; hint?: ComponentChildren };

export function TextArea({ name, label, hint, class: className, ...area }: AreaProps) {
  return (
    <FieldShell name={name} label={label} hint={hint} class={className as string | undefined}>
      {({ id, invalid, describedBy }) => <textarea id={id} name={name} aria-invalid={invalid ? 'true' : undefined} aria-describedby={describedBy} {...(area)} />}
    </FieldShell>
  );
}

export interface Option {
  value: string | number;
  label: string;
}

type SelectProps = Omit<LooseSelectHTMLAttributes<HTMLSelectElement>, 'label' | 'name' | 'value'> & {
  name: string;
  label: string;
  hint?: ComponentChildren;
  options: Option[];
  /** The option chosen when the form shows (a list of them for `multiple`). */
  initial?: string | number | (string | number)[] | null;
  /** An empty first option, with this text. */
  empty?: string;
};

export function Select({ name, label, hint, options, initial, empty, class: className, ...select }: SelectProps) {
  const chosen = new Set((Array.isArray(initial) ? initial : initial === null || initial === undefined ? [] : [initial]).map(String));
  return (
    <FieldShell name={name} label={label} hint={hint} class={className as string | undefined}>
      {({ id, invalid, describedBy }) => (
        <select id={id} name={name} aria-invalid={invalid ? 'true' : undefined} aria-describedby={describedBy} {...(select as object)}>
          {empty !== undefined && <option value="">{empty}</option>}
          {options.map((option) => <option key={option.value} value={option.value} selected={chosen.has(String(option.value))}>{option.label}</option>)}
        </select>
      )}
    </FieldShell>
  );
}

/** A group of controls whose API messages (`name` and `name.…`) are shown together under it. */
export function Group({ name, legend, hint, children }: { name: string; legend: string; hint?: ComponentChildren; children: ComponentChildren }) {
  const all = useContext(ErrorsContext);
  // Messages about a control of the group are beside that control already (errors arrive after the controls exist).
  const messages = Object.entries(all).filter(([key]) => (key === name || key.startsWith(`${name}.`)) && document.getElementsByName(key).length === 0);
  const id = useFieldId(name);
  return (
    <fieldset class={`group${messages.length ? ' invalid' : ''}`} data-errors={name} aria-describedby={messages.length ? `${id}-error` : undefined}>
      <legend>{legend}</legend>
      {hint && <p class="hint">{hint}</p>}
      {children}
      {messages.length > 0 && (
        <p id={`${id}-error`} class="field-error">{messages.map(([key, texts]) => `${key === name ? '' : `${key.slice(name.length + 1)}: `}${texts.join(' ')}`).join(' ')}</p>
      )}
    </fieldset>
  );
}

/**
 * Checkboxes of one list field (ids): checked ones are sent as an array, none as `[]`; the API's messages about
 * the list or its items are shown under the group.
 */
export function Choices({ name, legend, options, initial, hint }: { name: string; legend: string; options: Option[]; initial: readonly (string | number)[] | undefined; hint?: ComponentChildren }) {
  const messages = Object.entries(useContext(ErrorsContext)).filter(([key]) => key === name || key.startsWith(`${name}.`));
  const id = useFieldId(name);
  const chosen = new Set((initial ?? []).map(String));
  return (
    <fieldset class={`choices${messages.length ? ' invalid' : ''}`} data-errors={name} aria-describedby={messages.length ? `${id}-error` : undefined}>
      <legend>{legend}</legend>
      {hint && <p class="hint">{hint}</p>}
      {options.map((option) => (
        <div class="field check" key={option.value}>
          <input type="checkbox" id={`${id}-${option.value}`} name={name} value={String(option.value)} data-kind="list" data-type={typeof option.value === 'number' ? 'integer' : undefined}
            defaultChecked={chosen.has(String(option.value))} />
          <label for={`${id}-${option.value}`}>{option.label}</label>
        </div>
      ))}
      {messages.length > 0 && <p id={`${id}-error`} class="field-error">{messages.map(([, texts]) => texts.join(' ')).join(' ')}</p>}
    </fieldset>
  );
}
