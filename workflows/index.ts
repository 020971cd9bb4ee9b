export { platformSelfCheckWorkflow } from './platform-self-check.ts';
export { documentIngestionWorkflow } from './document-ingestion.ts';
export { callLifecycleWorkflow } from './call-lifecycle.ts';
export { phoneNumberSubscriptionWorkflow } from './phone-number-subscription.ts';
export { campaignWorkflow } from './campaign.ts';
export { webhookDeliveryWorkflow } from './webhook-delivery.ts';
export { conversationInactivityWorkflow } from './conversation-inactivity.ts';
