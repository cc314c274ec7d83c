export type CarrierCode = 'ups' | 'fedex' | 'usps';
export const CARRIER_CODES = ['ups', 'fedex', 'usps'] as const satisfies readonly CarrierCode[];
