import { z } from 'zod';
import { accountSettingsJsonSchema, accountSettingsSchema } from '../accounts/settings.ts';
import { statementJson } from '../billing/statements.ts';
import { errorBodyJson } from '../http/error-handler.ts';
import {
  idempotencyKeySchema,
  orderCreateSchema,
  orderListQuerySchema,
  orderUpdateSchema,
} from '../orders/request-schemas.ts';
import {
  orderJson,
  orderPageJson,
  orderWithWarningJson,
  timelineJson,
  timestampJson,
  warningJson,
} from '../orders/response-schemas.ts';
import { dataExportJson, dataExportListJson } from '../shopify/compliance/data-exports.ts';
import { VIDEO_CONTENT_TYPES } from '../videos/service.ts';

/**
 * The OpenAPI 3.1 document of /v1, generated from the zod schemas the routes validate requests with
 * and type their answers with (zod 4's own `z.toJSONSchema`), so it cannot drift from the code. What
 * zod cannot say (paths, statuses, headers, auth) is written here, once; test/openapi/ holds the
 * server to it in both directions (every route documented, every documented route answers, real
 * answers validate).
 */

type JsonSchema = Record<string, unknown>;
type Operation = Record<string, unknown>;

const COMPONENT = (name: string) => `#/components/schemas/${name}`;

/** Requests are described as clients send them (before our trimming and coercion). */
const REQUEST_SCHEMAS = {
  OrderCreate: orderCreateSchema,
  OrderUpdate: orderUpdateSchema,
  AccountSettingsUpdate: accountSettingsSchema,
};
/** Answers are described as the serializers produce them. */
const RESPONSE_SCHEMAS = {
  Timestamp: timestampJson,
  Warning: warningJson,
  Order: orderJson,
  OrderWithWarning: orderWithWarningJson,
  OrderPage: orderPageJson,
  Timeline: timelineJson,
  Statement: statementJson,
  AccountSettings: accountSettingsJsonSchema,
  DataExportList: dataExportListJson,
  DataExport: dataExportJson,
  Error: errorBodyJson,
};

function componentSchemas(schemas: Record<string, z.ZodType>, io: 'input' | 'output'): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(schemas)) registry.add(schema, { id });
  const { schemas: generated } = z.toJSONSchema(registry, { io, uri: COMPONENT, target: 'draft-2020-12' });
  // Each comes back as a standalone document; inside the OpenAPI document they are plain schemas.
  return Object.fromEntries(
    Object.entries(generated).map(([id, schema]) => {
      const { $schema: _dialect, $id: _id, ...rest } = schema as JsonSchema;
      return [id, rest];
    }),
  );
}

/** A standalone JSON Schema for a parameter (no dialect marker: the document declares one). */
function parameterSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12' }) as JsonSchema;
  return rest;
}

/** `GET /v1/orders`'s query parameters, one per field of the schema the route parses the query with. */
function listQueryParameters(): JsonSchema[] {
  const query = parameterSchema(orderListQuerySchema) as { properties: Record<string, JsonSchema> };
  const descriptions: Record<string, string> = {
    limit: 'Orders per page, 1 to 100.',
    cursor: "The previous page's `next_cursor`.",
    status: 'Only orders in this status.',
    delivered: '"1": only delivered orders; "0": only orders not delivered.',
  };
  return Object.entries(query.properties).map(([name, schema]) => ({
    name,
    in: 'query',
    required: false,
    description: descriptions[name],
    schema,
  }));
}

const ref = (name: string) => ({ $ref: COMPONENT(name) });
const json = (schemaName: string) => ({ 'application/json': { schema: ref(schemaName) } });
const errorResponse = (name: string) => ({ $ref: `#/components/responses/${name}` });

/** The error statuses every authenticated operation can answer. */
const AUTHENTICATED_ERRORS = {
  '401': errorResponse('Unauthorized'),
  '429': errorResponse('RateLimited'),
  '503': errorResponse('ServiceUnavailable'),
};
/** …and those of every operation that reads a JSON body. */
const JSON_BODY_ERRORS = {
  '400': errorResponse('BadRequest'),
  '413': errorResponse('PayloadTooLarge'),
  '415': errorResponse('UnsupportedMediaType'),
  '422': errorResponse('ValidationFailed'),
};

const orderIdParameter = {
  name: 'orderId',
  in: 'path',
  required: true,
  description: 'The order\'s `id` (`ord_…`). Another account\'s order is "not found".',
  schema: { type: 'string', examples: ['ord_5f0c6d1e2a3b4c5d6e7f8091'] },
};

function operation(
  operationId: string,
  tag: string,
  summary: string,
  fields: {
    description?: string;
    parameters?: unknown[];
    requestBody?: unknown;
    responses: Record<string, unknown>;
    security?: unknown[];
  },
): Operation {
  return { operationId, tags: [tag], summary, ...fields };
}

function paths(): Record<string, Record<string, Operation>> {
  return {
    '/v1/openapi.json': {
      get: operation('getOpenApiDocument', 'Reference', 'This document', {
        description: 'Public: it holds no data, and tools fetch it without credentials.',
        // The one path without Basic auth: the document-wide `security` is lifted here.
        security: [],
        responses: {
          '200': {
            description: 'The OpenAPI 3.1 document of /v1.',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
        },
      }),
    },
    '/v1/orders': {
      post: operation('createOrder', 'Orders', 'Create an order', {
        description:
          'Needs `name`, `email`, `recipient_name` and a recipient e-mail or phone. A tracking number that does not validate is stored and tracked anyway, and the answer starts with `warning`.',
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description:
              'A retry with the same key and body answers the first order (201, `Idempotent-Replayed: true`); the same key with another body is 409; once that order was deleted, 410.',
            schema: parameterSchema(idempotencyKeySchema),
          },
        ],
        requestBody: { required: true, content: json('OrderCreate') },
        responses: {
          '201': {
            description: 'The order, `warning` first when the tracking number did not validate.',
            headers: {
              Location: { description: 'The order’s URL.', schema: { type: 'string' } },
              'Idempotent-Replayed': {
                description: '`true` when this answers an earlier request with the same Idempotency-Key.',
                schema: { type: 'string', enum: ['true'] },
              },
            },
            content: json('OrderWithWarning'),
          },
          ...JSON_BODY_ERRORS,
          '409': errorResponse('Conflict'),
          '410': errorResponse('Gone'),
          ...AUTHENTICATED_ERRORS,
        },
      }),
      get: operation('listOrders', 'Orders', 'List orders, newest first', {
        description: 'Paged by cursor: while `has_more` is true, pass `next_cursor` as `cursor` to get the next page.',
        parameters: listQueryParameters(),
        responses: {
          '200': { description: 'One page of orders.', content: json('OrderPage') },
          '422': errorResponse('ValidationFailed'),
          ...AUTHENTICATED_ERRORS,
        },
      }),
    },
    '/v1/orders/{orderId}': {
      get: operation('getOrder', 'Orders', 'Get an order', {
        parameters: [orderIdParameter],
        responses: {
          '200': { description: 'The order.', content: json('Order') },
          '404': errorResponse('NotFound'),
          ...AUTHENTICATED_ERRORS,
        },
      }),
      put: operation('updateOrder', 'Orders', 'Update an order', {
        description:
          'Only the fields sent change. `{"delivered":1}` marks the order delivered (Custom Shipment Tracking); `carrier` and `tracking_number` start tracking. A cancelled order accepts no updates (409).',
        parameters: [orderIdParameter],
        requestBody: { required: true, content: json('OrderUpdate') },
        responses: {
          '200': {
            description: 'The order, `warning` first when the tracking number did not validate.',
            content: json('OrderWithWarning'),
          },
          ...JSON_BODY_ERRORS,
          '404': errorResponse('NotFound'),
          '409': errorResponse('Conflict'),
          ...AUTHENTICATED_ERRORS,
        },
      }),
      delete: operation('deleteOrder', 'Orders', 'Delete an order', {
        description: 'The order never sends and is gone from the API; its row is kept for billing.',
        parameters: [orderIdParameter],
        responses: {
          '204': { description: 'Deleted.' },
          '404': errorResponse('NotFound'),
          '409': errorResponse('Conflict'),
          ...AUTHENTICATED_ERRORS,
        },
      }),
    },
    '/v1/orders/{orderId}/events': {
      get: operation('listOrderEvents', 'Orders', "The order's timeline, oldest first", {
        parameters: [orderIdParameter],
        responses: {
          '200': { description: 'Every entry of the timeline.', content: json('Timeline') },
          '404': errorResponse('NotFound'),
          ...AUTHENTICATED_ERRORS,
        },
      }),
    },
    '/v1/orders/{orderId}/resend': {
      post: operation('resendVideo', 'Orders', "Send the recipient's video again", {
        description:
          'After a failed or uncertain send, or to a recipient address corrected after sending; never twice to one address (409 with the reason).',
        parameters: [orderIdParameter],
        responses: {
          '200': { description: 'The order; the video is queued.', content: json('Order') },
          '404': errorResponse('NotFound'),
          '409': errorResponse('Conflict'),
          ...AUTHENTICATED_ERRORS,
        },
      }),
    },
    '/v1/orders/{orderId}/video': {
      put: operation('uploadVideo', 'Videos', "Upload the order's video", {
        description: 'The raw video bytes; processed in the background (`video_processed` turns "1").',
        parameters: [orderIdParameter],
        requestBody: {
          required: true,
          content: Object.fromEntries(
            VIDEO_CONTENT_TYPES.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }]),
          ),
        },
        responses: {
          '200': { description: 'The order.', content: json('Order') },
          '400': errorResponse('BadRequest'),
          '404': errorResponse('NotFound'),
          '409': errorResponse('Conflict'),
          '413': errorResponse('PayloadTooLarge'),
          '415': errorResponse('UnsupportedMediaType'),
          ...AUTHENTICATED_ERRORS,
        },
      }),
    },
    '/v1/billing/statements/{month}': {
      get: operation('getStatement', 'Billing', "A month's revenue-share statement", {
        description:
          'The orders whose video was sent in the UTC month, their prices, and the share (rounded half up once per statement).',
        parameters: [
          {
            name: 'month',
            in: 'path',
            required: true,
            schema: { type: 'string', pattern: '^\\d{4}-(0[1-9]|1[0-2])$', examples: ['2026-11'] },
          },
        ],
        responses: {
          '200': { description: 'The statement.', content: json('Statement') },
          '422': errorResponse('ValidationFailed'),
          ...AUTHENTICATED_ERRORS,
        },
      }),
    },
    '/v1/account/settings': {
      get: operation('getAccountSettings', 'Account', "The account's settings", {
        responses: {
          '200': { description: 'The settings (defaults when never changed).', content: json('AccountSettings') },
          ...AUTHENTICATED_ERRORS,
        },
      }),
      put: operation('updateAccountSettings', 'Account', "Change the account's settings", {
        description:
          'Only the fields sent change. `logo_url` is an https URL shown above the store name on the record and watch pages and in e-mails (`null` removes it); `not_watched_note` turns the sender\'s "not watched yet" note on or off; `locale` is the language of the store\'s pages, e-mails and SMS (`en`, `fr` or `es`; a region tag such as `fr-CA` is its language, any other language is a 422 naming these).',
        requestBody: { required: true, content: json('AccountSettingsUpdate') },
        responses: {
          '200': { description: 'The settings after the change.', content: json('AccountSettings') },
          ...JSON_BODY_ERRORS,
          ...AUTHENTICATED_ERRORS,
        },
      }),
    },
    '/v1/account/logo': {
      put: operation('uploadAccountLogo', 'Account', "Upload the store's logo", {
        description:
          "The image's bytes (PNG, JPEG or WebP, at most 5 MB; what it is, is read from the bytes). Doorstep re-encodes it as a PNG of at most 600×200, serves it at its own URL, and sets `logo_url` to that URL. An image that cannot be read is a 422.",
        requestBody: {
          required: true,
          content: Object.fromEntries(
            ['image/png', 'image/jpeg', 'image/webp'].map((type) => [
              type,
              { schema: { type: 'string', contentMediaType: type } },
            ]),
          ),
        },
        responses: {
          '200': { description: 'The settings, `logo_url` the new logo.', content: json('AccountSettings') },
          '400': errorResponse('BadRequest'),
          '413': errorResponse('PayloadTooLarge'),
          '415': errorResponse('UnsupportedMediaType'),
          '422': errorResponse('ValidationFailed'),
          ...AUTHENTICATED_ERRORS,
        },
      }),
      delete: operation('deleteAccountLogo', 'Account', 'Remove the uploaded logo', {
        description:
          "The store shows its name alone, unless `logo_url` was since set to an address of the merchant's, which stays.",
        responses: {
          '200': { description: 'The settings after the change.', content: json('AccountSettings') },
          ...AUTHENTICATED_ERRORS,
        },
      }),
    },
    '/v1/shopify/data-exports': {
      get: operation('listDataExports', 'Shopify', "Customer data exports (Shopify's customers/data_request)", {
        responses: {
          '200': { description: 'The latest 100, newest first.', content: json('DataExportList') },
          ...AUTHENTICATED_ERRORS,
        },
      }),
    },
    '/v1/shopify/data-exports/{id}': {
      get: operation('getDataExport', 'Shopify', 'One customer data export', {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': { description: 'The export.', content: json('DataExport') },
          '404': errorResponse('NotFound'),
          ...AUTHENTICATED_ERRORS,
        },
      }),
    },
  };
}

function errorResponses(): Record<string, unknown> {
  const retryAfter = {
    'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
  };
  const error = (description: string, headers?: Record<string, unknown>) => ({
    description,
    ...(headers ? { headers } : {}),
    content: json('Error'),
  });
  return {
    BadRequest: error('Malformed JSON, or a body that was not completely received (`invalid_request`).'),
    Unauthorized: error('Missing or wrong credentials (`unauthorized`).', {
      'WWW-Authenticate': { schema: { type: 'string' } },
    }),
    NotFound: error("No such order, or another account's (`not_found`)."),
    Gone: error('The order an Idempotency-Key created has been deleted; use a new key (`gone`).'),
    Conflict: error('The request contradicts the current state; the message says why (`conflict`).'),
    PayloadTooLarge: error('The body is over the limit: 1 MB for JSON (`payload_too_large`).'),
    UnsupportedMediaType: error('The wrong Content-Type (`unsupported_media_type`).'),
    ValidationFailed: error('Invalid fields: `fields` has one message per field (`validation_error`).'),
    RateLimited: error("Over the account's request budget per minute (`rate_limited`).", retryAfter),
    ServiceUnavailable: error('A dependency is down; retry (`service_unavailable`).', retryAfter),
  };
}

/** The document; `publicUrl` is the server clients reach (PUBLIC_URL). */
export function openApiDocument(publicUrl: string): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Doorstep API',
      version: '1',
      summary: 'Video gift messages sent the moment the package arrives.',
      description: [
        'Every path but this document needs HTTP Basic auth: your app id as the user name and your API key as the password.',
        'Requests and answers are JSON; timestamps are UTC `YYYY-MM-DDTHH:MM:SSZ`; money is integer cents.',
        'Errors are `{"error":{"type","message","fields"?,"request_id"}}`.',
        'Every answer carries `RateLimit-Limit` and `RateLimit-Remaining` (requests per account per clock minute).',
      ].join('\n\n'),
    },
    servers: [{ url: publicUrl }],
    security: [{ basicAuth: [] }],
    tags: [
      { name: 'Orders', description: 'The order and its timeline.' },
      { name: 'Videos', description: 'The video message.' },
      { name: 'Billing', description: 'Revenue-share statements.' },
      { name: 'Account', description: "The store's logo and message settings." },
      { name: 'Shopify', description: "A Shopify shop's account." },
      { name: 'Reference', description: 'This document.' },
    ],
    paths: paths(),
    components: {
      securitySchemes: {
        basicAuth: {
          type: 'http',
          scheme: 'basic',
          description: 'App id : API key (`npm run cli -- accounts create`).',
        },
      },
      schemas: { ...componentSchemas(REQUEST_SCHEMAS, 'input'), ...componentSchemas(RESPONSE_SCHEMAS, 'output') },
      responses: errorResponses(),
    },
  };
}
