import { isoTimestamp } from '../../lib/time.ts';
import type { Knowledgebase, KnowledgebaseStatus } from './model.ts';

const statusLabels: Record<KnowledgebaseStatus, string> = {
  empty: 'Empty',
  processing: 'Processing',
  active: 'Active',
  failed: 'Failed',
};

function base(record: Knowledgebase) {
  return {
    id: record.id,
    name: record.name,
    description: record.description,
    status: record.status,
    status_label: statusLabels[record.status],
  };
}

/** The list and get shape, counts included. */
export function knowledgebaseItem(record: Knowledgebase) {
  return {
    ...base(record),
    documents_count: record.documentsCount ?? 0,
    assistants_count: record.assistantsCount ?? 0,
    created_at: isoTimestamp(record.createdAt),
    updated_at: isoTimestamp(record.updatedAt),
  };
}

export function createdKnowledgebase(record: Knowledgebase) {
  return { ...base(record), created_at: isoTimestamp(record.createdAt), updated_at: isoTimestamp(record.updatedAt) };
}

export function updatedKnowledgebase(record: Knowledgebase) {
  return { ...base(record), updated_at: isoTimestamp(record.updatedAt) };
}
