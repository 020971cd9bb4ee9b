import { Type } from '@sinclair/typebox';
import { IdInteger, IsoTimestamp, nullable } from '../../api/schemas.ts';

export const KnowledgebaseParams = Type.Object({ id: IdInteger() });

export const CreateKnowledgebaseBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.Optional(nullable(Type.String({ maxLength: 255 }))),
}, { additionalProperties: false });

export const UpdateKnowledgebaseBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  description: Type.Optional(nullable(Type.String({ maxLength: 255 }))),
}, { additionalProperties: false });

export const SearchBody = Type.Object({
  query: Type.String({ minLength: 1, maxLength: 1000 }),
  top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 5 })),
}, { additionalProperties: false });

const Status = Type.Union(['empty', 'processing', 'active', 'failed'].map((value) => Type.Literal(value)));

const base = {
  id: Type.Integer(),
  name: Type.String(),
  description: nullable(Type.String()),
  status: Status,
  status_label: Type.String({ examples: ['Active'] }),
};

export const KnowledgebaseItem = Type.Object({
  ...base,
  documents_count: Type.Integer(),
  assistants_count: Type.Integer(),
  created_at: IsoTimestamp,
  updated_at: IsoTimestamp,
}, { title: 'Knowledgebase' });

export const KnowledgebaseList = Type.Object({ data: Type.Array(KnowledgebaseItem) });
export const KnowledgebaseShow = Type.Object({ data: KnowledgebaseItem });
export const KnowledgebaseCreated = Type.Object({
  message: Type.Literal('Knowledgebase created successfully.'),
  data: Type.Object({ ...base, created_at: IsoTimestamp, updated_at: IsoTimestamp }),
});
export const KnowledgebaseUpdated = Type.Object({
  message: Type.Literal('Knowledgebase updated successfully.'),
  data: Type.Object({ ...base, updated_at: IsoTimestamp }),
});

export const SearchResults = Type.Object({
  data: Type.Array(Type.Object({
    chunk_id: Type.Integer(),
    document_id: Type.Integer(),
    document_name: Type.String(),
    score: Type.Number({ description: 'Reciprocal rank fusion score: higher is better; comparable within one answer only.' }),
    text: Type.String(),
    metadata: Type.Object({
      url: Type.Optional(Type.String()),
      page: Type.Optional(Type.Integer()),
      heading: Type.Optional(Type.String()),
    }),
  }, { title: 'SearchResult' })),
  mode: Type.Union([Type.Literal('hybrid'), Type.Literal('full_text')], { description: 'full_text when no embeddings provider is configured.' }),
});
