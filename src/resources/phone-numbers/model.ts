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
  declare createdAt: Date;
  declare updatedAt: Date;
}

export const typeLabels: Record<PhoneNumberType, string> = { normal: 'Normal', sip: 'SIP', caller_id: 'Caller ID' };
