import { isolateDirectionality } from './bidi.ts';

/**
 * Fills a catalogue phrase's `{name}` placeholders, once: a value that itself holds `{x}` stays as it
 * is. A placeholder without a value throws (a sentence with a hole never reaches anyone; the catalogue
 * test proves every phrase is filled by the values its callers give). Pure and dependency-free: the
 * record page's script uses it too, with the phrases the server hands it.
 */
export function interpolate(phrase: string, values: Readonly<Record<string, string | number>>): string {
  return phrase.replace(/\{([a-z_]+)\}/g, (_whole, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`the phrase "${phrase}" needs a value for {${name}}`);
    return isolateDirectionality(String(value));
  });
}

/** The placeholders a phrase names, sorted and each once. */
export function placeholdersOf(phrase: string): string[] {
  return [...new Set([...phrase.matchAll(/\{([a-z_]+)\}/g)].map((match) => match[1]!))].sort();
}
