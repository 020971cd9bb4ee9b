import type { Label } from './model.ts';

/** A label as every label route shows it (anchor §12.8). */
export function labelItem(label: Label) {
  return { id: label.id, name: label.name, color: label.color, assistants_count: label.assistantsCount ?? 0 };
}
