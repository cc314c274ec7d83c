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
