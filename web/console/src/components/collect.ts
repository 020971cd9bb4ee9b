/**
 * A form's controls as the API's JSON body. A control's `name` is the API's field, with dots for nesting
 * (`post_call_schema.0.name`), and its kind says how its value is written:
 * - checkbox: a boolean; with `data-kind="list"`, checked boxes of one name make an array of their values;
 * - number input: a number; empty is left out;
 * - select with `data-kind="id"`: an integer, empty is null (left out with `data-empty="omit"`); `multiple` selects make arrays (`data-kind="ids"`: of integers);
 * - `data-kind="json"`: the text parsed as JSON; empty is left out;
 * - `data-kind="csv"`: the text's comma- or space-separated items as an array of strings;
 * - `data-kind="lines"`: the text's non-empty lines, trimmed, as an array of strings;
 * - other text: the text; empty is left out, null with `data-empty="null"`, sent empty with `data-empty="keep"`.
 * Disabled controls and controls without a name are not sent.
 */
export class FieldInputError extends Error {
  readonly field: string;

  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
const OMIT = Symbol('omit');

function valueOf(control: Control): unknown {
  const kind = control.dataset.kind;
  if (control instanceof HTMLInputElement && control.type === 'checkbox') {
    if (kind === 'list') return control.checked ? (control.dataset.type === 'integer' ? Number(control.value) : control.value) : OMIT;
    return control.checked;
  }
  if (control instanceof HTMLInputElement && (control.type === 'radio')) return control.checked ? control.value : OMIT;
  if (control instanceof HTMLSelectElement && control.multiple) {
    const chosen = [...control.selectedOptions].map((option) => option.value);
    return kind === 'ids' ? chosen.map(Number) : chosen;
  }
  const text = control.value;
  if (kind === 'id') return text === '' ? (control.dataset.empty === 'omit' ? OMIT : null) : Number(text);
  if (control instanceof HTMLInputElement && control.type === 'number') return text.trim() === '' ? (control.dataset.empty === 'null' ? null : OMIT) : Number(text);
  if (kind === 'csv') return text.split(/[\s,]+/).filter(Boolean);
  if (kind === 'lines') return text.split('\n').map((line) => line.trim()).filter(Boolean);
  if (kind === 'json') {
    if (text.trim() === '') return OMIT;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new FieldInputError(control.name, `The ${control.name.replace(/_/g, ' ')} field must be valid JSON.`);
    }
  }
  if (text === '') return control.dataset.empty === 'null' ? null : control.dataset.empty === 'keep' ? '' : OMIT;
  return text;
}

/** Sets `value` at `path` in `body`, making objects (or arrays, before a numeric key) on the way; a list appends. */
function place(body: Record<string, unknown>, path: string[], value: unknown, list: boolean): void {
  // Arrays are indexed by their numeric keys like objects here.
  let target = body;
  for (const [index, key] of path.entries()) {
    const slot = target[key];
    if (index === path.length - 1) {
      target[key] = list ? [...(Array.isArray(slot) ? slot as unknown[] : []), value] : value;
      return;
    }
    if (!slot || typeof slot !== 'object') target[key] = /^\d+$/.test(path[index + 1] ?? '') ? [] : {};
    target = target[key] as Record<string, unknown>;
  }
}

export function collectForm(form: HTMLFormElement): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const lists = new Set<string>();
  for (const element of form.elements) {
    const control = element as Control;
    if (!control.name || control.disabled || !('value' in control) || element instanceof HTMLButtonElement || (element as HTMLElement).dataset.skip !== undefined) continue;
    const list = control.dataset.kind === 'list';
    // A list whose boxes are all unchecked is still sent, empty: the API replaces the list with it.
    if (list && !lists.has(control.name)) {
      lists.add(control.name);
      place(body, control.name.split('.'), [], false);
    }
    const value = valueOf(control);
    if (value === OMIT) continue;
    place(body, control.name.split('.'), value, list);
  }
  return body;
}

/** A body's value as text, '' when it is absent (forms whose fields the API takes as strings). */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

/** A control's text in FormData by name, '' when absent (or a file). */
export function formText(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === 'string' ? value : '';
}
