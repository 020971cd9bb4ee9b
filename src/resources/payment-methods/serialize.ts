import type { StoredPaymentMethod } from './service.ts';

export function paymentMethodItem(method: StoredPaymentMethod) {
  return {
    id: method.paymentMethodId,
    brand: method.brand,
    last4: method.last4,
    exp_month: method.expMonth,
    exp_year: method.expYear,
    is_default: method.isDefault,
  };
}
