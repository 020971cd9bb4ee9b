/**
 * What a WhatsApp message a user's sender sends costs, in micro-dollars. Meta charges businesses per template
 * message (a conversation it opens) and not for replies inside the customer's 24-hour window; the carrier
 * (Twilio) adds a fee per message either way. Parley charges a template as Meta's dearer categories roughly
 * cost, and a free-form message as the carrier's fee. A customer's message answered by the sender's assistant
 * is charged as a chat message (conversations/service.ts, 0.01 USD). docs/decisions.md has the reasons.
 */
export const WHATSAPP_TEMPLATE_MICROS = 50_000;
export const WHATSAPP_FREEFORM_MICROS = 5_000;
