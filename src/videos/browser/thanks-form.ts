import { byId, serverErrorMessage, statusLine } from './dom.ts';
import type { ThanksFormData } from './page-data.ts';
import { setUpRecorder, type Translate } from './recorder.ts';

/**
 * The watch page's "Say thank you": a reply video through the record page's own recorder (ids
 * `thanks-…`, its shorter limit), or a note PUT as JSON (the page's CSP allows no form posts).
 */
export function setUpThanksForm(data: ThanksFormData, t: Translate): void {
  // Hidden in the markup: without this script nothing in it could be sent (recipient probe).
  byId('thanks-reply', HTMLDivElement).hidden = false;
  setUpRecorder({
    idPrefix: 'thanks-',
    uploadUrl: data.uploadUrl,
    maxBytes: data.maxBytes,
    maxSeconds: data.maxSeconds,
    types: data.types,
    t,
    // Said while the reply is prepared; that it is on its way only once it is (or why not).
    received: t('script_thanks_preparing'),
    ready: data.receivedText,
  });

  const form = byId('thanks-note', HTMLFormElement);
  const text = byId('thanks-note-text', HTMLTextAreaElement);
  const send = byId('thanks-send-note', HTMLButtonElement);
  const say = statusLine(byId('thanks-note-status', HTMLParagraphElement));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const note = text.value.trim();
    if (note === '') return say(t('script_note_empty'), 'error');
    if (note.length > data.noteMaxLength)
      return say(t('script_note_too_long', { max_chars: data.noteMaxLength }), 'error');
    send.disabled = true;
    say(t('script_note_sending'));
    void fetch(data.noteUrl, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ note }),
    })
      .then(async (response) => {
        if (response.ok) return say(data.receivedText, 'ok');
        const reason = serverErrorMessage(await response.text()) ?? t('script_went_wrong', { status: response.status });
        say(t('script_note_not_sent', { reason }), 'error');
      })
      .catch(() => say(t('script_note_connection_failed'), 'error'))
      .finally(() => {
        send.disabled = false;
      });
  });
}
