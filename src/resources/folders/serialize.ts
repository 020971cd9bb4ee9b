import type { Folder } from './model.ts';

/** A folder as every folder route shows it (anchor §12.8). */
export function folderItem(folder: Folder) {
  return { id: folder.id, name: folder.name, color: folder.color, assistants_count: folder.assistantsCount ?? 0 };
}
