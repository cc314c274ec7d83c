import { readFileSync } from 'node:fs';
import { dereference } from '@apidevtools/json-schema-ref-parser';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';
import mergeAllOf from 'json-schema-merge-allof';
import { parse } from 'yaml';

/**
 * Reads the carriers' published OpenAPI files (test/fixtures/carriers, provenance in
 * test/fixtures/README.md) and validates JSON values against their schemas with Ajv, so sandbox
 * responses and client requests are checked against the published shapes themselves.
 *
 * OpenAPI 3.0 schemas are JSON Schema plus annotations (`example`, `xml`) that Ajv ignores; these
 * files use no `nullable` or `discriminator`. Two deliberate readings where the specs contradict
 * themselves, applied before Ajv sees a schema:
 * - allOf is validated as one merged object (union of properties and required, closed if any part
 *   is closed). Read literally, usps-tracking-v3r2 `SharedTrackingDetail` (additionalProperties:
 *   false) inside `TrackingDetail.allOf` would reject the trackingEvents the other branches add.
 * - oneOf passes when at least one branch does (read as anyOf). v3r2 `MultiStatusResponse` items
 *   are oneOf [FailureResponse, SuccessResponse], and every success item also satisfies
 *   FailureResponse (all of whose fields are optional), so a literal oneOf fails every 207 body.
 */
export const SPEC_DIR = new URL('../../../fixtures/carriers/', import.meta.url);

export type Schema = { [key: string]: unknown };

// strict: false because OpenAPI annotations are not JSON Schema keywords. allErrors: report every
// problem, not the first. FedEx writes OpenAPI's `byte` format as `base64`.
const ajv = new Ajv({ strict: false, allErrors: true });
ajvFormats.default(ajv);
ajv.addFormat('base64', ajvFormats.default.get('byte'));

export class OpenApiSpec {
  private readonly validators = new WeakMap<Schema, ValidateFunction>();

  private constructor(private readonly document: Schema) {}

  /** YAML 1.2 is a superset of JSON, so one parser reads both kinds of file. */
  static async load(fileName: string): Promise<OpenApiSpec> {
    const document = parse(readFileSync(new URL(fileName, SPEC_DIR), 'utf8')) as Schema;
    // Every $ref in these files points inside the same file; resolving nothing else keeps tests offline.
    return new OpenApiSpec((await dereference(document, { resolve: { external: false } })) as Schema);
  }

  /** components.schemas[name] */
  schema(name: string): Schema {
    const schema = asObject(asObject(this.document['components'])?.['schemas'])?.[name];
    if (!isObject(schema)) throw new Error(`no schema ${name}`);
    return schema;
  }

  /** The schema of a documented response, e.g. ('/track/v1/details/{inquiryNumber}', 'get', 200). */
  responseSchema(path: string, method: string, status: number | 'default', contentType = 'application/json'): Schema {
    const response = asObject(asObject(this.operation(path, method)['responses'])?.[String(status)]);
    const schema = asObject(asObject(response?.['content'])?.[contentType])?.['schema'];
    if (!isObject(schema))
      throw new Error(`${method.toUpperCase()} ${path} documents no ${status} ${contentType} body`);
    return schema;
  }

  requestSchema(path: string, method: string, contentType = 'application/json'): Schema {
    const body = asObject(this.operation(path, method)['requestBody']);
    const schema = asObject(asObject(body?.['content'])?.[contentType])?.['schema'];
    if (!isObject(schema)) throw new Error(`${method.toUpperCase()} ${path} documents no ${contentType} request body`);
    return schema;
  }

  /** Problems found, as "$.path: message"; empty when the value conforms. */
  validate(schema: Schema, value: unknown): string[] {
    let validator = this.validators.get(schema);
    if (!validator) {
      validator = ajv.compile(oneOfAsAnyOf(mergeAllOf(schema, { ignoreAdditionalProperties: true })) as Schema);
      this.validators.set(schema, validator);
    }
    return validator(value) ? [] : (validator.errors ?? []).map(describe);
  }

  private operation(path: string, method: string): Schema {
    const operation = asObject(asObject(this.document['paths'])?.[path])?.[method];
    if (!isObject(operation)) throw new Error(`no operation ${method.toUpperCase()} ${path}`);
    return operation;
  }
}

/** A copy with every oneOf read as anyOf (see the second reading above). */
function oneOfAsAnyOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(oneOfAsAnyOf);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [key === 'oneOf' ? 'anyOf' : key, oneOfAsAnyOf(child)]),
  );
}

/** Ajv's error as "$.trackingEvents[0]: must NOT have additional properties (eventZIP)". */
function describe(error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((segment) => (/^\d+$/.test(segment) ? `[${segment}]` : `.${segment}`))
    .join('');
  const params: Record<string, unknown> = error.params;
  const detail =
    error.keyword === 'additionalProperties'
      ? ` (${String(params['additionalProperty'])})`
      : error.keyword === 'enum'
        ? ` ${JSON.stringify(params['allowedValues'])}`
        : '';
  return `$${path}: ${error.message ?? error.keyword}${detail}`;
}

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asObject(value: unknown): Schema | undefined {
  return isObject(value) ? value : undefined;
}
