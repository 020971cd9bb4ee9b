import { Model } from 'objection';

export type PhoneNumberType = 'normal' | 'sip' | 'caller_id';

export class PhoneNumber extends Model {
  static override tableName = 'phone_numbers';

  declare id: number;
  declare userId: number;
  /** E.164. */
  declare phoneNumber: string;
  declare countryCode: string;
  declare type: PhoneNumberType;
  declare smsCapable: boolean;
  declare nickname: string | null;
  /** pending (being bought), active, past_due (a renewal failed), released, failed (the purchase did not go through). */
  declare status: 'pending' | 'active' | 'past_due' | 'released' | 'failed';
  declare statusReason: string | null;
  declare provider: string | null;
  declare providerNumberId: string | null;
  declare monthlyPriceMicros: number | null;
  /** Paid periods; the subscription's calendar counts from `periodAnchor` (src/billing/renewals.ts). */
  declare period: number;
  declare periodAnchor: Date | null;
  declare currentPeriodEnd: Date | null;
  declare releaseRequestedAt: Date | null;
  declare releasedAt: Date | null;
  declare createdAt: Date;
  declare updatedAt: Date;
}

export const typeLabels: Record<PhoneNumberType, string> = { normal: 'Normal', sip: 'SIP', caller_id: 'Caller ID' };
