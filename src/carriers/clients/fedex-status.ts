import type { TrackingStatus } from '../../vocabulary.ts';

/**
 * FedEx `latestStatusDetail.code` → TrackingStatus. fedex-track.openapi.json only gives examples
 * ("PU,DE,DP,HL,OC"); docs/carriers/NOTES.md lists the main ones; the rest are FedEx's documented track status codes.
 */
export const FEDEX_STATUS_CODES: ReadonlyMap<string, TrackingStatus> = new Map<string, TrackingStatus>([
  ['OC', 'pre_transit'], // order / label created
  ['PU', 'in_transit'], // picked up
  ['PX', 'in_transit'],
  ['IT', 'in_transit'],
  ['IX', 'in_transit'],
  ['AR', 'in_transit'], // arrived at
  ['DP', 'in_transit'], // departed
  ['AF', 'in_transit'], // at FedEx facility
  ['AA', 'in_transit'],
  ['AC', 'in_transit'],
  ['AD', 'in_transit'],
  ['AP', 'in_transit'],
  ['AX', 'in_transit'],
  ['CC', 'in_transit'], // customs cleared
  ['CD', 'in_transit'], // clearance delay
  ['CP', 'in_transit'], // clearance in progress
  ['CH', 'in_transit'], // location changed
  ['DD', 'in_transit'], // delivery delay
  ['DY', 'in_transit'], // delay
  ['DS', 'in_transit'],
  ['EA', 'in_transit'],
  ['ED', 'in_transit'],
  ['EO', 'in_transit'],
  ['EP', 'in_transit'],
  ['FD', 'in_transit'], // at FedEx destination
  ['LO', 'in_transit'], // left origin
  ['OF', 'in_transit'], // at FedEx origin facility
  ['OX', 'in_transit'], // handed to USPS for final delivery (SmartPost / Ground Economy)
  ['PD', 'in_transit'], // pickup delay
  ['PF', 'in_transit'],
  ['PL', 'in_transit'],
  ['PM', 'in_transit'], // in progress
  ['RR', 'in_transit'], // delivery option requested / modified / cancelled
  ['RM', 'in_transit'],
  ['RC', 'in_transit'],
  ['SF', 'in_transit'], // at sort facility
  ['SP', 'in_transit'], // split status
  ['TR', 'in_transit'], // transfer
  ['OD', 'out_for_delivery'],
  ['DL', 'delivered'],
  ['HL', 'available_for_pickup'], // hold at location
  ['HP', 'available_for_pickup'], // ready for recipient pickup
  ['RS', 'return_to_sender'], // return to shipper
  ['DE', 'failure'], // delivery exception
  ['SE', 'failure'], // shipment exception
  ['CA', 'failure'], // cancelled
]);

/** The code first, then `derivedCode` (FedEx's coarser status), else unknown. */
export function normalizeFedexStatus(code: string | null | undefined, derivedCode?: string | null): TrackingStatus {
  const lookup = (value: string | null | undefined): TrackingStatus | undefined =>
    FEDEX_STATUS_CODES.get(value?.trim().toUpperCase() ?? '');
  return lookup(code) ?? lookup(derivedCode) ?? 'unknown';
}
