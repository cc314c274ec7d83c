import { describe, expect, it } from 'vitest';
import { isolateDirectionality } from '../../src/i18n/bidi.ts';
import { escapeHtml, html, jsonScriptContent, phraseHtml } from '../../src/videos/html.ts';

describe('escaping values put into the pages', () => {
  it('replaces the five characters that matter in text and quoted attributes', () => {
    expect(escapeHtml(`<script>alert("x")</script> & 'y'`)).toBe(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;',
    );
  });

  it('escapes every interpolation but nests already-built markup as is', () => {
    const name = '"><img src=x onerror=alert(1)>';
    const inner = html`<b>${name}</b>`;
    expect(html`<p title="${name}">${inner}</p>`.value).toBe(
      '<p title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"><b>&quot;&gt;&lt;img src=x onerror=alert(1)&gt;</b></p>',
    );
  });

  it('isolates a value holding directional formatting in a sentence, so it cannot turn the sentence around it (probe finding)', () => {
    const name = 'Ann \u202E<b>evil';
    expect(phraseHtml('{sender_name} sent you a video', { sender_name: name }).value).toBe(
      '\u2068Ann &lt;b&gt;evil\u2069 sent you a video',
    );
    // A value opening with its own PDI cannot close our isolate early: the characters are removed.
    expect(isolateDirectionality('\u2069\u202Eevil')).toBe('\u2068evil\u2069');
    // Right-to-left names without formatting characters read as they are.
    expect(isolateDirectionality('سارة')).toBe('سارة');
    // An attribute value is only escaped: a form's value must not grow on every save.
    expect(html`<input value="${name}">`.value).toBe('<input value="Ann \u202E&lt;b&gt;evil">');
  });

  it('puts JSON into a data block that no value can close, and that parses back unchanged', () => {
    const data = { name: '</script><script>alert(1)</script>', comment: '<!-- <script>', amp: '&lt; & >' };
    const block = html`<script type="application/json">${jsonScriptContent(data)}</script>`.value;
    const content = block.slice('<script type="application/json">'.length, -'</script>'.length);
    // The HTML parser ends or re-modes a script element only at `<`.
    expect(content).not.toContain('<');
    expect(JSON.parse(content)).toEqual(data);
  });
});
