import { toLocalTime } from './local-time.ts';
import type { PackageEvent, SandboxStatus } from './packages.ts';

/** UPS Track Alert's webhook body for a scripted event (ups-track-alert.openapi.yaml `TrackingEventRequest`). */

/** `activityStatus` per scripted status: only the spec's types (D, I, M, MV, U, X). */
const EVENT_STATUS: Record<SandboxStatus, { type: string; code: string; description: string }> = {
  pre_transit: { type: 'M', code: 'MP', description: 'Shipper created a label' },
  in_transit: { type: 'I', code: 'DP', description: 'Departed from Facility' },
  out_for_delivery: { type: 'I', code: 'OT', description: 'Out for Delivery' },
  delivered: { type: 'D', code: 'FS', description: 'Delivered' },
  available_for_pickup: { type: 'D', code: '2Q', description: 'Delivered to UPS Access Point' },
  return_to_sender: { type: 'X', code: 'RS', description: 'Returned to Sender' },
  failure: { type: 'X', code: 'UX', description: 'The address is incomplete' },
};

/** The `TrackingEvent` body UPS would post for a scripted event. */
export function upsTrackingEvent(
  trackingNumber: string,
  event: PackageEvent,
  estimatedDeliveryAt: Date | null,
  offsetMinutes: number,
) {
  const local = toLocalTime(event.at, offsetMinutes);
  const gmt = toLocalTime(event.at, 0);
  const status = EVENT_STATUS[event.status];
  const delivered = event.status === 'delivered';
  const estimate = !delivered && estimatedDeliveryAt ? toLocalTime(estimatedDeliveryAt, offsetMinutes) : null;
  return {
    trackingNumber,
    localActivityDate: local.compactDate,
    localActivityTime: local.compactTime,
    activityLocation: {
      city: 'Wayne',
      stateProvince: 'NJ',
      ...(delivered ? { postalCode: '07470' } : {}),
      country: 'US',
    },
    activityStatus: { ...status, description: event.description ?? status.description },
    ...(estimate ? { scheduledDeliveryDate: estimate.compactDate, deliveryEndTime: estimate.compactTime } : {}),
    ...(delivered ? { actualDeliveryDate: local.compactDate, actualDeliveryTime: local.compactTime } : {}),
    gmtActivityDate: gmt.compactDate,
    gmtActivityTime: gmt.compactTime,
    // '(-/+)HH.MM' in this spec.
    gmtOffset: local.offset.replace(':', '.'),
  };
}
