import { Model, type QueryBuilder } from 'objection';

export type PhoneNumberType = 'normal' | 'sip' | 'caller_id';
export type SipCallingFormat = '+e164' | 'e164' | 'national';
export type InboundAuthorizationType = 'auth' | 'ip';
export type SipTrunkType = 'extension' | 'number';

/** The statuses of a number its user holds: not being bought, not released, not a failed purchase. */
export const HELD_STATUSES = ['active', 'past_due'];

export class PhoneNumber extends Model {
  static override tableName = 'phone_numbers';
  static override jsonAttributes = ['allowedInboundIps'];

  static override modifiers = {
    held(query: QueryBuilder<PhoneNumber>) {
      query.whereIn('phone_numbers.status', HELD_STATUSES);
    },
  };

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
  declare sipTrunkType: SipTrunkType | null;
  declare sipUsername: string | null;
  /** Ciphertext of the app key's secret box; see `SIP_PASSWORD_PURPOSE` in sip-trunks/service.ts. */
  declare sipPassword: string | null;
  /** A host name or address, without a port. */
  declare sipAddress: string | null;
  declare sipCallingFormat: SipCallingFormat | null;
  declare inboundAuthorizationType: InboundAuthorizationType | null;
  declare allowedInboundIps: string[] | null;
  declare outboundProxy: boolean | null;
  /** The trunks' ids in the SIP gateway, once it has them. */
  declare inboundTrunkId: string | null;
  declare outboundTrunkId: string | null;
  declare createdAt: Date;
  declare updatedAt: Date;
}

export const typeLabels: Record<PhoneNumberType, string> = { normal: 'Normal', sip: 'SIP', caller_id: 'Caller ID' };
