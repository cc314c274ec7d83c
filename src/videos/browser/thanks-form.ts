import { byId, serverErrorMessage, statusLine } from './dom.ts';
import type { ThanksFormData } from './page-data.ts';
import { setUpRecorder, type Translate } from './recorder.ts';

/**
 * The watch page's "Say thank you": a reply video through the record page's own recorder (ids
 * `thanks-…`, its shorter limit), or a note PUT as JSON (the page's CSP allows no form posts).
 */
export function setUpThanksForm(data: ThanksFormData, t: Translate): void {
  setUpRecorder({
    idPrefix: 'thanks-',
    uploadUrl: data.uploadUrl,
    maxBytes: data.maxBytes,
    maxSeconds: data.maxSeconds,
    types: data.types,
    t,
    received: data.receivedText,
  });

  const form = byId('thanks-note', HTMLFormElement);
  const text = byId('thanks-note-text', HTMLTextAreaElement);
  const send = byId('thanks-send-note', HTMLButtonElement);
  const say = statusLine(byId('thanks-note-status', HTMLParagraphElement));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const note = text.value.trim();
    if (note === '') return say('Please write a few words first.', 'error');
    if (note.length > data.noteMaxLength)
      return say(`Please keep the note to ${data.noteMaxLength} characters.`, 'error');
    send.disabled = true;
    say('Sending your note…');
    void fetch(data.noteUrl, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ note }),
    })
      .then(async (response) => {
        if (response.ok) return say(data.receivedText, 'ok');
        say(
          `Your note was not sent: ${serverErrorMessage(await response.text()) ?? `Something went wrong (${response.status}).`}`,
          'error',
        );
      })
      .catch(() => say('Your note was not sent: the connection failed. Please try again.', 'error'))
      .finally(() => {
        send.disabled = false;
      });
  });
}
