import { Type } from '@sinclair/typebox';
import { IsoTimestamp, nullable } from '../../api/schemas.ts';
import { MESSAGES } from '../../api/validation.ts';

/**
 * Laravel trims every input string and takes a blank one as missing, so a name of spaces is "required" (§3.1)
 * and a name is stored without the spaces around it.
 */
export const CreateApiKeyBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S', [MESSAGES]: { pattern: 'The :attribute field is required.' } }),
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
