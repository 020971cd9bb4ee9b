import type { Knex } from 'knex';

/** How often a media process reports its lines. */
export const MEDIA_REPORT_INTERVAL_MS = 5_000;
/** A report older than this is a process gone (killed, or cut off): its lines are not counted. */
const REPORT_STANDS_MS = 3 * MEDIA_REPORT_INTERVAL_MS;
/**
 * An outbound call placed but not yet on a media process (dialing, ringing) will need a line within its ring
 * time; one created longer ago than this and still unanswered is not ringing any more (its workflow is ending
 * it). A web call waiting for its browser is not counted: it may never connect.
 */
const RINGING_WINDOW_MS = 2 * 60_000;

/** A media process's report (the media role sends it every MEDIA_REPORT_INTERVAL_MS). */
export async function reportMediaNode(knex: Knex, node: { id: string; maxCalls: number; liveCalls: number }): Promise<void> {
  await knex('media_nodes').insert({ id: node.id, maxCalls: node.maxCalls, liveCalls: node.liveCalls, reportedAt: new Date() })
    .onConflict('id').merge();
}

/** A media process stopping takes its lines away at once. */
export async function forgetMediaNode(knex: Knex, id: string): Promise<void> {
  await knex('media_nodes').where({ id }).delete();
}

/**
 * How many more calls the deployment's media processes can take: their free lines (MEDIA_MAX_CALLS less the
 * calls each carries, as last reported), less the outbound calls placed and not yet answered, which are about
 * to take lines. Null when no media process has reported lately: the capacity is unknown (no media role shares this
 * database), and callers do not hold calls back for it.
 */
export async function mediaLinesFree(knex: Knex): Promise<number | null> {
  const now = Date.now();
  const nodes: { maxCalls: number; liveCalls: number }[] = await knex('media_nodes')
    .where('reportedAt', '>', new Date(now - REPORT_STANDS_MS)).select('maxCalls', 'liveCalls');
  if (nodes.length === 0) return null;
  const free = nodes.reduce((sum, node) => sum + Math.max(node.maxCalls - node.liveCalls, 0), 0);
  const [ringing] = await knex('calls').whereNull('endedAt').whereNull('answeredAt').where({ type: 'outbound' })
    .where('createdAt', '>', new Date(now - RINGING_WINDOW_MS)).count<{ count: string }[]>('id as count');
  return Math.max(free - Number(ringing?.count ?? 0), 0);
}
