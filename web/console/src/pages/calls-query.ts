/** The call list's query as the address holds it (no UI here: the early requests of first-requests.ts use it too). */

export const CALL_STATUSES = ['initiated', 'ringing', 'busy', 'in-progress', 'ended', 'completed', 'ended_by_customer', 'ended_by_assistant', 'no-answer', 'failed'] as const;
export const FILTERS = ['status', 'type', 'phone_number', 'assistant_id', 'campaign_id', 'date_from', 'date_to', 'per_page'] as const;

/** The list's query from the address: every filter of `GET /user/calls`, as the API spells them. */
export function queryOf(search: URLSearchParams): Record<string, string | number> {
  const query: Record<string, string | number> = {};
  for (const name of [...FILTERS, 'page'] as const) {
    const value = search.get(name);
    if (value) query[name] = /^(assistant_id|campaign_id|per_page|page)$/.test(name) && /^\d+$/.test(value) ? Number(value) : value;
  }
  // The API checks what the address holds, and answers a wrong value with its message.
  return query;
}
