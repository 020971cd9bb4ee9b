import { isoTimestamp } from '../../lib/time.ts';
import type { Tool } from './model.ts';

/** The tool as its owner reads it: header values decrypted, as they were sent. */
export function toolResponse(tool: Tool, headers: { name: string; value: string }[]) {
  return {
    id: tool.id,
    name: tool.name,
    description: tool.description,
    endpoint: tool.endpoint,
    method: tool.method,
    timeout: tool.timeout,
    headers,
    schema: tool.schema.map(({ name, type, description, required }) => ({ name, type, description, required })),
    created_at: isoTimestamp(tool.createdAt),
    updated_at: isoTimestamp(tool.updatedAt),
  };
}
