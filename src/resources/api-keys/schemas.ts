import { Type } from '@sinclair/typebox';
import { FilledString, IsoTimestamp, nullable } from '../../api/schemas.ts';

/** A name of spaces is "required" (§3.1), and a name is stored without the spaces around it, as Laravel trims it. */
export const CreateApiKeyBody = Type.Object({
  name: FilledString({ maxLength: 255 }),
}, { additionalProperties: false });

export const CreatedApiKey = Type.Object({
  message: Type.Literal('API key created successfully.'),
  api_key: Type.Object({
    name: Type.String(),
    token: Type.String({ description: 'Shown only in this response.' }),
    created_at: IsoTimestamp,
  }),
});

export const ApiKeyList = Type.Object({
  api_keys: Type.Array(Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    last_used_at: nullable(IsoTimestamp),
    created_at: IsoTimestamp,
  })),
});
