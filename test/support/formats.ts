/** The API's timestamp format (docs/spec/order-update-interface.md): `YYYY-MM-DDTHH:MM:SSZ`. */
export const API_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** An order's fields, in the spec's order (docs/spec/order-update-interface.md, the response example). */
export const SPEC_ORDER_FIELDS = [
  'id',
  'uuid',
  'name',
  'email',
  'recipient_name',
  'recipient_email',
  'recipient_phone',
  'record_url',
  'playback_url',
  'send_method',
  'send_trigger',
  'send_on',
  'carrier',
  'tracking_number',
  'delivered',
  'video_title',
  'video_duration',
  'video_processed',
  'price',
  'status',
  'created_at',
  'updated_at',
  'recorded_at',
  'delivered_at',
  'sent_at',
  'viewed_at',
];
