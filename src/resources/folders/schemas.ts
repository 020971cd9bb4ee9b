import { Type, type Static } from '@sinclair/typebox';
import { LaravelPage, PageNumber } from '../../api/schemas.ts';

/** The badge colours of folders and labels (anchor §12.8). */
export const COLORS = ['gray', 'slate', 'red', 'orange', 'amber', 'green', 'teal', 'blue', 'purple', 'pink'] as const;
export type Color = typeof COLORS[number];

/** One of the colours, or null for none; anything else is "The selected color is invalid." */
export const ColorField = Type.Unsafe<Color | null>({
  type: ['string', 'null'],
  enum: [...COLORS, null],
  description: `One of ${COLORS.map((color) => `\`${color}\``).join(', ')}; null for none.`,
});

export const NameField = Type.String({ minLength: 1, maxLength: 255, description: 'Unique among your own (regardless of case).' });

export const CreateFolderBody = Type.Object({
  name: NameField,
  color: Type.Optional(ColorField),
}, { additionalProperties: false });
export type CreateFolderBody = Static<typeof CreateFolderBody>;

/** Only the fields sent are changed; `color: null` clears the colour. */
export const UpdateFolderBody = Type.Partial(CreateFolderBody, { additionalProperties: false });
export type UpdateFolderBody = Static<typeof UpdateFolderBody>;

/** Query of the folder and label lists. */
export const BadgeListQuery = Type.Object({
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 15, description: '1 to 100, default 15.' })),
  page: Type.Optional(PageNumber()),
});

export const FolderItem = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  color: Type.Union([Type.String({ enum: [...COLORS] }), Type.Null()]),
  assistants_count: Type.Integer({ description: 'Assistants in this folder.' }),
}, { title: 'Folder' });

export const FolderPage = LaravelPage(FolderItem, 'FolderPage');
export const FolderEnvelope = (message: string) => Type.Object({ message: Type.Literal(message), data: FolderItem });
