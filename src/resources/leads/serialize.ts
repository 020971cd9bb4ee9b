import { sqlTimestamp } from '../../lib/time.ts';
import type { Lead } from './model.ts';

export interface LeadView {
  lead: Lead;
  campaign: { id: number; name: string };
  secondaryContacts: Lead[];
}

/** A lead as created and listed (anchor §8.1): its campaign and its secondary contacts, in calling order. */
export function leadItem({ lead, campaign, secondaryContacts }: LeadView) {
  return {
    id: lead.id,
    campaign_id: lead.campaignId,
    phone_number: lead.phoneNumber,
    variables: lead.variables,
    status: lead.status,
    created_at: sqlTimestamp(lead.createdAt),
    updated_at: sqlTimestamp(lead.updatedAt),
    campaign: { id: campaign.id, name: campaign.name },
    secondary_contacts: secondaryContacts.map((contact) => ({
      id: contact.id,
      phone_number: contact.phoneNumber,
      variables: contact.variables,
      status: contact.status,
      created_at: sqlTimestamp(contact.createdAt),
      updated_at: sqlTimestamp(contact.updatedAt),
    })),
  };
}
