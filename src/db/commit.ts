/**
 * A select-list expression that makes the statement's own (implicit) transaction commit without waiting for its
 * WAL to reach the disk: `set_config(…, true)` lasts until that transaction ends, and a statement outside a
 * transaction is one. On a PostgreSQL server a durable commit waits for an fsync (about 2.4 ms on our machines
 * against 0.2 ms), and holds the statement's row locks until then; an asynchronous one is made durable by the WAL
 * writer within a few hundred milliseconds, or at once by any later durable commit, since the WAL is written in
 * order. `when` (SQL) says whether to: it defaults to always. See docs/decisions.md, "A turn waits for one
 * durable commit".
 */
export function asynchronousCommit(when = 'true'): string {
  return `set_config('synchronous_commit', case when ${when} then 'off' else 'on' end, true)`;
}
