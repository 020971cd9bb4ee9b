import type { Badge } from './model.ts';

/**
 * What tells one kind of badge from another. Folders and labels are the same record (a name unique per user, a
 * colour, a count of assistants) and differ only in the table, how an assistant points at them, and a few words;
 * the routes' messages are built from the noun ("Folder created successfully", "Label not found").
 */
export interface BadgeKind {
  /** The objection model over the kind's table. */
  model: typeof Badge;
  /** Singular and lower case, as in the paths: `folder` serves `/user/folder` and `/user/folders`. */
  noun: string;
  /** The rows an assistant count counts: the table, and its column holding the badge's id. */
  assistants: { table: string; column: string };
  /** The unique index on (user, lower(name)) that two requests racing for one name meet. */
  uniqueConstraint: string;
  /** The OpenAPI texts that say more than the noun. */
  texts: { listSummary: string; deleteSummary: string; countDescription: string };
}

/** `folder` → `Folder`. */
export function capitalized(noun: string): string {
  return noun.charAt(0).toUpperCase() + noun.slice(1);
}
