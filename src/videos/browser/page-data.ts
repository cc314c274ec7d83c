/**
 * What the server hands each page's script, as JSON in a `<script type="application/json">` block
 * (never spliced into code). Shared by the server (which writes it) and the browser scripts (which
 * read it), so both sides are checked against one shape. Types only: this file is compiled for
 * Node and for the browser alike.
 */

/** The id of the JSON block on a page. */
export const PAGE_DATA_ID = 'page-data';

import type { ScriptPhrases } from '../../i18n/catalogue.ts';

export interface RecordPageData {
  /** Where the recording is sent, resumably (tus): `/record/{uuid}/uploads`. */
  uploadUrl: string;
  /** VIDEO_MAX_BYTES: refused in the browser before a long upload the server would refuse too. */
  maxBytes: number;
  /** VIDEO_MAX_SECONDS: the recording stops there, and a longer file is refused before upload. */
  maxSeconds: number;
  /** The content types the server accepts. */
  types: string[];
  /** Where the sender PUTs the recipient (JSON), when the order came without one; else null. */
  recipientUrl: string | null;
  /** The script's words in the page's language (the catalogue's `script_` phrases, `{name}` unfilled). */
  phrases: ScriptPhrases;
}

export interface WatchPageData {
  /** `POST` here on the first `play`: `/watch/{uuid}/viewed`. */
  viewedUrl: string;
  /** The thank-you reply's form, while the recipient may give or replace one; else null. */
  thanks: ThanksFormData | null;
  /** The reply recorder's script (`thanks-reply.ts`), loaded when the reply is invited; null without a form. */
  thanksScript: { url: string; integrity: string } | null;
  /** The reply recorder's words in the page's language (as the record page's `phrases`). */
  phrases: ScriptPhrases;
}

/** The watch page's "Say thank you" (src/thanks/): a reply video (the shared recorder) or a note. */
export interface ThanksFormData {
  /** Where the reply video is sent, resumably (tus): `/watch/{uuid}/thanks/uploads`. */
  uploadUrl: string;
  /** `PUT` the note here as JSON `{"note": …}`: `/watch/{uuid}/thanks/note`. */
  noteUrl: string;
  maxBytes: number;
  /** THANKS_MAX_SECONDS. */
  maxSeconds: number;
  types: string[];
  noteMaxLength: number;
  /** What the page says once a reply arrived (who gets it, and when). */
  receivedText: string;
}

/**
 * Where the record page's sent video stands (`GET /record/{uuid}/videos/{id}`, src/videos/uploads/upload-state.ts),
 * which the page follows until it is ready or failed.
 */
export type UploadState =
  | { status: 'processing' }
  | { status: 'ready'; duration_seconds: number | null }
  /** The reason is written for the sender: "The video is 2:31 long; video messages can be up to 2:00." */
  | { status: 'failed'; reason: string };
