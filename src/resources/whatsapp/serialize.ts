import type { WhatsAppSender, WhatsAppTemplate } from './model.ts';
import { templateVariables } from './session.ts';

/** `1K/day`, `100K/day`, `Unlimited`: a limit as Meta's WhatsApp Manager shows it. */
export function formatLimit(limit: number | null): string {
  if (limit === null) return 'Unlimited';
  if (limit >= 1000 && limit % 1000 === 0) return `${limit / 1000}K/day`;
  return `${limit}/day`;
}

/** A sender as `GET /user/whatsapp/senders` lists it (anchor §12.7). */
export function senderItem(sender: WhatsAppSender) {
  return {
    id: sender.id,
    phone_number: sender.phoneNumber,
    display_name: sender.displayName,
    status: sender.status,
    quality_rating: sender.qualityRating,
    messaging_limit: sender.messagingLimit,
    messaging_limit_formatted: formatLimit(sender.messagingLimit),
  };
}

/** A sender with its settings (Parley's extension); the signing secret only when it was just made. */
export function senderSettings(sender: WhatsAppSender, signingSecret?: string) {
  return {
    ...senderItem(sender),
    assistant_id: sender.assistantId,
    phone_number_id: sender.phoneNumberId,
    webhook_url: sender.webhookUrl,
    ...(signingSecret ? { signing_secret: signingSecret } : {}),
  };
}

export function templateItem(template: WhatsAppTemplate) {
  const variables = templateVariables(template.bodyText);
  return {
    id: template.id,
    name: template.name,
    language: template.language,
    category: template.category,
    status: template.status,
    body_text: template.bodyText,
    variables,
    has_variables: variables.length > 0,
  };
}
