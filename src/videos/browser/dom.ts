import { PAGE_DATA_ID } from './page-data.ts';

/**
 * The element with this id, checked to be of the expected kind: a page whose markup drifted from
 * its script fails loudly here rather than with "undefined is not a function" later.
 */
export function byId<T extends HTMLElement>(id: string, kind: new () => T): T {
  const element = document.getElementById(id);
  if (!(element instanceof kind)) throw new Error(`#${id} is missing or not a ${kind.name}`);
  return element;
}

/** The page's JSON data block (see page-data.ts); its shape is the server's promise. */
export function readPageData<T>(): T {
  return JSON.parse(byId(PAGE_DATA_ID, HTMLScriptElement).text) as T;
}

/** The server's JSON error, as one sentence for the page: its message and, if any, what is wrong per field. */
export function serverErrorMessage(responseText: string): string | undefined {
  try {
    const body: unknown = JSON.parse(responseText);
    const error = typeof body === 'object' && body !== null && 'error' in body ? body.error : undefined;
    if (typeof error !== 'object' || error === null) return undefined;
    const message = 'message' in error && typeof error.message === 'string' ? error.message : '';
    const fields =
      'fields' in error && typeof error.fields === 'object' && error.fields !== null
        ? Object.entries(error.fields).map(([field, problem]) => `${field.replace(/_/g, ' ')} ${String(problem)}`)
        : [];
    const text = [message, ...fields].filter((part) => part !== '').join(' ');
    return text === '' ? undefined : text;
  } catch {
    return undefined;
  }
}

/** Says something in a status line (`role="status"`), styled as an error, a success, or neither. */
export function statusLine(element: HTMLElement): (text: string, kind?: 'error' | 'ok') => void {
  return (text, kind) => {
    element.textContent = text;
    element.className = kind ? `status ${kind}` : 'status';
  };
}
