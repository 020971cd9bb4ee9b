/**
 * Fills `{{name}}` placeholders (spaces inside the braces allowed) from the variables. A placeholder with no
 * value stays as written, so a prompt with a missing variable reads visibly wrong instead of failing.
 */
export function fillTemplate(text: string, variables: Record<string, unknown>): string {
  return text.replace(/\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g, (placeholder, name: string) => {
    const value = variables[name];
    if (value === undefined || value === null) return placeholder;
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
    return JSON.stringify(value);
  });
}
