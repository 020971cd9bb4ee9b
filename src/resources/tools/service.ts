import { isUniqueViolation } from '../../db/errors.ts';
import type { Knex } from 'knex';
import { NotFoundError, ValidationError } from '../../lib/errors.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import { ensureWithinPlanLimit } from '../../billing/plans.ts';
import { User } from '../users/model.ts';
import { Tool, type StoredHeader, type ToolParameter } from './model.ts';
import type { CreateToolBody, UpdateToolBody } from './schemas.ts';

export interface ToolDeps {
  knex: Knex;
  secrets: SecretBox;
}

/** Associated data of header ciphertexts: they decrypt only as tool headers. */
const HEADER_PURPOSE = 'tool.header';

export interface ToolView {
  tool: Tool;
  /** Header values in clear, for the owner and for the call itself; never logged. */
  headers: { name: string; value: string }[];
}

function sealHeaders(secrets: SecretBox, headers: { name: string; value: string }[]): StoredHeader[] {
  return headers.map(({ name, value }) => ({ name, value: secrets.encrypt(value, HEADER_PURPOSE) }));
}

export function openHeaders(secrets: SecretBox, tool: Pick<Tool, 'headers'>): { name: string; value: string }[] {
  return tool.headers.map(({ name, value }) => ({ name, value: secrets.decrypt(value, HEADER_PURPOSE) }));
}

function view(deps: ToolDeps, tool: Tool): ToolView {
  return { tool, headers: openHeaders(deps.secrets, tool) };
}

function parameters(schema: { name: string; type: ToolParameter['type']; description: string; required?: boolean | undefined }[]): ToolParameter[] {
  const seen = new Set<string>();
  const errors: Record<string, string[]> = {};
  schema.forEach((parameter, index) => {
    // Parameter names become the keys of the call's arguments, so two of one name would collide.
    if (seen.has(parameter.name)) errors[`schema.${index}.name`] = [`The schema.${index}.name field has a duplicate value.`];
    seen.add(parameter.name);
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return schema.map(({ name, type, description, required }) => ({ name, type, description, required: required ?? true }));
}

/** The endpoint with its placeholders filled must be a URL a request can go to. */
function checkEndpoint(endpoint: string | undefined): void {
  if (endpoint === undefined) return;
  try {
    new URL(endpoint.replace(/\{\{?\w+\}?\}/g, 'x'));
  } catch {
    throw ValidationError.of('endpoint', 'The endpoint field must be a valid URL.');
  }
}

async function ensureNameFree(knex: Knex, userId: number, name: string, exceptId?: number): Promise<void> {
  const query = Tool.query(knex).where({ userId, name });
  if (exceptId !== undefined) query.whereNot({ id: exceptId });
  if (await query.first()) throw ValidationError.of('name', 'The name has already been taken.');
}

export async function createTool(deps: ToolDeps, userId: number, input: CreateToolBody): Promise<ToolView> {
  checkEndpoint(input.endpoint);
  const schema = parameters(input.schema ?? []);
  try {
    return await deps.knex.transaction(async (trx) => {
      // Locking the user serialises this user's creates, so two at once cannot both pass the plan limit.
      const user = await User.query(trx).findById(userId).forUpdate().throwIfNotFound();
      const count = await Tool.query(trx).where({ userId }).resultSize();
      await ensureWithinPlanLimit(trx, user.planId, 'midCallTools', count);
      await ensureNameFree(trx, userId, input.name);
      const tool = await Tool.query(trx).insertAndFetch({
        userId,
        name: input.name,
        description: input.description,
        endpoint: input.endpoint,
        method: input.method,
        timeout: input.timeout ?? 10,
        headers: sealHeaders(deps.secrets, input.headers ?? []),
        schema,
      });
      return view(deps, tool);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw ValidationError.of('name', 'The name has already been taken.');
    throw error;
  }
}

export async function listTools(deps: ToolDeps, userId: number): Promise<ToolView[]> {
  const tools = await Tool.query(deps.knex).where({ userId }).orderBy('id');
  return tools.map((tool) => view(deps, tool));
}

async function findTool(knex: Knex, userId: number, id: number): Promise<Tool> {
  const tool = await Tool.query(knex).findOne({ id, userId });
  if (!tool) throw new NotFoundError('Tool not found');
  return tool;
}

export async function getTool(deps: ToolDeps, userId: number, id: number): Promise<ToolView> {
  return view(deps, await findTool(deps.knex, userId, id));
}

export async function updateTool(deps: ToolDeps, userId: number, id: number, input: UpdateToolBody): Promise<ToolView> {
  checkEndpoint(input.endpoint);
  const schema = input.schema === undefined ? undefined : parameters(input.schema);
  try {
    return await deps.knex.transaction(async (trx) => {
      const existing = await findTool(trx, userId, id);
      if (input.name !== undefined) await ensureNameFree(trx, userId, input.name, id);
      const tool = await existing.$query(trx).patchAndFetch({
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.endpoint !== undefined ? { endpoint: input.endpoint } : {}),
        ...(input.method !== undefined ? { method: input.method } : {}),
        ...(input.timeout !== undefined ? { timeout: input.timeout } : {}),
        ...(input.headers !== undefined ? { headers: sealHeaders(deps.secrets, input.headers) } : {}),
        ...(schema !== undefined ? { schema } : {}),
        updatedAt: new Date(),
      });
      return view(deps, tool);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw ValidationError.of('name', 'The name has already been taken.');
    throw error;
  }
}

/** Deletes the tool; the join table's cascade detaches it from every assistant. */
export async function deleteTool(deps: ToolDeps, userId: number, id: number): Promise<void> {
  const deleted = await Tool.query(deps.knex).delete().where({ id, userId });
  if (deleted === 0) throw new NotFoundError('Tool not found');
}
