import type { Knex } from 'knex';
import { isUniqueViolation } from '../../db/errors.ts';
import { NotFoundError, ValidationError } from '../../lib/errors.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import { SENDER_SECRET_PURPOSE } from '../../webhooks/secrets.ts';
import { generateSigningSecret } from '../../webhooks/signature.ts';
import { WhatsAppSender, WhatsAppTemplate } from './model.ts';

/** A sender of the user's, or 404 SENDER_NOT_FOUND (another user's sender is not found either). */
export async function findSender(knex: Knex, userId: number, senderId: number): Promise<WhatsAppSender> {
  const sender = await WhatsAppSender.query(knex).findOne({ id: senderId, userId });
  if (!sender) throw new NotFoundError('Sender not found', { errorCode: 'SENDER_NOT_FOUND' });
  return sender;
}

export async function listSenders(knex: Knex, userId: number, status: 'online' | 'all'): Promise<WhatsAppSender[]> {
  return WhatsAppSender.query(knex).where({ userId }).modify((query) => {
    if (status === 'online') query.where({ status: 'online' });
  }).orderBy('id');
}

export async function listTemplates(knex: Knex, userId: number, senderId: number, status: 'approved' | 'all'): Promise<WhatsAppTemplate[]> {
  await findSender(knex, userId, senderId);
  return WhatsAppTemplate.query(knex).where({ senderId }).modify((query) => {
    if (status === 'approved') query.where({ status: 'approved' });
  }).orderBy('id');
}

export interface SenderInput {
  phoneNumberId?: number;
  assistantId?: number;
  displayName?: string;
  status?: string;
  qualityRating?: string;
  messagingLimit?: number | null;
  webhookUrl?: string | null;
}

/** The assistant must be the user's; Laravel's `exists` text otherwise. */
async function checkAssistant(knex: Knex, userId: number, assistantId: number): Promise<void> {
  const assistant = await knex('assistants').where({ id: assistantId, userId }).first<{ id: number } | undefined>('id');
  if (!assistant) throw ValidationError.of('assistant_id', 'The selected assistant id is invalid.');
}

/**
 * Makes one of the user's numbers (active, not already a sender) a WhatsApp sender answered by one of the
 * user's assistants, with a new signing secret, which is answered this once.
 */
export async function createSender(knex: Knex, box: SecretBox, userId: number, input: Required<Pick<SenderInput, 'phoneNumberId' | 'assistantId' | 'displayName'>> & SenderInput) {
  const number = await knex('phone_numbers').where({ id: input.phoneNumberId, userId, status: 'active' }).first<{ phoneNumber: string } | undefined>('phoneNumber');
  if (!number) throw ValidationError.of('phone_number_id', 'The selected phone number id is invalid.');
  await checkAssistant(knex, userId, input.assistantId);
  const secret = generateSigningSecret();
  try {
    const sender = await WhatsAppSender.query(knex).insertAndFetch({
      userId,
      phoneNumberId: input.phoneNumberId,
      assistantId: input.assistantId,
      phoneNumber: number.phoneNumber,
      displayName: input.displayName,
      status: (input.status ?? 'online') as WhatsAppSender['status'],
      qualityRating: (input.qualityRating ?? 'high') as WhatsAppSender['qualityRating'],
      messagingLimit: input.messagingLimit ?? null,
      signingSecret: box.encrypt(secret, SENDER_SECRET_PURPOSE),
      webhookUrl: input.webhookUrl ?? null,
    });
    return { sender, secret };
  } catch (error) {
    if (isUniqueViolation(error)) throw ValidationError.of('phone_number_id', 'The phone number id has already been taken.');
    throw error;
  }
}

export async function updateSender(knex: Knex, userId: number, senderId: number, input: SenderInput): Promise<WhatsAppSender> {
  await findSender(knex, userId, senderId);
  if (input.assistantId !== undefined) await checkAssistant(knex, userId, input.assistantId);
  const changes = Object.fromEntries(Object.entries({
    assistantId: input.assistantId, displayName: input.displayName, status: input.status, qualityRating: input.qualityRating,
    messagingLimit: input.messagingLimit, webhookUrl: input.webhookUrl,
  }).filter(([, value]) => value !== undefined));
  return WhatsAppSender.query(knex).patchAndFetchById(senderId, { ...changes, updatedAt: new Date() });
}

/** Deletes a sender with its templates and its conversations (their messages stay in the log, unlinked). */
export async function deleteSender(knex: Knex, userId: number, senderId: number): Promise<void> {
  await findSender(knex, userId, senderId);
  await WhatsAppSender.query(knex).deleteById(senderId);
}

export interface TemplateInput {
  name: string;
  language: string;
  category: string;
  status?: string;
  bodyText: string;
  contentSid?: string | null;
}

export async function createTemplate(knex: Knex, userId: number, senderId: number, input: TemplateInput): Promise<WhatsAppTemplate> {
  await findSender(knex, userId, senderId);
  try {
    return await WhatsAppTemplate.query(knex).insertAndFetch({
      senderId,
      name: input.name,
      language: input.language,
      category: input.category as WhatsAppTemplate['category'],
      status: (input.status ?? 'approved') as WhatsAppTemplate['status'],
      bodyText: input.bodyText,
      contentSid: input.contentSid ?? null,
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw ValidationError.of('name', 'The name has already been taken for this language.');
    throw error;
  }
}

export async function deleteTemplate(knex: Knex, userId: number, senderId: number, templateId: number): Promise<void> {
  await findSender(knex, userId, senderId);
  const deleted = await WhatsAppTemplate.query(knex).where({ id: templateId, senderId }).delete();
  if (deleted === 0) throw new NotFoundError('Template not found', { errorCode: 'TEMPLATE_NOT_FOUND' });
}
