import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';

/**
 * The served OpenAPI document, read the way a client reads it, and Ajv (JSON Schema 2020-12, the
 * dialect OpenAPI 3.1 uses) over its schemas. Strict mode: a keyword Ajv does not know, or a format
 * it cannot check, is an error in the document rather than silently ignored.
 */
export type Json = { [key: string]: unknown };

export const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/** Component refs become refs into one resource holding them all (a schema cannot hold `components`). */
const BASE = 'https://doorstep.invalid/openapi.json';

export class ApiDocument {
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: Json) {
    this.ajv = new Ajv2020({ strict: true, allErrors: true });
    ajvFormats.default(this.ajv);
    // The components as one schema resource, so every $ref between them resolves.
    this.ajv.addSchema({ $id: BASE, $defs: absoluteRefs(this.components('schemas')) });
  }

  static async fetch(baseUrl: string): Promise<ApiDocument> {
    const response = await fetch(`${baseUrl}/v1/openapi.json`);
    if (response.status !== 200) throw new Error(`GET /v1/openapi.json answered ${response.status}`);
    return new ApiDocument((await response.json()) as Json);
  }

  /** Every documented operation as [METHOD, path template, operation]. */
  operations(): Array<[string, string, Json]> {
    return Object.entries(this.document.paths as Record<string, Json>).flatMap(([path, item]) =>
      METHODS.filter((method) => item[method]).map((method): [string, string, Json] => [
        method.toUpperCase(),
        path,
        item[method] as Json,
      ]),
    );
  }

  components(kind: string): Record<string, Json> {
    return ((this.document.components as Json | undefined)?.[kind] ?? {}) as Record<string, Json>;
  }

  /** The documented path template a concrete path matches: /v1/orders/ord_1/events → /v1/orders/{orderId}/events. */
  template(method: string, path: string): string {
    const found = this.operations().find(
      ([m, template]) =>
        m === method && new RegExp(`^${template.replace(/\{[^/}]+\}/g, '[^/]+').replace(/\./g, '\\.')}$`).test(path),
    );
    if (!found) throw new Error(`${method} ${path} is not documented`);
    return found[1];
  }

  /**
   * Problems with a real answer: its status is not documented for the operation, or its body does
   * not validate against the documented schema. Empty when it conforms. Returns the operationId too.
   */
  check(method: string, path: string, status: number, body: unknown): { operationId: string; problems: string[] } {
    const template = this.template(method, path.split('?')[0]!);
    const operation = (this.document.paths as Record<string, Json>)[template]![method.toLowerCase()] as Json;
    const operationId = operation.operationId as string;
    let response = (operation.responses as Record<string, Json>)[String(status)];
    if (!response) return { operationId, problems: [`${method} ${template} does not document status ${status}`] };
    if (typeof response.$ref === 'string') response = this.components('responses')[response.$ref.split('/').pop()!]!;
    const content = response.content as Record<string, Json> | undefined;
    if (!content) {
      return { operationId, problems: body === undefined ? [] : [`${status} documents no body, got one`] };
    }
    const schema = content['application/json']?.schema as Json | undefined;
    if (!schema) return { operationId, problems: [`${status} documents no application/json body`] };
    const key = `${method} ${template} ${status}`;
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(absoluteRefs(schema));
      this.validators.set(key, validate);
    }
    return {
      operationId,
      problems: validate(body) ? [] : (validate.errors ?? []).map((e: ErrorObject) => `${e.instancePath} ${e.message}`),
    };
  }
}

function absoluteRefs(schema: Json): Json {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${BASE}#/$defs/`)) as Json;
}
