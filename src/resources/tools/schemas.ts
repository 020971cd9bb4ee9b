import { Type, type Static } from '@sinclair/typebox';
import { IsoTimestamp } from '../../api/schemas.ts';
import { MESSAGES } from '../../api/validation.ts';

export const TOOL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export const PARAMETER_TYPES = ['string', 'number', 'boolean'] as const;

/** A tool's name becomes the function name the model calls, so it is kept to what every model accepts. */
const ToolName = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[a-z][a-z_]*$',
  examples: ['check_availability'],
  [MESSAGES]: { pattern: 'Tool name must contain only lowercase letters and underscores, and start with a letter.' },
});

/**
 * An http(s) URL that may hold placeholders (`{param}` for values the model extracts, `{{variable}}` for call
 * variables), which a strict URI format would refuse; the service parses it with the placeholders filled.
 */
const HttpUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#]+([/?#][^\\s]*)?$',
  examples: ['https://api.example.com/availability?date={date}'],
  [MESSAGES]: { pattern: 'The :attribute field must be a valid URL.' },
});

export const ToolHeader = Type.Object({
  // An HTTP token (RFC 9110), so the header can be sent as given.
  name: Type.String({ minLength: 1, maxLength: 255, pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" }),
  // No line breaks: a value must not smuggle further headers into the request.
  value: Type.String({ maxLength: 2048, pattern: '^[^\\r\\n]*$', description: 'Stored encrypted; sent with every call of the tool.' }),
}, { additionalProperties: false });

export const ToolParameter = Type.Object({
  name: Type.String({
    minLength: 2,
    maxLength: 32,
    pattern: '^[A-Za-z][A-Za-z_]*$',
    [MESSAGES]: { pattern: 'The :attribute field must start with a letter and contain only letters and underscores.' },
  }),
  type: Type.Union(PARAMETER_TYPES.map((value) => Type.Literal(value))),
  description: Type.String({ minLength: 3, maxLength: 255 }),
  required: Type.Optional(Type.Boolean({ default: true })),
}, { additionalProperties: false });

const toolFields = {
  name: ToolName,
  description: Type.String({ minLength: 1, maxLength: 255, description: 'When and how the assistant should use the tool.' }),
  endpoint: HttpUrl,
  method: Type.Union(TOOL_METHODS.map((value) => Type.Literal(value))),
  timeout: Type.Integer({ minimum: 1, maximum: 30, description: 'Seconds, default 10.' }),
  headers: Type.Array(ToolHeader, { maxItems: 50 }),
  schema: Type.Array(ToolParameter, { maxItems: 50, description: 'Parameters the assistant extracts from the conversation.' }),
};

export const CreateToolBody = Type.Object({
  name: toolFields.name,
  description: toolFields.description,
  endpoint: toolFields.endpoint,
  method: toolFields.method,
  timeout: Type.Optional({ ...toolFields.timeout, default: 10 }),
  headers: Type.Optional(toolFields.headers),
  schema: Type.Optional(toolFields.schema),
}, { additionalProperties: false });
export type CreateToolBody = Static<typeof CreateToolBody>;

/** Every field optional; `headers` and `schema`, when sent, replace the stored lists. */
export const UpdateToolBody = Type.Partial(Type.Object(toolFields), { additionalProperties: false });
export type UpdateToolBody = Static<typeof UpdateToolBody>;

export const Tool = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  endpoint: Type.String(),
  method: Type.String({ enum: [...TOOL_METHODS] }),
  timeout: Type.Integer(),
  headers: Type.Array(Type.Object({ name: Type.String(), value: Type.String() })),
  schema: Type.Array(Type.Object({
    name: Type.String(),
    type: Type.String({ enum: [...PARAMETER_TYPES] }),
    description: Type.String(),
    required: Type.Boolean(),
  })),
  created_at: IsoTimestamp,
  updated_at: IsoTimestamp,
}, { title: 'Tool' });

export const ToolEnvelope = (message: string) => Type.Object({ message: Type.Literal(message), data: Tool });
