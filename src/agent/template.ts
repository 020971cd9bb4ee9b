/**
 * Fills `{{name}}` placeholders (spaces inside the braces allowed) from the variables. A placeholder with no
 * value stays as written, so a prompt with a missing variable reads visibly wrong instead of failing.
 */
export function fillTemplate(text: string, variables: Record<string, unknown>): string {
  return text.replace(/\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g, (placeholder, name: string) => {
    const value = variables[name];
    return value === undefined || value === null ? placeholder : textOf(value);
  });
}

/** A value as text in a prompt or a URL: strings as they are, numbers and booleans printed, the rest as JSON. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}
