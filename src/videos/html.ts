import escapeHtml from 'escape-html';
import { isolateDirectionality } from '../i18n/bidi.ts';

/**
 * HTML escaping for every value interpolated into the pages is the `escape-html` package (the one
 * the e-mail templates use): it replaces the five characters text and double-quoted attribute
 * values need (OWASP XSS cheat sheet, rules 1–2). Values are never placed in unquoted attributes,
 * URLs of our own making aside, or inside <script> other than as JSON data (jsonScriptContent).
 */
export { escapeHtml };

/**
 * Markup that is already safe: built by `html` (which escaped its values), or our own constant
 * CSS/JS. Never construct one from user data.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/**
 * JSON for a `<script type="application/json">` block. Inside <script> the HTML parser only looks
 * for `<` (`</script>` ends the element, `<!--` changes how it ends), so every `<` becomes the JSON
 * escape \u003c, which JSON.parse reads back as `<`. Entity escaping would be wrong here: script
 * content is raw text, and `&lt;` would reach JSON.parse as is.
 */
export function jsonScriptContent(value: unknown): SafeHtml {
  return new SafeHtml(JSON.stringify(value).replaceAll('<', '\\u003c'));
}

/** A tagged template that escapes every interpolation unless it is already `SafeHtml`. */
export function html(
  strings: TemplateStringsArray,
  ...values: Array<string | number | SafeHtml | SafeHtml[]>
): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    const text = Array.isArray(value)
      ? value.map((v) => v.value).join('')
      : value instanceof SafeHtml
        ? value.value
        : escapeHtml(String(value));
    out += text + (strings[index + 1] ?? '');
  });
  return new SafeHtml(out);
}

/**
 * A catalogue phrase as markup: its words escaped, each `{name}` replaced by its value — escaped text,
 * or markup of our own (`html`…) such as `<strong>` around a name. A missing value throws, as
 * `interpolate` does.
 */
export function phraseHtml(phrase: string, values: Readonly<Record<string, string | SafeHtml>>): SafeHtml {
  const parts = phrase.split(/\{([a-z_]+)\}/g); // odd indices are placeholder names
  return new SafeHtml(
    parts
      .map((part, index) => {
        if (index % 2 === 0) return escapeHtml(part);
        const value = values[part];
        if (value === undefined) throw new Error(`the phrase "${phrase}" needs a value for {${part}}`);
        // A value in a sentence is isolated when it holds directional formatting (src/i18n/bidi.ts).
        return value instanceof SafeHtml ? value.value : escapeHtml(isolateDirectionality(value));
      })
      .join(''),
  );
}
