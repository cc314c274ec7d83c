/**
 * Just enough YAML to read the carrier OpenAPI files in /work/shared/spec/carriers (the project has
 * no YAML dependency, and the tests must read the specs themselves, not a copy that could drift).
 * Supports block mappings and sequences (including "- key: value" items and sequences at their key's
 * indentation), plain / single- / double-quoted scalars spanning lines, literal and folded block
 * scalars, and flow collections. No anchors, tags or multi-document streams. Tabs after a value are
 * taken as blank (ups-tracking.openapi.yaml has `default: <tab><tab>`, which strict parsers reject).
 * Scalars inside block/quoted text are kept approximately; the schema structure is exact.
 */
export type YamlValue = null | boolean | number | string | YamlValue[] | { [key: string]: YamlValue };

interface Line {
  indent: number;
  text: string;
  raw: string;
}

const MAPPING_ENTRY = /^(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s'"{[#|>-][^:]*?|-[^\s:][^:]*?)\s*:(?:\s|$)/;

export function parseYaml(source: string): YamlValue {
  const lines: Line[] = source.split(/\r?\n/).map((raw) => ({ raw, indent: /^ */.exec(raw)?.[0].length ?? 0, text: raw.trim() }));
  let position = 0;

  const isBlank = (line: Line): boolean => line.text === '' || line.text.startsWith('#') || line.text === '---';
  const skipBlank = (): void => {
    while (position < lines.length && isBlank(lines[position] as Line)) position += 1;
  };
  const peek = (): Line | undefined => {
    skipBlank();
    return lines[position];
  };
  const isSequenceItem = (line: Line): boolean => line.text === '-' || line.text.startsWith('- ');

  function parseNode(minIndent: number): YamlValue {
    const line = peek();
    if (!line || line.indent < minIndent) return null;
    return isSequenceItem(line) ? parseSequence(line.indent) : parseMapping(line.indent);
  }

  function parseMapping(indent: number): { [key: string]: YamlValue } {
    const result: { [key: string]: YamlValue } = {};
    for (;;) {
      const line = peek();
      if (!line || line.indent !== indent || isSequenceItem(line)) return result;
      const match = MAPPING_ENTRY.exec(line.text);
      if (!match) throw new Error(`YAML: expected "key:" at line ${position + 1}: ${line.raw}`);
      const keyText = match[0].replace(/\s*:\s*$/, '').replace(/\s*:$/, '');
      const key = unquoteKey(keyText);
      const rest = line.text.slice(match[0].length).trim();
      position += 1;
      result[key] = parseValue(rest, indent);
    }
  }

  function parseSequence(indent: number): YamlValue[] {
    const result: YamlValue[] = [];
    for (;;) {
      const line = peek();
      if (!line || line.indent !== indent || !isSequenceItem(line)) return result;
      const content = line.text.slice(1).trimStart();
      if (content === '') {
        position += 1;
        result.push(parseNode(indent + 1));
      } else if (MAPPING_ENTRY.test(content)) {
        // "- key: value": the item is a mapping whose first key sits where `key` starts.
        const column = line.raw.length - line.raw.trimStart().length + 1 + (line.text.slice(1).length - content.length);
        lines[position] = { raw: ' '.repeat(column) + content, indent: column, text: content };
        result.push(parseMapping(column));
      } else {
        position += 1;
        result.push(parseValue(content, indent));
      }
    }
  }

  /** The value after "key:" (or "- "), whose owner sits at `ownerIndent`. */
  function parseValue(rest: string, ownerIndent: number): YamlValue {
    if (rest === '' || rest.startsWith('#')) {
      const next = peek();
      if (next && next.indent > ownerIndent) return parseNode(next.indent);
      if (next && next.indent === ownerIndent && isSequenceItem(next)) return parseSequence(ownerIndent);
      return null;
    }
    if (/^[|>][-+0-9]*\s*$/.test(rest)) return blockScalar(rest, ownerIndent);
    if (rest.startsWith('"') || rest.startsWith("'")) return quotedScalar(rest);
    if (rest.startsWith('[') || rest.startsWith('{')) return parseFlow(continueUntilBalanced(rest));
    const parts = [rest];
    while (position < lines.length) {
      const next = lines[position] as Line;
      if (next.text === '' || next.indent <= ownerIndent) break;
      parts.push(next.text);
      position += 1;
    }
    return plainScalar(parts.join(' '));
  }

  function blockScalar(header: string, ownerIndent: number): string {
    const collected: Line[] = [];
    while (position < lines.length) {
      const next = lines[position] as Line;
      if (next.text !== '' && next.indent <= ownerIndent) break;
      collected.push(next);
      position += 1;
    }
    while (collected.length > 0 && (collected.at(-1) as Line).text === '') collected.pop();
    const contentIndent = Math.min(...collected.filter((line) => line.text !== '').map((line) => line.indent));
    const body = collected.map((line) => line.raw.slice(contentIndent));
    const text = header.startsWith('>') ? body.join(' ') : body.join('\n');
    return header.includes('-') ? text : `${text}\n`;
  }

  function quotedScalar(start: string): string {
    const quote = start[0] as string;
    let text = start;
    while (closingQuote(text, quote) < 0 && position < lines.length) {
      text += ` ${(lines[position] as Line).text}`;
      position += 1;
    }
    const end = closingQuote(text, quote);
    const inner = text.slice(1, end < 0 ? undefined : end);
    if (quote === "'") return inner.replaceAll("''", "'");
    try {
      return JSON.parse(`"${inner}"`) as string;
    } catch {
      return inner;
    }
  }

  function continueUntilBalanced(start: string): string {
    let text = start;
    while (!balanced(text) && position < lines.length) {
      text += ` ${(lines[position] as Line).text}`;
      position += 1;
    }
    return text;
  }

  position = 0;
  // The first line of a value that began on the "key:" line has already been consumed by the caller;
  // the root starts at the first content line.
  return parseNode(0);
}

function unquoteKey(key: string): string {
  if (key.startsWith('"')) return JSON.parse(key) as string;
  if (key.startsWith("'")) return key.slice(1, -1).replaceAll("''", "'");
  return key;
}

/** Index of the quote closing a scalar that opens at index 0, or -1. */
function closingQuote(text: string, quote: string): number {
  for (let index = 1; index < text.length; index += 1) {
    const char = text[index];
    if (quote === '"' && char === '\\') {
      index += 1;
    } else if (char === quote) {
      if (quote === "'" && text[index + 1] === "'") index += 1;
      else return index;
    }
  }
  return -1;
}

function balanced(text: string): boolean {
  let depth = 0;
  let quote: string | null = null;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index] as string;
    if (quote) {
      if (char === '\\' && quote === '"') index += 1;
      else if (char === quote) quote = null;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === '[' || char === '{') depth += 1;
    else if (char === ']' || char === '}') depth -= 1;
  }
  return depth === 0;
}

function plainScalar(text: string): YamlValue {
  const value = text.trim();
  if (value === '' || value === '~' || value === 'null' || value === 'Null' || value === 'NULL') return null;
  if (/^(true|True|TRUE)$/.test(value)) return true;
  if (/^(false|False|FALSE)$/.test(value)) return false;
  if (/^[-+]?\d+$/.test(value)) return Number(value);
  if (/^[-+]?(\d+\.\d*|\.\d+)([eE][-+]?\d+)?$/.test(value)) return Number(value);
  return value;
}

function parseFlow(text: string): YamlValue {
  let index = 0;
  const skipSpace = (): void => {
    while (index < text.length && /\s/.test(text[index] as string)) index += 1;
  };
  function value(): YamlValue {
    skipSpace();
    const char = text[index];
    if (char === '{') {
      index += 1;
      const result: { [key: string]: YamlValue } = {};
      skipSpace();
      while (text[index] !== '}') {
        const key = scalar(':');
        index += 1; // ':'
        result[String(key)] = value();
        skipSpace();
        if (text[index] === ',') index += 1;
        skipSpace();
        if (index >= text.length) throw new Error(`YAML: unterminated flow mapping: ${text}`);
      }
      index += 1;
      return result;
    }
    if (char === '[') {
      index += 1;
      const result: YamlValue[] = [];
      skipSpace();
      while (text[index] !== ']') {
        result.push(value());
        skipSpace();
        if (text[index] === ',') index += 1;
        skipSpace();
        if (index >= text.length) throw new Error(`YAML: unterminated flow sequence: ${text}`);
      }
      index += 1;
      return result;
    }
    return scalar(',]}');
  }
  function scalar(stops: string): YamlValue {
    skipSpace();
    const char = text[index] as string;
    if (char === '"' || char === "'") {
      const end = closingQuote(text.slice(index), char);
      const raw = text.slice(index, index + end + 1);
      index += end + 1;
      return char === '"' ? (JSON.parse(raw) as string) : raw.slice(1, -1).replaceAll("''", "'");
    }
    const start = index;
    while (index < text.length && !stops.includes(text[index] as string)) index += 1;
    return plainScalar(text.slice(start, index));
  }
  return value();
}
