/**
 * The lines of `shopify app build` output that report an error (theme check's `[error]: …` among
 * them). The CLI ends such a build with "built!" and exit 0, so its words are all that says so.
 * Colours are stripped first: a terminal gets `[error]` painted.
 */
export function cliErrorLines(output: string): string[] {
  // eslint-disable-next-line no-control-regex -- ANSI colour codes are what is being removed
  const plain = output.replace(/\u001b\[[0-9;]*m/g, '');
  return plain.split('\n').filter((line) => /\[error\]/i.test(line));
}
