// mjml 5 ships no type declarations; this is the part of its API we use (mjml.io/documentation/#usage).
declare module 'mjml' {
  interface MjmlError {
    line: number;
    message: string;
    tagName: string;
    formattedMessage: string;
  }
  interface MjmlOptions {
    validationLevel?: 'strict' | 'soft' | 'skip';
    filePath?: string;
    ignoreIncludes?: boolean;
    includePath?: string | string[];
    keepComments?: boolean;
    fonts?: Record<string, string>;
    minify?: boolean;
    beautify?: boolean;
  }
  interface MjmlResult {
    html: string;
    errors: MjmlError[];
  }
  export default function mjml2html(input: string, options?: MjmlOptions): Promise<MjmlResult>;
}
