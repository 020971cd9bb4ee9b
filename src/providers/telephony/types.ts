/**
 * What Parley asks of a carrier about numbers: which it offers, to provision one (calls and messages to it
 * then reach Parley's public URL), and to release one. The sandbox carrier and Twilio both answer through
 * it; the next issue adds calls and messages.
 */

/** How a carrier wants the buyer's address proven before it provisions a number (Twilio's terms). */
export type AddressRequirement = 'none' | 'local' | 'foreign' | 'inventory';

export interface AvailableNumber {
  /** E.164. */
  phoneNumber: string;
  /** As dialled in its country. */
  phoneNumberFormatted: string;
  /** ISO 3166-1 alpha-2. */
  countryCode: string;
  monthlyPriceMicros: number;
  addressRequirements: AddressRequirement;
  smsCapable: boolean;
}

export interface NumberSearch {
  countryCode: string;
  /** Digits the number must contain (at most 10). */
  contains?: string;
  limit: number;
}

export interface TelephonyProvider {
  readonly name: 'sandbox' | 'twilio';
  searchNumbers(search: NumberSearch): Promise<AvailableNumber[]>;
  /**
   * Provisions `phoneNumber` for this deployment. `idempotencyKey` names the purchase: asked again with the
   * same key (a retried activity), the carrier answers the number it provisioned the first time. A number
   * the carrier will not give (taken meanwhile, declined) is a `RejectedError`: asking again will not help.
   */
  provisionNumber(request: { phoneNumber: string; idempotencyKey: string }): Promise<{ providerNumberId: string }>;
  /** Gives a provisioned number back; releasing one already released is not an error. */
  releaseNumber(providerNumberId: string): Promise<void>;
}
