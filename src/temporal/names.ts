import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Search attributes the workflows set, so operators can filter by them in the Temporal UI. */
export const searchAttributes = {
  userId: defineSearchAttributeKey('UserId', SearchAttributeType.INT),
  campaignId: defineSearchAttributeKey('CampaignId', SearchAttributeType.INT),
  assistantId: defineSearchAttributeKey('AssistantId', SearchAttributeType.INT),
} as const;

/** Names and types as the Temporal CLI's `--search-attribute` flag takes them. */
export const searchAttributeFlags = Object.values(searchAttributes).map((key) => `${key.name}=Int`);

/** Readable workflow ids, stable per business record so a duplicate start finds the running one. */
export const workflowIds = {
  selfCheck: (checkId: string) => `self-check-${checkId}`,
  document: (documentId: number) => `document-${documentId}`,
  call: (callId: number) => `call-${callId}`,
  phoneNumber: (phoneNumberId: number) => `phone-number-${phoneNumberId}`,
  campaign: (campaignId: number) => `campaign-${campaignId}`,
  webhookDelivery: (deliveryId: number) => `webhook-${deliveryId}`,
  conversation: (conversationUuid: string) => `conversation-${conversationUuid}`,
};
