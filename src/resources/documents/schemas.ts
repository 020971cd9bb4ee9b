import { Type } from '@sinclair/typebox';
import { IdInteger, IsoTimestamp, nullable } from '../../api/schemas.ts';
import { MESSAGES } from '../../api/validation.ts';
import type { DocumentType } from './model.ts';

export const DocumentsParams = Type.Object({ knowledgebaseId: IdInteger() });
export const DocumentParams = Type.Object({ knowledgebaseId: IdInteger(), documentId: IdInteger() });

const WebUrl = Type.String({
  maxLength: 2048,
  format: 'uri',
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
  [MESSAGES]: { pattern: 'The :attribute field must be a valid URL.' },
});

/**
 * JSON for website documents, `multipart/form-data` for every type (files in `file`). In multipart
 * bodies, `links` is written `links[0][link]`, `links[1][link]`, ...
 */
export const CreateDocumentBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.Optional(nullable(Type.String({ maxLength: 255 }))),
  type: Type.Unsafe<DocumentType>({ type: 'string', enum: ['website', 'pdf', 'txt', 'docx'] }),
  url: Type.Optional(WebUrl),
  links: Type.Optional(Type.Array(Type.Object({ link: WebUrl }), { minItems: 1, maxItems: 50 })),
  relative_links_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10 })),
  file: Type.Optional(Type.Unknown({
    description: 'The pdf, txt or docx file, at most 20 MB; multipart/form-data only.',
    contentMediaType: 'application/octet-stream',
  })),
}, { additionalProperties: false });

export const UpdateDocumentBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  description: Type.Optional(nullable(Type.String({ maxLength: 255 }))),
}, { additionalProperties: false });

const Type_ = Type.Union(['website', 'pdf', 'txt', 'docx'].map((value) => Type.Literal(value)));
const Status = Type.Union(['processing', 'active', 'failed'].map((value) => Type.Literal(value)));

const base = {
  id: Type.Integer(),
  name: Type.String(),
  description: nullable(Type.String()),
  type: Type_,
  type_label: Type.String({ examples: ['Website'] }),
  status: Status,
  status_label: Type.String({ examples: ['Processing'] }),
};

export const DocumentItem = Type.Object({
  ...base,
  error: nullable(Type.String({ description: 'Why processing failed; null unless the status is failed.' })),
  created_at: IsoTimestamp,
  updated_at: IsoTimestamp,
}, { title: 'Document' });

export const DocumentList = Type.Object({ data: Type.Array(DocumentItem) });
export const DocumentShow = Type.Object({ data: DocumentItem });
export const DocumentCreated = Type.Object({
  message: Type.Literal('Document created successfully. Processing will begin shortly.'),
  data: Type.Object({ ...base, created_at: IsoTimestamp }),
});
export const DocumentUpdated = Type.Object({ message: Type.Literal('Document updated successfully.'), data: DocumentItem });
