import { Type, type Static } from '@sinclair/typebox';
import { FilledString, LaravelPage, PageNumber } from '../../api/schemas.ts';

/** The badge colours of folders and labels (anchor §12.8). */
export const COLORS = ['gray', 'slate', 'red', 'orange', 'amber', 'green', 'teal', 'blue', 'purple', 'pink'] as const;
export type Color = typeof COLORS[number];

/** One of the colours, or null for none; anything else is "The selected color is invalid." */
export const ColorField = Type.Unsafe<Color | null>({
  type: ['string', 'null'],
  enum: [...COLORS, null],
  description: `One of ${COLORS.map((color) => `\`${color}\``).join(', ')}; null for none.`,
});

/** Stored trimmed, as Laravel trims input: " Acme " is the name "Acme", and a blank name is missing. */
export const NameField = FilledString({ maxLength: 255, description: 'Unique among your own (regardless of case and of spaces around it).' });

export const CreateBadgeBody = Type.Object({
  name: NameField,
  color: Type.Optional(ColorField),
}, { additionalProperties: false });
export type CreateBadgeBody = Static<typeof CreateBadgeBody>;

/** Only the fields sent are changed; `color: null` clears the colour. */
export const UpdateBadgeBody = Type.Partial(CreateBadgeBody, { additionalProperties: false });
export type UpdateBadgeBody = Static<typeof UpdateBadgeBody>;

/** Query of the folder and label lists. */
export const BadgeListQuery = Type.Object({
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 15, description: '1 to 100, default 15.' })),
  page: Type.Optional(PageNumber()),
});

/** The response schemas of one kind of badge: `title` names it in the document ("Folder"). */
export function badgeResponseSchemas(title: string, countDescription: string) {
  const Item = Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    color: Type.Union([Type.String({ enum: [...COLORS] }), Type.Null()]),
    assistants_count: Type.Integer({ description: countDescription }),
  }, { title });
  return {
    Item,
    Page: LaravelPage(Item, `${title}Page`),
    Envelope: (message: string) => Type.Object({ message: Type.Literal(message), data: Item }),
  };
}
