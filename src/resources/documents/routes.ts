import { multipart } from '../../api/middleware/multipart.ts';
import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { documentKeys } from '../../knowledge/files.ts';
import { ErrorBody, MessageBody } from '../../api/schemas.ts';
import {
  CreateDocumentBody,
  DocumentCreated,
  DocumentList,
  DocumentParams,
  DocumentShow,
  DocumentsParams,
  DocumentUpdated,
  UpdateDocumentBody,
} from './schemas.ts';
import { createdDocument, documentItem } from './serialize.ts';
import {
  createDocument,
  deleteDocument,
  getDocument,
  listDocuments,
  updateDocument,
  type DocumentDeps,
  type StoredUpload,
} from './service.ts';

const notFound = { description: 'No such knowledge base or document of the caller', schema: ErrorBody };
const maxUploadBytes = 20 * 1024 * 1024;

export function documentRoutes(deps: DocumentDeps): RouteDefinition[] {
  const { knex } = deps;
  const common = { tag: 'Knowledge bases', auth: 'bearer' as const, errorStyle: 'error' as const };
  return [
    defineRoute({
      ...common,
      method: 'GET',
      path: '/user/knowledgebases/{knowledgebaseId}/documents',
      summary: 'List the documents of a knowledge base, with their processing status',
      params: DocumentsParams,
      responses: { 200: { description: 'The documents', schema: DocumentList }, 404: notFound },
      async handle({ auth, params }) {
        return { body: { data: (await listDocuments(knex, auth.user.id, params.knowledgebaseId)).map(documentItem) } };
      },
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/user/knowledgebases/{knowledgebaseId}/documents',
      summary: 'Add a document (website as JSON or multipart; pdf, txt, docx as multipart); it is processed in the background',
      params: DocumentsParams,
      body: CreateDocumentBody,
      bodyKind: multipart({ storage: deps.storage, fileField: 'file', maxFileBytes: maxUploadBytes, keyFor: documentKeys.upload }),
      failureText: 'Failed to create document. Please try again.',
      responses: { 201: { description: 'Created, status processing', schema: DocumentCreated }, 404: notFound },
      async handle({ auth, params, body, ctx }) {
        const upload = ctx.state.upload as StoredUpload | undefined;
        const document = await createDocument(deps, auth.user.id, params.knowledgebaseId, body, upload);
        return { status: 201, body: { message: 'Document created successfully. Processing will begin shortly.', data: createdDocument(document) } };
      },
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: '/user/knowledgebases/{knowledgebaseId}/documents/{documentId}',
      summary: 'Get one document; poll it to follow processing (a failed one says why in `error`)',
      params: DocumentParams,
      responses: { 200: { description: 'The document', schema: DocumentShow }, 404: notFound },
      async handle({ auth, params }) {
        return { body: { data: documentItem(await getDocument(knex, auth.user.id, params.knowledgebaseId, params.documentId)) } };
      },
    }),
    defineRoute({
      ...common,
      method: 'PUT',
      path: '/user/knowledgebases/{knowledgebaseId}/documents/{documentId}',
      summary: 'Rename a document or change its description (its content cannot change)',
      params: DocumentParams,
      body: UpdateDocumentBody,
      responses: { 200: { description: 'Updated', schema: DocumentUpdated }, 404: notFound },
      async handle({ auth, params, body }) {
        const document = await updateDocument(knex, auth.user.id, params.knowledgebaseId, params.documentId, body);
        return { body: { message: 'Document updated successfully.', data: documentItem(document) } };
      },
    }),
    defineRoute({
      ...common,
      method: 'DELETE',
      path: '/user/knowledgebases/{knowledgebaseId}/documents/{documentId}',
      summary: 'Delete a document with its chunks, embeddings and file; stops its processing if running',
      params: DocumentParams,
      failureText: 'Failed to delete document. Please try again.',
      responses: { 200: { description: 'Deleted', schema: MessageBody }, 404: notFound },
      async handle({ auth, params }) {
        await deleteDocument(deps, auth.user.id, params.knowledgebaseId, params.documentId);
        return { body: { message: 'Document deleted successfully.' } };
      },
    }),
  ];
}
