import { isoTimestamp } from '../../lib/time.ts';
import type { AccessToken } from '../auth/model.ts';

export function createdApiKey(record: AccessToken, token: string) {
  return { name: record.name, token, created_at: isoTimestamp(record.createdAt) };
}

export function apiKeyListItem(record: AccessToken) {
  return {
    id: record.id,
    name: record.name,
    last_used_at: isoTimestamp(record.lastUsedAt),
    created_at: isoTimestamp(record.createdAt),
  };
}
