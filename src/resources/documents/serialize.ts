import { isoTimestamp } from '../../lib/time.ts';
import type { Document, DocumentStatus, DocumentType } from './model.ts';

const typeLabels: Record<DocumentType, string> = { website: 'Website', pdf: 'PDF', txt: 'Text', docx: 'Word Document' };
const statusLabels: Record<DocumentStatus, string> = { processing: 'Processing', active: 'Active', failed: 'Failed' };

function base(record: Document) {
  return {
    id: record.id,
    name: record.name,
    description: record.description,
    type: record.type,
    type_label: typeLabels[record.type],
    status: record.status,
    status_label: statusLabels[record.status],
  };
}

export function documentItem(record: Document) {
  return {
    ...base(record),
    error: record.status === 'failed' ? record.error : null,
    created_at: isoTimestamp(record.createdAt),
    updated_at: isoTimestamp(record.updatedAt),
  };
}

export function createdDocument(record: Document) {
  return { ...base(record), created_at: isoTimestamp(record.createdAt) };
}
