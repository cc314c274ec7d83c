import { readFileSync } from 'node:fs';
import { parseYaml } from './yaml.ts';

/**
 * Reads the carrier OpenAPI files beside docs/carriers/NOTES.md and validates JSON values against their schemas,
 * so sandbox responses and client requests are checked against the published shapes themselves.
 *
 * The subset of OpenAPI 3.0 schema semantics implemented: $ref, type, nullable, enum, properties,
 * required, additionalProperties, items, min/maxItems, min/maxLength, pattern, format date and
 * date-time, allOf, oneOf, anyOf. Two deliberate readings where the specs are self-contradictory:
 * - allOf is validated as one merged object (union of properties and required). Read literally,
 *   usps-tracking-v3r2 `SharedTrackingDetail` (additionalProperties: false) inside
 *   `TrackingDetail.allOf` would reject the trackingEvents that the other allOf branches add.
 * - oneOf passes when at least one branch does. v3r2 `MultiStatusResponse` items are
 *   oneOf [FailureResponse, SuccessResponse], and every success item also satisfies FailureResponse
 *   (all of whose fields are optional), so a literal oneOf fails every 207 body.
 */
export const SPEC_DIR = '/work/shared/spec/carriers';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Schema = { [key: string]: Json };

export class OpenApiSpec {
  private constructor(private readonly document: Schema) {}

  static load(fileName: string): OpenApiSpec {
    const text = readFileSync(`${SPEC_DIR}/${fileName}`, 'utf8');
    const document = (fileName.endsWith('.json') ? JSON.parse(text) : parseYaml(text)) as Schema;
    return new OpenApiSpec(document);
  }

  /** components.schemas[name] */
  schema(name: string): Schema {
    const schemas = asObject(asObject(this.document['components'])?.['schemas']);
    const schema = asObject(schemas?.[name]);
    if (!schema) throw new Error(`no schema ${name}`);
    return schema;
  }

  /** The schema of a documented response, e.g. ('/track/v1/details/{inquiryNumber}', 'get', 200). */
  responseSchema(path: string, method: string, status: number | 'default', contentType = 'application/json'): Schema {
    const operation = this.operation(path, method);
    const response = asObject(asObject(operation['responses'])?.[String(status)]);
    const schema = asObject(asObject(asObject(response?.['content'])?.[contentType])?.['schema']);
    if (!schema) throw new Error(`${method.toUpperCase()} ${path} documents no ${status} ${contentType} body`);
    return schema;
  }

  requestSchema(path: string, method: string, contentType = 'application/json'): Schema {
    const body = asObject(this.operation(path, method)['requestBody']);
    const schema = asObject(asObject(asObject(body?.['content'])?.[contentType])?.['schema']);
    if (!schema) throw new Error(`${method.toUpperCase()} ${path} documents no ${contentType} request body`);
    return schema;
  }

  /** Problems found, as "$.path: message"; empty when the value conforms. */
  validate(schema: Schema, value: unknown): string[] {
    const problems: string[] = [];
    this.check(schema, value as Json, '$', problems);
    return problems;
  }

  private operation(path: string, method: string): Schema {
    const operation = asObject(asObject(asObject(this.document['paths'])?.[path])?.[method]);
    if (!operation) throw new Error(`no operation ${method.toUpperCase()} ${path}`);
    return operation;
  }

  private resolve(schema: Schema): Schema {
    const ref = schema['$ref'];
    if (typeof ref !== 'string') return schema;
    const name = /^#\/components\/schemas\/(.+)$/.exec(ref)?.[1];
    if (!name) throw new Error(`unsupported $ref ${ref}`);
    return this.resolve(this.schema(name));
  }

  /** allOf merged into one schema: properties and required united, closed if any part is closed. */
  private flatten(input: Schema): Schema {
    const schema = this.resolve(input);
    const parts = asArray(schema['allOf']);
    if (!parts) return schema;
    const merged: Schema = { ...schema };
    delete merged['allOf'];
    const properties: Schema = { ...(asObject(schema['properties']) ?? {}) };
    const required = new Set(asArray(schema['required'])?.map(String) ?? []);
    let closed = schema['additionalProperties'] === false;
    for (const part of parts) {
      const flat = this.flatten(asObject(part) ?? {});
      for (const [key, value] of Object.entries(asObject(flat['properties']) ?? {})) properties[key] ??= value;
      for (const key of asArray(flat['required']) ?? []) required.add(String(key));
      if (flat['additionalProperties'] === false) closed = true;
      merged['type'] ??= flat['type'] ?? null;
      for (const key of ['oneOf', 'anyOf', 'enum', 'items', 'format', 'pattern', 'maxItems', 'minItems'] as const) {
        if (flat[key] !== undefined) merged[key] ??= flat[key];
      }
    }
    merged['properties'] = properties;
    merged['required'] = [...required];
    merged['additionalProperties'] = !closed;
    if (merged['type'] === null) delete merged['type'];
    return merged;
  }

  private check(input: Schema, value: Json, path: string, problems: string[]): void {
    const schema = this.flatten(input);
    if (value === null || value === undefined) {
      if (schema['nullable'] !== true) problems.push(`${path}: is null`);
      return;
    }
    for (const key of ['oneOf', 'anyOf'] as const) {
      const branches = asArray(schema[key]);
      if (!branches) continue;
      const outcomes = branches.map((branch) => {
        const found: string[] = [];
        this.check(asObject(branch) ?? {}, value, path, found);
        return found;
      });
      if (!outcomes.some((found) => found.length === 0)) {
        const closest = outcomes.reduce((best, found) => (found.length < best.length ? found : best));
        problems.push(`${path}: matches no ${key} branch; closest: ${closest.join('; ')}`);
      }
    }
    const type = typeof schema['type'] === 'string' ? schema['type'] : schema['properties'] ? 'object' : undefined;
    if (type && !hasType(value, type)) {
      problems.push(`${path}: expected ${type}, got ${JSON.stringify(value)}`);
      return;
    }
    const enumeration = asArray(schema['enum']);
    if (enumeration && !enumeration.some((option) => option === value)) problems.push(`${path}: ${JSON.stringify(value)} not in ${JSON.stringify(enumeration)}`);
    if (typeof value === 'string') this.checkString(schema, value, path, problems);
    if (Array.isArray(value)) this.checkArray(schema, value, path, problems);
    else if (typeof value === 'object') this.checkObject(schema, value, path, problems);
  }

  private checkString(schema: Schema, value: string, path: string, problems: string[]): void {
    const { minLength, maxLength, pattern, format } = schema;
    if (typeof minLength === 'number' && value.length < minLength) problems.push(`${path}: shorter than ${minLength}`);
    if (typeof maxLength === 'number' && value.length > maxLength) problems.push(`${path}: longer than ${maxLength}`);
    if (typeof pattern === 'string' && !new RegExp(pattern).test(value)) problems.push(`${path}: ${JSON.stringify(value)} does not match ${pattern}`);
    if (format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(value)) problems.push(`${path}: ${JSON.stringify(value)} is not a date`);
    if (format === 'date-time' && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value)) {
      problems.push(`${path}: ${JSON.stringify(value)} is not an RFC 3339 date-time`);
    }
  }

  private checkArray(schema: Schema, value: Json[], path: string, problems: string[]): void {
    const { minItems, maxItems } = schema;
    if (typeof minItems === 'number' && value.length < minItems) problems.push(`${path}: fewer than ${minItems} items`);
    if (typeof maxItems === 'number' && value.length > maxItems) problems.push(`${path}: more than ${maxItems} items`);
    const items = asObject(schema['items']);
    if (items) value.forEach((item, index) => this.check(items, item, `${path}[${index}]`, problems));
  }

  private checkObject(schema: Schema, value: { [key: string]: Json }, path: string, problems: string[]): void {
    const properties = asObject(schema['properties']) ?? {};
    for (const key of asArray(schema['required']) ?? []) {
      if (value[String(key)] === undefined) problems.push(`${path}: missing required ${String(key)}`);
    }
    for (const [key, child] of Object.entries(value)) {
      const property = asObject(properties[key]);
      if (property) this.check(property, child, `${path}.${key}`, problems);
      else if (schema['additionalProperties'] === false) problems.push(`${path}: ${key} is not allowed`);
      else if (asObject(schema['additionalProperties'])) this.check(asObject(schema['additionalProperties']) as Schema, child, `${path}.${key}`, problems);
    }
  }
}

function hasType(value: Json, type: string): boolean {
  switch (type) {
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    default:
      return typeof value === type;
  }
}

function asObject(value: unknown): Schema | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Schema) : undefined;
}

function asArray(value: unknown): Json[] | undefined {
  return Array.isArray(value) ? (value as Json[]) : undefined;
}
