import type { RouteDefinition } from '../../api/routing.ts';
import { badgeRoutes, type BadgeRouteDeps } from '../badges/routes.ts';
import { Label } from './model.ts';

/** An assistant carries any number of labels (`assistant_labels`); deleting a label takes it off them. */
export function labelRoutes(deps: BadgeRouteDeps): RouteDefinition[] {
  return badgeRoutes({
    model: Label,
    noun: 'label',
    assistants: { table: 'assistant_labels', column: 'label_id' },
    uniqueConstraint: 'labels_user_name_unique',
    texts: {
      listSummary: "List the caller's labels with the count of assistants each is applied to, paginated",
      deleteSummary: 'Delete a label; it is removed from its assistants, which stay',
      countDescription: 'Assistants this label is applied to.',
    },
  }, deps);
}
