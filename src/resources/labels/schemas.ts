import { Type, type Static } from '@sinclair/typebox';
import { LaravelPage } from '../../api/schemas.ts';
import { COLORS, ColorField, NameField } from '../folders/schemas.ts';

export const CreateLabelBody = Type.Object({
  name: NameField,
  color: Type.Optional(ColorField),
}, { additionalProperties: false });
export type CreateLabelBody = Static<typeof CreateLabelBody>;

/** Only the fields sent are changed; `color: null` clears the colour. */
export const UpdateLabelBody = Type.Partial(CreateLabelBody, { additionalProperties: false });
export type UpdateLabelBody = Static<typeof UpdateLabelBody>;

export const LabelItem = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  color: Type.Union([Type.String({ enum: [...COLORS] }), Type.Null()]),
  assistants_count: Type.Integer({ description: 'Assistants this label is applied to.' }),
}, { title: 'Label' });

export const LabelPage = LaravelPage(LabelItem, 'LabelPage');
export const LabelEnvelope = (message: string) => Type.Object({ message: Type.Literal(message), data: LabelItem });
