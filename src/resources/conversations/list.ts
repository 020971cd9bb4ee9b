import type { Knex } from 'knex';
import { microsToUsd } from '../../lib/money.ts';
import { urlWith } from '../../lib/pagination.ts';
import { sqlTimestamp } from '../../lib/time.ts';
import { isUuid } from '../../lib/uuid.ts';

interface Cursor {
  id: number;
  /** Whether the cursor points at the items after it (older ones) or before it (newer ones). */
  next: boolean;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

export function decodeCursor(text: string | undefined): Cursor | undefined {
  if (!text) return undefined;
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<Cursor>;
    if (typeof value.id === 'number' && Number.isSafeInteger(value.id) && typeof value.next === 'boolean') return { id: value.id, next: value.next };
  } catch {
    // not a cursor of ours: start from the newest, as for no cursor
  }
  return undefined;
}

interface Row {
  id: number;
  uuid: string;
  assistantUuid: string;
  assistantName: string;
  type: string;
  variables: Record<string, unknown>;
  externalIdentifier: string | null;
  customerPhone: string | null;
  customerName: string | null;
  senderName: string | null;
  senderPhone: string | null;
  aiEnabled: boolean;
  messageCount: number;
  totalCostMicros: number;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The caller's conversations, newest first, in pages of `perPage` linked by opaque cursors (stable while new
 * conversations arrive, unlike page numbers), as Laravel's cursor paginator answers them.
 */
export async function listConversations(
  knex: Knex,
  input: {
    userId: number; type?: string | undefined; assistantId?: string | undefined; externalIdentifier?: string | undefined; perPage: number; cursor?: string | undefined;
    customerPhone?: string | undefined; whatsappSenderPhone?: string | undefined;
    path: string; query: Record<string, unknown>;
  },
) {
  const cursor = decodeCursor(input.cursor);
  const query = knex('conversations as c')
    .join('assistants as a', 'a.id', 'c.assistant_id')
    .leftJoin('whatsapp_senders as s', 's.id', 'c.whatsapp_sender_id')
    .where('c.user_id', input.userId)
    .select('c.id', 'c.uuid', 'a.uuid as assistant_uuid', 'a.name as assistant_name', 'c.type', 'c.variables', 'c.external_identifier', 'c.ai_enabled', 'c.message_count', 'c.total_cost_micros', 'c.created_at', 'c.updated_at',
      'c.customer_phone', 'c.customer_name', 's.display_name as sender_name', 's.phone_number as sender_phone');
  if (input.type) query.where('c.type', input.type);
  if (input.customerPhone) query.where('c.customer_phone', input.customerPhone);
  if (input.whatsappSenderPhone) query.where('s.phone_number', input.whatsappSenderPhone);
  if (input.externalIdentifier) query.where('c.external_identifier', input.externalIdentifier);
  if (input.assistantId) {
    // An integer past any id (and past `bigint`) names no assistant rather than reaching the query.
    if (/^\d+$/.test(input.assistantId)) query.where('a.id', Number.isSafeInteger(Number(input.assistantId)) ? Number(input.assistantId) : 0);
    else if (isUuid(input.assistantId)) query.where('a.uuid', input.assistantId);
    else query.whereRaw('false');
  }
  if (cursor) query.where('c.id', cursor.next ? '<' : '>', cursor.id);
  query.orderBy('c.id', cursor && !cursor.next ? 'asc' : 'desc').limit(input.perPage + 1);

  const rows = await query as Row[];
  const more = rows.length > input.perPage;
  const page = rows.slice(0, input.perPage);
  if (cursor && !cursor.next) page.reverse();

  const first = page[0];
  const last = page.at(-1);
  const hasNext = cursor && !cursor.next ? true : more;
  const hasPrev = cursor ? (cursor.next ? true : more) : false;
  const nextCursor = hasNext && last ? encodeCursor({ id: last.id, next: true }) : null;
  const prevCursor = hasPrev && first ? encodeCursor({ id: first.id, next: false }) : null;
  const url = (value: string | null) => (value ? urlWith(input.path, input.query, 'cursor', value) : null);

  return {
    data: page.map((row) => ({
      id: row.uuid,
      assistant_id: row.assistantUuid,
      assistant_name: row.assistantName,
      type: row.type,
      variables: row.variables,
      ...(row.type === 'api' ? { external_identifier: row.externalIdentifier } : {}),
      ...(row.type === 'whatsapp' ? {
        whatsapp_sender: { name: row.senderName, phone: row.senderPhone },
        customer: { name: row.customerName, phone: row.customerPhone },
      } : {}),
      message_count: row.messageCount,
      total_cost: microsToUsd(Number(row.totalCostMicros)),
      ai_enabled: row.aiEnabled,
      created_at: sqlTimestamp(row.createdAt),
      updated_at: sqlTimestamp(row.updatedAt),
    })),
    path: input.path,
    per_page: input.perPage,
    next_cursor: nextCursor,
    next_page_url: url(nextCursor),
    prev_cursor: prevCursor,
    prev_page_url: url(prevCursor),
  };
}
