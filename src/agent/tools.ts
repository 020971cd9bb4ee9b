import type { SafeFetch } from '../lib/safe-fetch.ts';
import type { Passage } from './ports.ts';
import { textOf } from './template.ts';
import type { AgentTool } from './turn.ts';

/** A mid-call HTTP tool as the agent needs it: header values already decrypted. */
export interface HttpToolSpec {
  name: string;
  description: string;
  endpoint: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  timeoutSeconds: number;
  headers: { name: string; value: string }[];
  parameters: { name: string; type: 'string' | 'number' | 'boolean'; description: string; required?: boolean }[];
}

/** The tool's parameter list as the JSON Schema a function definition carries. */
export function parametersSchema(parameters: HttpToolSpec['parameters']): Record<string, unknown> {
  return {
    type: 'object',
    properties: Object.fromEntries(parameters.map((parameter) => [parameter.name, { type: parameter.type, description: parameter.description }])),
    required: parameters.filter((parameter) => parameter.required !== false).map((parameter) => parameter.name),
    additionalProperties: false,
  };
}

// What a tool may hand back to the model: enough for an answer, bounded so one tool cannot flood the context.
const MAX_RESULT_BYTES = 256 * 1024;
const MAX_RESULT_TEXT = 8000;

/**
 * Places the arguments in the request: `{name}` placeholders in the endpoint take theirs (URL-encoded), the
 * rest go in the query string for GET and DELETE and in a JSON body otherwise.
 */
export function buildToolRequest(spec: Pick<HttpToolSpec, 'endpoint' | 'method'>, args: Record<string, unknown>): { url: string; body: string | undefined } {
  const rest = { ...args };
  const endpoint = spec.endpoint.replace(/\{(\w+)\}/g, (placeholder, name: string) => {
    if (!(name in rest)) return placeholder;
    const value = rest[name];
    delete rest[name];
    return encodeURIComponent(textOf(value));
  });
  if (spec.method === 'GET' || spec.method === 'DELETE') {
    const url = new URL(endpoint);
    for (const [name, value] of Object.entries(rest)) {
      if (value !== undefined && value !== null) url.searchParams.append(name, textOf(value));
    }
    return { url: url.toString(), body: undefined };
  }
  return { url: endpoint, body: JSON.stringify(rest) };
}

function readResult(contentType: string, body: Buffer): unknown {
  const text = body.toString('utf8');
  if (contentType.includes('json')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // a server that says JSON and sends something else: hand the model the text
    }
  }
  return text.length > MAX_RESULT_TEXT ? `${text.slice(0, MAX_RESULT_TEXT)}…` : text;
}

/** Calls the user's HTTP endpoint through the guarded client, within the tool's own timeout. */
export function httpTool(spec: HttpToolSpec, fetch: SafeFetch): AgentTool {
  return {
    definition: { name: spec.name, description: spec.description, parameters: parametersSchema(spec.parameters) },
    async execute(args, signal) {
      const { url, body } = buildToolRequest(spec, args);
      const headers: Record<string, string> = { accept: 'application/json' };
      for (const header of spec.headers) headers[header.name] = header.value;
      if (body !== undefined) headers['content-type'] ??= 'application/json';
      const response = await fetch(url, {
        method: spec.method,
        headers,
        ...(body === undefined ? {} : { body }),
        timeoutMs: spec.timeoutSeconds * 1000,
        maxBytes: MAX_RESULT_BYTES,
        signal,
      });
      const result = readResult(response.contentType, response.body);
      if (!response.ok) return { error: `the endpoint answered HTTP ${response.status}`, status: response.status, body: result };
      return result;
    },
  };
}

/** Lets the model look things up in the assistant's knowledge base. */
export function knowledgeTool(search: (query: string, signal: AbortSignal) => Promise<Passage[]>): AgentTool {
  return {
    definition: {
      name: 'search_knowledge_base',
      description: 'Search the knowledge base for facts needed to answer the user. Use it before answering questions about the business, its products or policies.',
      parameters: {
        type: 'object',
        properties: { query: { type: 'string', description: 'What to look up, in a few words.' } },
        required: ['query'],
        additionalProperties: false,
      },
    },
    async execute(args, signal) {
      const query = typeof args.query === 'string' ? args.query.trim() : '';
      if (!query) throw new Error('the query must be a non-empty string');
      const passages = await search(query, signal);
      return { passages: passages.map((passage) => ({ source: passage.documentName, text: passage.text })) };
    },
  };
}

/** Ends the conversation (or the call, in the voice pipeline) once the model decides it is over. */
export function endCallTool(description?: string): AgentTool {
  return {
    definition: {
      name: 'end_call',
      description: description?.trim() || 'End the conversation when the user says goodbye or the task is complete.',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
    },
    ends: true,
    execute: () => Promise.resolve({ ended: true }),
  };
}

/** Retrieved passages for the system prompt, when the knowledge base is used in `prompt` mode. */
export function passagesForPrompt(passages: Passage[]): string {
  if (passages.length === 0) return '';
  const blocks = passages.map((passage, index) => `[${index + 1}] (${passage.documentName})\n${passage.text}`);
  return `\n\nRelevant information from the knowledge base:\n${blocks.join('\n\n')}`;
}
