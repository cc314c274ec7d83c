import { byId, serverErrorMessage, statusLine } from './dom.ts';
import type { ScriptPhrases } from '../../i18n/catalogue.ts';

/**
 * The record page's "Who is your video message for?" form, shown when a Shopify order came without
 * a way to reach the recipient. It PUTs the recipient as JSON (the page's CSP allows no form posts)
 * and reloads, so the page then reads as for any other order. The browser checks the obvious; the
 * server's answer is the authority and is shown as it comes.
 */
export function setUpRecipientForm(
  recipientUrl: string,
  t: (key: keyof ScriptPhrases, values?: Record<string, string | number>) => string,
): void {
  const form = byId('recipient', HTMLFormElement);
  const name = byId('recipient-name', HTMLInputElement);
  const email = byId('recipient-email', HTMLInputElement);
  const phone = byId('recipient-phone', HTMLInputElement);
  const save = byId('save-recipient', HTMLButtonElement);
  const say = statusLine(byId('recipient-status', HTMLParagraphElement));

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const recipient: Record<string, string> = { recipient_name: name.value.trim() };
    if (email.value.trim()) recipient.recipient_email = email.value.trim();
    if (phone.value.trim()) recipient.recipient_phone = phone.value.trim();
    if (!recipient.recipient_name) return say(t('script_give_name'), 'error');
    if (!recipient.recipient_email && !recipient.recipient_phone) return say(t('script_give_contact'), 'error');
    if (recipient.recipient_email && !email.checkValidity()) return say(t('script_email_wrong'), 'error');
    save.disabled = true;
    say(t('script_saving'));
    void fetch(recipientUrl, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(recipient),
    })
      .then(async (response) => {
        if (response.ok) {
          say(t('script_saved'), 'ok');
          window.location.reload();
          return;
        }
        say(serverErrorMessage(await response.text()) ?? t('script_went_wrong', { status: response.status }), 'error');
        save.disabled = false;
      })
      .catch(() => {
        say(t('script_recipient_not_saved'), 'error');
        save.disabled = false;
      });
  });
}
