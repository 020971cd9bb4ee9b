import { isoTimestamp } from '../../lib/time.ts';
import type { PhoneNumber } from '../phone-numbers/model.ts';

/** A SIP trunk as its owner reads it: everything but the password. */
export function sipTrunkResponse(trunk: PhoneNumber) {
  return {
    id: trunk.id,
    phone_number: trunk.phoneNumber,
    nickname: trunk.nickname,
    sip_trunk_type: trunk.sipTrunkType,
    sip_username: trunk.sipUsername,
    sip_address: trunk.sipAddress,
    sip_calling_format: trunk.sipCallingFormat,
    inbound_authorization_type: trunk.inboundAuthorizationType,
    allowed_inbound_ips: trunk.allowedInboundIps ?? [],
    outbound_proxy: trunk.outboundProxy ?? false,
    country_code: trunk.countryCode,
    inbound_trunk_id: trunk.inboundTrunkId,
    outbound_trunk_id: trunk.outboundTrunkId,
    created_at: isoTimestamp(trunk.createdAt),
    updated_at: isoTimestamp(trunk.updatedAt),
  };
}
