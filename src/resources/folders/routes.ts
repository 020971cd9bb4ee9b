import type { RouteDefinition } from '../../api/routing.ts';
import { badgeRoutes, type BadgeRouteDeps } from '../badges/routes.ts';
import { Folder } from './model.ts';

/** An assistant sits in at most one folder (`assistants.folder_id`); deleting the folder leaves it uncategorized. */
export function folderRoutes(deps: BadgeRouteDeps): RouteDefinition[] {
  return badgeRoutes({
    model: Folder,
    noun: 'folder',
    assistants: { table: 'assistants', column: 'folder_id' },
    uniqueConstraint: 'folders_user_name_unique',
    texts: {
      listSummary: "List the caller's folders with their assistant counts, paginated",
      deleteSummary: 'Delete a folder; its assistants stay, uncategorized',
      countDescription: 'Assistants in this folder.',
    },
  }, deps);
}
