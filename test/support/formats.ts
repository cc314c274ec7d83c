/** The API's timestamp format (docs/spec/order-update-interface.md): `YYYY-MM-DDTHH:MM:SSZ`. */
export const API_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
