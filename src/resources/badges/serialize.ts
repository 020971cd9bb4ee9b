import type { Badge } from './model.ts';

/** A folder or label as every route of its kind shows it (anchor §12.8). */
export function badgeItem(badge: Badge) {
  return { id: badge.id, name: badge.name, color: badge.color, assistants_count: badge.assistantsCount ?? 0 };
}
