import type { Locale } from './locale.ts';

/**
 * Every word a recipient, a sender or a visitor reads: the record and watch pages (`page_`), the
 * record page's script (`script_`, handed to it as JSON), the e-mails (`email_`) and the SMS (`sms_`).
 * Plain `{name}` placeholders, filled once by `interpolate`; no plurals are needed (lengths are
 * `0:30`, sizes whole megabytes). English is the reference: every other language must have every key
 * with the same placeholders, which the compiler checks (`satisfies Phrases`, `SamePlaceholdersAsEnglish`) and
 * test/i18n/catalogue.test.ts checks again at run time.
 *
 * French and Spanish: short and warm; French says "vous", Spanish "tú". French puts a no-break space
 * (\u00a0) before `:` `!` `?` and inside « », except in SMS, where it is not in the GSM-7 alphabet and
 * would make the text UCS-2 (src/notifications/messages/sms-segments.ts); for the same reason the Spanish SMS
 * say "video" without accented á í ó ú, which GSM-7 lacks (é ñ ü it has).
 */
const en = {
  // Pages
  page_not_found_title: 'Video message not found',
  page_not_found_heading: 'We can’t find this video message',
  page_not_found_body:
    'The link may be incomplete, or the message may have been removed. Please check that you opened the whole link from your e-mail or text message.',
  page_video_message: 'Video message',
  page_quoted_title: '“{video_title}”',
  page_unnamed_recipient: 'your recipient',
  page_record_closed_heading: 'This video message can no longer be recorded',
  page_record_closed_cancelled: 'The order was cancelled.',
  page_record_closed_sent: 'Your video has already been sent to {recipient_name}.',
  page_record_title: 'Record a video for {recipient_name}',
  page_record_title_no_recipient: 'Record a video message',
  page_record_heading: 'Record a video message for {recipient_name}',
  page_record_replaces: 'You have already sent a video; a new one replaces it until it goes out.',
  page_record_failed: 'The video you sent last could not be used: {reason} Please record or choose another.',
  page_record_failed_generic: 'it may be damaged, too long, too short or not a video.',
  page_record_failed_kept:
    'The video you sent last could not be used: {reason} The one you sent before still goes out; you can try again.',
  page_record_camera_preview: 'Camera preview',
  page_record_your_recording: 'Your recording',
  page_record_use_camera: 'Use the camera',
  page_record_start: 'Start recording',
  page_record_stop: 'Stop recording',
  page_record_choose_file: 'Choose a video file',
  page_record_send: 'Send video',
  page_record_limit: 'Up to {duration} long.',
  page_record_progress: 'Upload progress',
  page_recipient_heading: 'Who is your video message for?',
  page_recipient_intro:
    'Your order did not say how to reach the recipient. Tell us, and we send “{video_title}” to them when the gift arrives.',
  page_recipient_name: 'Their name',
  page_recipient_email: 'Their e-mail address',
  page_recipient_phone: 'Their mobile number (for a text message)',
  page_recipient_save: 'Save recipient',
  page_watch_unavailable: 'This video message is no longer available',
  page_watch_on_its_way: 'A video message from {sender_name} is on its way. Please check back soon.',
  page_watch_from: 'A video message from {sender_name}, with a gift from {store_name}',
  page_watch_sent_on: 'Sent on {date}',
  page_watch_play: 'Play the video message',
  page_next_now: '{recipient_name} gets your video as soon as you send it.',
  page_next_on_date: '{recipient_name} gets your video on {date}.',
  page_next_on_store_day: '{recipient_name} gets your video on the day the store set.',
  page_next_arrived: 'The gift has arrived: {recipient_name} gets your video as soon as you send it.',
  page_next_package_about: '{recipient_name} gets your video when the package arrives, about {date}.',
  page_next_package: '{recipient_name} gets your video when the package arrives.',
  // The thank-you reply (src/thanks/): the watch page's section and the sender's page of the reply
  page_thanks_heading: 'Say thank you',
  page_thanks_invite: 'Record a short video or write a note back to {sender_name}. We e-mail it to them.',
  page_thanks_send_video: 'Send thank-you video',
  page_thanks_note_label: 'Or write a note',
  page_thanks_note_hint: 'Up to {max_chars} characters.',
  page_thanks_needs_script: 'To reply with a video or a note, open this page in a browser with JavaScript turned on.',
  page_thanks_send_note: 'Send note',
  page_thanks_received_now: 'Thank you! Your thank-you is on its way to {sender_name}.',
  page_thanks_received_one_minute:
    'Thank you! {sender_name} gets your thank-you in about 1 minute. Until then you can replace it here.',
  page_thanks_received_minutes:
    'Thank you! {sender_name} gets your thank-you in about {minutes} minutes. Until then you can replace it here.',
  page_thanks_waiting_video:
    'Your thank-you video is on its way to {sender_name}. Until it goes out you can replace it below.',
  page_thanks_waiting_note:
    'Your thank-you note is on its way to {sender_name}. Until it goes out you can replace it below.',
  page_thanks_no_sender_email:
    'Your thank-you was saved, but the store has no e-mail address for {sender_name}, so we cannot send it.',
  page_thanks_sent_video: 'Your thank-you video was sent to {sender_name}.',
  page_thanks_sent_note: 'Your thank-you note was sent to {sender_name}.',
  page_thanks_title: 'A thank-you from {recipient_name}',
  page_thanks_intro:
    '{recipient_name} watched your video message “{video_title}”, sent with a gift from {store_name}, and wrote back:',
  page_thanks_video_label: 'Thank-you video from {recipient_name}',
  page_thanks_note_from: 'Note from {recipient_name}',
  page_thanks_watch_gift: 'Watch your video message again',
  page_thanks_visit_store: 'Visit {store_name}',
  page_thanks_not_found_title: 'Thank-you not found',
  page_thanks_not_found_heading: 'We can’t find this thank-you',
  page_thanks_not_found_body: 'The link may be incomplete, or the thank-you may have been removed.',
  // Captions: the record page's transcript field and the watch page's captions track
  page_transcript_label: 'What you say (shown as captions)',
  page_transcript_hint:
    'Optional. Type your message and the recipient can read it as captions while they watch. Up to {max_chars} characters.',
  page_captions_label: 'Captions',

  // The record page's script
  script_wrong_type: 'Please choose an MP4, WebM or QuickTime (.mov) video.',
  script_empty: 'That video is empty. Please try again.',
  script_too_large:
    'That video file is too large for its length (the limit is {megabytes} MB): it was recorded at a very high quality. Record it again in HD (1080p) rather than 4K, or record a shorter one.',
  script_watch_then_send: 'Watch your video, then press “Send video”.',
  script_too_long:
    'That video is {duration} long; video messages can be up to {limit}. Please choose or record a shorter one.',
  script_too_short: 'That video is under a second long: too short for a message. Please record or choose a longer one.',
  script_timer: '{elapsed} / {limit} — {left} left',
  script_camera_failed: 'We could not start your camera. You can choose a video file instead.',
  script_camera_denied:
    'Your browser did not let this page use the camera and microphone. Allow them (the camera icon by the address bar), then try again, or choose a video file instead.',
  script_camera_missing: 'No camera or microphone was found. You can choose a video file instead.',
  script_camera_busy:
    'Your camera is in use by another app, or could not start. Close the other app and try again, or choose a video file instead.',
  script_too_many_uploads: 'Too many videos were sent for this message in the last hour. Please try again later.',
  script_camera_ready: 'Camera ready. Press “Start recording” when you are.',
  script_record_again: 'Record again',
  script_recording: 'Recording… it stops by itself at {limit}.',
  script_sending: 'Sending your video…',
  script_received:
    'Thank you! Your video was received. We are preparing it to play on any phone or computer, and you can close this page.',
  script_not_sent: 'Your video was not sent: {reason}',
  script_went_wrong: 'Something went wrong ({status}).',
  script_connection_failed: 'Your video was not sent: the connection failed. Please try again.',
  script_reconnecting: 'The connection dropped. Continuing from where it stopped…',
  script_ready: 'Your video is ready: it plays on any phone or computer.',
  script_thanks_preparing: 'Your video arrived. We are preparing it to play on any phone or computer…',
  script_processing_failed: 'We could not prepare your video: {reason} Please record again or choose another video.',
  script_processing_gone:
    'We can no longer follow this video: a newer one replaced it, or the message was removed. Reload the page to see where your video stands.',
  script_give_name: 'Please give their name.',
  script_give_contact: 'Please give their e-mail address or mobile number (or both).',
  script_email_wrong: 'That e-mail address does not look right.',
  script_saving: 'Saving…',
  script_saved: 'Saved. Now record your video below.',
  script_recipient_not_saved: 'The recipient was not saved: the connection failed. Please try again.',
  script_transcript_not_saved: 'Its captions could not be saved.',
  script_note_empty: 'Please write a few words first.',
  script_note_too_long: 'Please keep the note to {max_chars} characters.',
  script_note_sending: 'Sending your note…',
  script_note_not_sent: 'Your note was not sent: {reason}',
  script_note_connection_failed: 'Your note was not sent: the connection failed. Please try again.',

  // An order's title when none is given (orders/service.ts)
  order_default_video_title: 'A video message from {sender_name}',

  // E-mails
  email_hi_sender: 'Hi {sender_name},',
  email_hi_recipient: 'Hi {recipient_name},',
  email_quoted_title: '“{video_title}”',
  email_or_open_link: 'Or open this link:',
  email_signature: '— {store_name}',
  email_recipient_video_subject: '{sender_name} sent you a video message',
  email_recipient_video_preheader: '{sender_name} recorded a video message to go with your package from {store_name}.',
  email_recipient_video_preheader__gift:
    '{sender_name} recorded a video message to go with your gift from {store_name}.',
  email_recipient_video_intro:
    'Your package from {store_name} has arrived, and {sender_name} recorded a video message to go with it:',
  // Variants (`__gift`, `__now`, `__date`) are said when the package has not arrived (templates.ts occasionOf).
  email_recipient_video_intro__gift:
    '{sender_name} recorded a video message for you, to go with your gift from {store_name}:',
  email_recipient_video_play_alt: 'Play the video message from {sender_name}',
  email_recipient_video_play_title: 'Play the video message',
  email_recipient_video_play: 'Play',
  email_recipient_video_from: 'A video message from {sender_name}',
  email_recipient_video_watch: 'Watch the video',
  email_recipient_video_watch_here: 'Watch it here:',
  email_recipient_video_enjoy: 'Enjoy!',
  email_record_link_subject: 'Record your video message for {recipient_name}',
  email_record_link_preheader:
    'Thanks for your order from {store_name}. Record the video message for {recipient_name}.',
  email_record_link_intro: 'Thanks for your order. Record the video message for {recipient_name}:',
  email_record_link_intro_text: 'Thanks for your order. Record the video message for {recipient_name} here:',
  email_record_link_button: 'Record your video',
  email_record_link_then: 'We’ll send it to them the moment the package arrives.',
  email_record_link_then__now: 'We’ll send it to them as soon as it is ready.',
  email_record_link_then__date: 'We’ll send it to them on the day chosen for it.',
  email_needs_recipient_subject: 'Who is your video message for? Record it and tell us',
  email_needs_recipient_title: 'Who is your video message for?',
  email_needs_recipient_preheader:
    'Your video message from {store_name} needs the recipient’s e-mail address or phone number.',
  email_needs_recipient_intro:
    'Thanks for your order. Your video message came without the recipient’s e-mail address or phone number, so we cannot send it yet. Tell us who it is for, and record the video:',
  email_needs_recipient_intro_text:
    'Thanks for your order. Your video message came without the recipient’s e-mail address or phone number, so we cannot send it yet. On this page you can tell us who it is for and record the video:',
  email_needs_recipient_button: 'Add the recipient and record',
  email_needs_recipient_then: 'Once we know how to reach them, we’ll send it the moment the package arrives.',
  email_needs_recipient_then__now: 'Once we know how to reach them, we’ll send it as soon as it is ready.',
  email_needs_recipient_then__date: 'Once we know how to reach them, we’ll send it on the day chosen for it.',
  email_sent_note_subject: 'Your video message to {recipient_name} was sent',
  email_sent_note_preheader: 'Your package reached {recipient_name}, and your video message went with it.',
  email_sent_note_body:
    'Your package reached {recipient_name}, and we just sent them your video message “{video_title}”.',
  email_sent_note_preheader__gift: 'Your video message went to {recipient_name}.',
  email_sent_note_body__gift: 'We just sent {recipient_name} your video message “{video_title}”.',
  email_sent_note_later: 'We’ll let you know when they watch it.',
  email_viewed_note_subject: '{recipient_name} watched your video message',
  email_viewed_note_preheader: '{recipient_name} just watched “{video_title}”.',
  email_viewed_note_body: '{recipient_name} just watched your video message “{video_title}”.',
  email_thanks_subject: '{recipient_name} sent you a thank-you',
  email_thanks_preheader: '{recipient_name} watched your video message from {store_name} and wrote back.',
  email_thanks_body: '{recipient_name} watched your video message “{video_title}” and sent you a thank-you.',
  email_thanks_note: '“{thanks_note}”',
  email_thanks_play_alt: 'Play the thank-you from {recipient_name}',
  email_thanks_button: 'See the thank-you',
  email_thanks_see_here: 'See it here:',
  email_bounce_subject: 'Your video message to {recipient_name} did not arrive',
  email_bounce_preheader: "{recipient_name}'s mail server sent your video message back. It can be sent again.",
  email_bounce_body:
    'We e-mailed {recipient_name} your video message “{video_title}”, but their mail server sent it back: it never reached their inbox.',
  email_bounce_resend:
    "{store_name} has been told and can send it again, by text message if they have {recipient_name}'s phone number, or to a corrected e-mail address. If you know a better address or number, reply to your order confirmation from {store_name}.",
  email_not_watched_subject: "{recipient_first_name} hasn't watched your video message yet",
  email_not_watched_preheader: 'It may be waiting unseen; {store_name} can send it again.',
  email_not_watched_body:
    "We sent {recipient_first_name} your video message “{video_title}” three days ago, and they haven't opened it yet. It may simply be waiting in a busy inbox, or in a spam folder.",
  email_not_watched_resend:
    'If you think they missed it, contact {store_name}: they can check the address and send it again, to a corrected address or by text message.',

  // SMS: the fullest wording first, each shorter by an optional part (notifications/templates.ts fitSms)
  sms_recipient_video_full:
    '{store_name}: {sender_name} sent you a video message "{video_title}" with your package: {playback_url}',
  sms_recipient_video_short:
    '{store_name}: {sender_name} sent you a video message with your package. Watch it: {playback_url}',
  sms_recipient_video_full__gift:
    '{store_name}: {sender_name} sent you a video message "{video_title}": {playback_url}',
  sms_recipient_video_short__gift: '{store_name}: {sender_name} sent you a video message. Watch it: {playback_url}',
  sms_recipient_video_shortest: '{store_name}: a video message from {sender_name}: {playback_url}',
  sms_not_watched_full:
    "{store_name}: {recipient_first_name} hasn't watched your video message yet. If they missed it, contact {store_name} and we can send it again.",
  sms_not_watched_short:
    "{store_name}: {recipient_first_name} hasn't watched your video yet. Ask us if you'd like it sent again.",
  sms_not_watched_shortest: "{store_name}: {recipient_first_name} hasn't watched your video yet. Ask us to resend it.",
} as const;

export type PhraseKey = keyof typeof en;
export type Phrases = { readonly [K in PhraseKey]: string };

/** The `{name}` placeholders of a phrase, as a union of string literal types. */
type Placeholders<S extends string> = S extends `${string}{${infer Name}}${infer Rest}`
  ? Name | Placeholders<Rest>
  : never;

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** The keys of a translation whose placeholders differ from English's (never when there is none). */
type MismatchedKeys<T extends Phrases> = {
  [K in PhraseKey]: Same<Placeholders<T[K]>, Placeholders<(typeof en)[K]>> extends true ? never : K;
}[PhraseKey];

/**
 * Compiles only when `T` has English's placeholders in every phrase: otherwise `true` is not
 * assignable to the union of the keys that differ, and the compiler's message names them.
 */
type SamePlaceholdersAsEnglish<T extends Phrases> = [MismatchedKeys<T>] extends [never] ? true : MismatchedKeys<T>;

const nb = '\u00a0';

const fr = {
  page_not_found_title: 'Message vidéo introuvable',
  page_not_found_heading: 'Nous ne trouvons pas ce message vidéo',
  page_not_found_body: `Le lien est peut-être incomplet, ou le message a été retiré. Vérifiez que vous avez ouvert le lien en entier depuis votre e-mail ou votre SMS.`,
  page_video_message: 'Message vidéo',
  page_quoted_title: `«${nb}{video_title}${nb}»`,
  page_unnamed_recipient: 'votre destinataire',
  page_record_closed_heading: 'Ce message vidéo ne peut plus être enregistré',
  page_record_closed_cancelled: 'La commande a été annulée.',
  page_record_closed_sent: 'Votre vidéo a déjà été envoyée à {recipient_name}.',
  page_record_title: 'Enregistrez une vidéo pour {recipient_name}',
  page_record_title_no_recipient: 'Enregistrez un message vidéo',
  page_record_heading: 'Enregistrez un message vidéo pour {recipient_name}',
  page_record_replaces: 'Vous avez déjà envoyé une vidéo ; une nouvelle la remplace tant qu’elle n’est pas partie.',
  page_record_failed: `La dernière vidéo envoyée n’a pas pu être utilisée${nb}: {reason} Enregistrez ou choisissez-en une autre.`,
  page_record_failed_generic: 'le fichier est peut-être abîmé, trop long, trop court ou n’est pas une vidéo.',
  page_record_failed_kept: `La dernière vidéo envoyée n’a pas pu être utilisée${nb}: {reason} Celle envoyée avant partira quand même${nb}; vous pouvez réessayer.`,
  page_record_camera_preview: 'Aperçu de la caméra',
  page_record_your_recording: 'Votre enregistrement',
  page_record_use_camera: 'Utiliser la caméra',
  page_record_start: 'Lancer l’enregistrement',
  page_record_stop: 'Arrêter l’enregistrement',
  page_record_choose_file: 'Choisir une vidéo',
  page_record_send: 'Envoyer la vidéo',
  page_record_limit: `Jusqu’à {duration}.`,
  page_record_progress: 'Progression de l’envoi',
  page_recipient_heading: `À qui s’adresse votre message vidéo${nb}?`,
  page_recipient_intro: `Votre commande ne dit pas comment joindre le destinataire. Dites-le-nous, et nous lui enverrons «${nb}{video_title}${nb}» à l’arrivée du cadeau.`,
  page_recipient_name: 'Son nom',
  page_recipient_email: 'Son adresse e-mail',
  page_recipient_phone: 'Son numéro de mobile (pour un SMS)',
  page_recipient_save: 'Enregistrer le destinataire',
  page_watch_unavailable: 'Ce message vidéo n’est plus disponible',
  page_watch_on_its_way: 'Un message vidéo de {sender_name} est en route. Revenez un peu plus tard.',
  page_watch_from: 'Un message vidéo de {sender_name}, avec un cadeau de {store_name}',
  page_watch_sent_on: 'Envoyé le {date}',
  page_watch_play: 'Lire le message vidéo',
  page_next_now: '{recipient_name} reçoit votre vidéo dès que vous l’envoyez.',
  page_next_on_date: '{recipient_name} reçoit votre vidéo le {date}.',
  page_next_on_store_day: '{recipient_name} reçoit votre vidéo le jour choisi par la boutique.',
  page_next_arrived: `Le cadeau est arrivé${nb}: {recipient_name} reçoit votre vidéo dès que vous l’envoyez.`,
  page_next_package_about: '{recipient_name} reçoit votre vidéo à l’arrivée du colis, vers le {date}.',
  page_next_package: '{recipient_name} reçoit votre vidéo à l’arrivée du colis.',
  page_thanks_heading: 'Dites merci',
  page_thanks_invite:
    'Enregistrez une courte vidéo ou écrivez un mot en retour à {sender_name}. Nous le lui envoyons par e-mail.',
  page_thanks_send_video: 'Envoyer la vidéo de remerciement',
  page_thanks_note_label: 'Ou écrivez un mot',
  page_thanks_note_hint: 'Jusqu’à {max_chars} caractères.',
  page_thanks_needs_script:
    'Pour répondre par une vidéo ou un mot, ouvrez cette page dans un navigateur où JavaScript est activé.',
  page_thanks_send_note: 'Envoyer le mot',
  page_thanks_received_now: `Merci${nb}! Votre remerciement est en route vers {sender_name}.`,
  page_thanks_received_one_minute: `Merci${nb}! {sender_name} recevra votre remerciement dans une minute environ. D’ici là, vous pouvez le remplacer ici.`,
  page_thanks_received_minutes: `Merci${nb}! {sender_name} recevra votre remerciement dans {minutes} minutes environ. D’ici là, vous pouvez le remplacer ici.`,
  page_thanks_waiting_video:
    'Votre vidéo de remerciement est en route vers {sender_name}. Tant qu’elle n’est pas partie, vous pouvez la remplacer ci-dessous.',
  page_thanks_waiting_note:
    'Votre mot de remerciement est en route vers {sender_name}. Tant qu’il n’est pas parti, vous pouvez le remplacer ci-dessous.',
  page_thanks_no_sender_email: `Votre remerciement est enregistré, mais la boutique n’a pas d’adresse e-mail pour {sender_name}${nb}: nous ne pouvons donc pas l’envoyer.`,
  page_thanks_sent_video: 'Votre vidéo de remerciement a été envoyée à {sender_name}.',
  page_thanks_sent_note: 'Votre mot de remerciement a été envoyé à {sender_name}.',
  page_thanks_title: 'Un merci de {recipient_name}',
  page_thanks_intro: `{recipient_name} a regardé votre message vidéo «${nb}{video_title}${nb}», envoyé avec un cadeau de {store_name}, et vous a répondu${nb}:`,
  page_thanks_video_label: 'Vidéo de remerciement de {recipient_name}',
  page_thanks_note_from: 'Le mot de {recipient_name}',
  page_thanks_watch_gift: 'Revoir votre message vidéo',
  page_thanks_visit_store: 'Visiter {store_name}',
  page_thanks_not_found_title: 'Remerciement introuvable',
  page_thanks_not_found_heading: 'Nous ne trouvons pas ce remerciement',
  page_thanks_not_found_body: 'Le lien est peut-être incomplet, ou le remerciement a été retiré.',
  page_transcript_label: 'Ce que vous dites (affiché en sous-titres)',
  page_transcript_hint:
    'Facultatif. Écrivez votre message, et le destinataire pourra le lire en sous-titres pendant qu’il regarde. Jusqu’à {max_chars} caractères.',
  page_captions_label: 'Sous-titres',

  script_wrong_type: 'Choisissez une vidéo MP4, WebM ou QuickTime (.mov).',
  script_empty: 'Cette vidéo est vide. Veuillez réessayer.',
  script_too_large: `Ce fichier vidéo est trop lourd pour sa durée (la limite est de {megabytes} Mo)${nb}: il a été enregistré en très haute qualité. Enregistrez-le de nouveau en HD (1080p) plutôt qu’en 4K, ou enregistrez-en un plus court.`,
  script_watch_then_send: `Regardez votre vidéo, puis appuyez sur «${nb}Envoyer la vidéo${nb}».`,
  script_too_long: `Cette vidéo dure {duration}${nb}; un message vidéo peut durer jusqu’à {limit}. Choisissez ou enregistrez-en une plus courte.`,
  script_too_short: `Cette vidéo dure moins d’une seconde${nb}: trop peu pour un message. Enregistrez ou choisissez-en une plus longue.`,
  script_timer: '{elapsed} / {limit} — encore {left}',
  script_camera_failed: 'Impossible de démarrer votre caméra. Vous pouvez choisir une vidéo à la place.',
  script_camera_denied:
    'Votre navigateur n’a pas autorisé cette page à utiliser la caméra et le micro. Autorisez-les (l’icône de caméra près de la barre d’adresse), puis réessayez, ou choisissez une vidéo à la place.',
  script_camera_missing: 'Aucune caméra ni aucun micro n’a été trouvé. Vous pouvez choisir une vidéo à la place.',
  script_camera_busy:
    'Votre caméra est utilisée par une autre application, ou n’a pas pu démarrer. Fermez l’autre application et réessayez, ou choisissez une vidéo à la place.',
  script_too_many_uploads:
    'Trop de vidéos ont été envoyées pour ce message dans la dernière heure. Réessayez plus tard.',
  script_camera_ready: `Caméra prête. Appuyez sur «${nb}Lancer l’enregistrement${nb}» quand vous voulez.`,
  script_record_again: 'Recommencer',
  script_recording: 'Enregistrement… il s’arrête tout seul à {limit}.',
  script_sending: 'Envoi de votre vidéo…',
  script_received: `Merci${nb}! Votre vidéo est bien reçue. Nous la préparons pour qu’elle se lise sur tout téléphone ou ordinateur, et vous pouvez fermer cette page.`,
  script_not_sent: `Votre vidéo n’a pas été envoyée${nb}: {reason}`,
  script_went_wrong: 'Un problème est survenu ({status}).',
  script_connection_failed: `Votre vidéo n’a pas été envoyée${nb}: la connexion a échoué. Veuillez réessayer.`,
  script_reconnecting: 'La connexion a été coupée. L’envoi reprend là où il s’était arrêté…',
  script_ready: `Votre vidéo est prête${nb}: elle se lit sur tout téléphone ou ordinateur.`,
  script_thanks_preparing:
    'Votre vidéo est bien arrivée. Nous la préparons pour qu’elle se lise sur tout téléphone ou ordinateur…',
  script_processing_failed: `Nous n’avons pas pu préparer votre vidéo${nb}: {reason} Enregistrez-la de nouveau ou choisissez une autre vidéo.`,
  script_processing_gone: `Nous ne pouvons plus suivre cette vidéo${nb}: une plus récente l’a remplacée, ou le message a été supprimé. Rechargez la page pour voir où en est votre vidéo.`,
  script_give_name: 'Indiquez son nom.',
  script_give_contact: 'Indiquez son adresse e-mail ou son numéro de mobile (ou les deux).',
  script_email_wrong: 'Cette adresse e-mail ne semble pas correcte.',
  script_saving: 'Enregistrement…',
  script_saved: 'C’est noté. Enregistrez maintenant votre vidéo ci-dessous.',
  script_recipient_not_saved: `Le destinataire n’a pas été enregistré${nb}: la connexion a échoué. Veuillez réessayer.`,
  script_transcript_not_saved: 'Ses sous-titres n’ont pas pu être enregistrés.',
  script_note_empty: 'Écrivez d’abord quelques mots.',
  script_note_too_long: 'Votre mot peut compter jusqu’à {max_chars} caractères.',
  script_note_sending: 'Envoi de votre mot…',
  script_note_not_sent: `Votre mot n’a pas été envoyé${nb}: {reason}`,
  script_note_connection_failed: `Votre mot n’a pas été envoyé${nb}: la connexion a échoué. Veuillez réessayer.`,

  order_default_video_title: 'Un message vidéo de {sender_name}',
  email_hi_sender: 'Bonjour {sender_name},',
  email_hi_recipient: 'Bonjour {recipient_name},',
  email_quoted_title: `«${nb}{video_title}${nb}»`,
  email_or_open_link: `Ou ouvrez ce lien${nb}:`,
  email_signature: '— {store_name}',
  email_recipient_video_subject: '{sender_name} vous a envoyé un message vidéo',
  email_recipient_video_preheader:
    '{sender_name} a enregistré un message vidéo pour accompagner votre colis de {store_name}.',
  email_recipient_video_preheader__gift:
    '{sender_name} a enregistré un message vidéo pour accompagner votre cadeau de {store_name}.',
  email_recipient_video_intro: `Votre colis de {store_name} est arrivé, et {sender_name} a enregistré un message vidéo pour l’accompagner${nb}:`,
  email_recipient_video_intro__gift: `{sender_name} a enregistré un message vidéo pour vous, pour accompagner votre cadeau de {store_name}${nb}:`,
  email_recipient_video_play_alt: 'Regarder le message vidéo de {sender_name}',
  email_recipient_video_play_title: 'Regarder le message vidéo',
  email_recipient_video_play: 'Lecture',
  email_recipient_video_from: 'Un message vidéo de {sender_name}',
  email_recipient_video_watch: 'Regarder la vidéo',
  email_recipient_video_watch_here: `Regardez-le ici${nb}:`,
  email_recipient_video_enjoy: `Bon visionnage${nb}!`,
  email_record_link_subject: 'Enregistrez votre message vidéo pour {recipient_name}',
  email_record_link_preheader:
    'Merci pour votre commande chez {store_name}. Enregistrez le message vidéo pour {recipient_name}.',
  email_record_link_intro: `Merci pour votre commande. Enregistrez le message vidéo pour {recipient_name}${nb}:`,
  email_record_link_intro_text: `Merci pour votre commande. Enregistrez le message vidéo pour {recipient_name} ici${nb}:`,
  email_record_link_button: 'Enregistrer votre vidéo',
  email_record_link_then: 'Nous la lui enverrons dès l’arrivée du colis.',
  email_record_link_then__now: 'Nous la lui enverrons dès qu’elle sera prête.',
  email_record_link_then__date: 'Nous la lui enverrons le jour choisi.',
  email_needs_recipient_subject: `À qui s’adresse votre message vidéo${nb}? Enregistrez-le et dites-le-nous`,
  email_needs_recipient_title: `À qui s’adresse votre message vidéo${nb}?`,
  email_needs_recipient_preheader:
    'Pour votre message vidéo de {store_name}, il nous manque l’adresse e-mail ou le numéro de téléphone du destinataire.',
  email_needs_recipient_intro: `Merci pour votre commande. Votre message vidéo est arrivé sans l’adresse e-mail ni le numéro de téléphone du destinataire, nous ne pouvons donc pas encore l’envoyer. Dites-nous à qui il s’adresse, et enregistrez la vidéo${nb}:`,
  email_needs_recipient_intro_text: `Merci pour votre commande. Votre message vidéo est arrivé sans l’adresse e-mail ni le numéro de téléphone du destinataire, nous ne pouvons donc pas encore l’envoyer. Sur cette page, dites-nous à qui il s’adresse et enregistrez la vidéo${nb}:`,
  email_needs_recipient_button: 'Ajouter le destinataire et enregistrer',
  email_needs_recipient_then:
    'Dès que nous saurons comment le joindre, nous lui enverrons la vidéo à l’arrivée du colis.',
  email_needs_recipient_then__now:
    'Dès que nous saurons comment le joindre, nous lui enverrons la vidéo dès qu’elle sera prête.',
  email_needs_recipient_then__date:
    'Dès que nous saurons comment le joindre, nous lui enverrons la vidéo le jour choisi.',
  email_sent_note_subject: 'Votre message vidéo pour {recipient_name} est parti',
  email_sent_note_preheader: 'Votre colis est arrivé chez {recipient_name}, et votre message vidéo avec lui.',
  email_sent_note_body: `Votre colis est arrivé chez {recipient_name}, et nous venons de lui envoyer votre message vidéo «${nb}{video_title}${nb}».`,
  email_sent_note_preheader__gift: 'Votre message vidéo est parti pour {recipient_name}.',
  email_sent_note_body__gift: `Nous venons d’envoyer à {recipient_name} votre message vidéo «${nb}{video_title}${nb}».`,
  email_sent_note_later: 'Nous vous dirons quand il aura été regardé.',
  email_viewed_note_subject: '{recipient_name} a regardé votre message vidéo',
  email_viewed_note_preheader: `{recipient_name} vient de regarder «${nb}{video_title}${nb}».`,
  email_viewed_note_body: `{recipient_name} vient de regarder votre message vidéo «${nb}{video_title}${nb}».`,
  email_thanks_subject: '{recipient_name} vous a envoyé un remerciement',
  email_thanks_preheader: '{recipient_name} a regardé votre message vidéo de {store_name} et vous a répondu.',
  email_thanks_body: `{recipient_name} a regardé votre message vidéo «${nb}{video_title}${nb}» et vous a envoyé un remerciement.`,
  email_thanks_note: `«${nb}{thanks_note}${nb}»`,
  email_thanks_play_alt: 'Regarder le remerciement de {recipient_name}',
  email_thanks_button: 'Voir le remerciement',
  email_thanks_see_here: `Voyez-le ici${nb}:`,
  email_bounce_subject: 'Votre message vidéo pour {recipient_name} n’est pas arrivé',
  email_bounce_preheader:
    'Le serveur de messagerie de {recipient_name} a renvoyé votre message vidéo. Il peut être envoyé à nouveau.',
  email_bounce_body: `Nous avons envoyé par e-mail votre message vidéo «${nb}{video_title}${nb}» à {recipient_name}, mais son serveur de messagerie l’a renvoyé${nb}: il n’est jamais arrivé dans sa boîte de réception.`,
  email_bounce_resend:
    '{store_name} a été prévenu et peut l’envoyer à nouveau, par SMS si la boutique a le numéro de {recipient_name}, ou à une adresse e-mail corrigée. Si vous connaissez une meilleure adresse ou un meilleur numéro, répondez à la confirmation de votre commande chez {store_name}.',
  email_not_watched_subject: '{recipient_first_name} n’a pas encore regardé votre message vidéo',
  email_not_watched_preheader: `Il attend peut-être sans avoir été vu${nb}; {store_name} peut l’envoyer à nouveau.`,
  email_not_watched_body: `Nous avons envoyé votre message vidéo «${nb}{video_title}${nb}» à {recipient_first_name} il y a trois jours, et il n’a pas encore été ouvert. Il attend peut-être simplement dans une boîte de réception chargée, ou dans les courriers indésirables.`,
  email_not_watched_resend: `Si vous pensez qu’il est passé inaperçu, contactez {store_name}${nb}: la boutique peut vérifier l’adresse et l’envoyer à nouveau, à une adresse corrigée ou par SMS.`,

  sms_recipient_video_full:
    '{store_name} : {sender_name} vous envoie un message vidéo "{video_title}" avec votre colis : {playback_url}',
  sms_recipient_video_short:
    '{store_name} : {sender_name} vous envoie un message vidéo avec votre colis : {playback_url}',
  sms_recipient_video_full__gift:
    '{store_name} : {sender_name} vous envoie un message vidéo "{video_title}" : {playback_url}',
  sms_recipient_video_short__gift: '{store_name} : {sender_name} vous envoie un message vidéo : {playback_url}',
  sms_recipient_video_shortest: '{store_name} : un message vidéo de {sender_name} : {playback_url}',
  sms_not_watched_full:
    "{store_name} : {recipient_first_name} n'a pas encore regardé votre message vidéo. S'il l'a manqué, contactez {store_name} pour un nouvel envoi.",
  sms_not_watched_short:
    "{store_name} : {recipient_first_name} n'a pas encore regardé votre vidéo. Demandez-nous de la renvoyer si besoin.",
  sms_not_watched_shortest:
    "{store_name} : {recipient_first_name} n'a pas encore vu votre vidéo. Demandez-nous de la renvoyer.",
} as const satisfies Phrases;
const frHasEnglishPlaceholders: SamePlaceholdersAsEnglish<typeof fr> = true;

const es = {
  page_not_found_title: 'Videomensaje no encontrado',
  page_not_found_heading: 'No encontramos este videomensaje',
  page_not_found_body:
    'Puede que el enlace esté incompleto o que el mensaje se haya eliminado. Comprueba que abriste el enlace completo desde tu correo o tu SMS.',
  page_video_message: 'Videomensaje',
  page_quoted_title: '«{video_title}»',
  page_unnamed_recipient: 'tu destinatario',
  page_record_closed_heading: 'Este videomensaje ya no se puede grabar',
  page_record_closed_cancelled: 'El pedido se canceló.',
  page_record_closed_sent: 'Tu video ya se envió a {recipient_name}.',
  page_record_title: 'Graba un video para {recipient_name}',
  page_record_title_no_recipient: 'Graba un videomensaje',
  page_record_heading: 'Graba un videomensaje para {recipient_name}',
  page_record_replaces: 'Ya enviaste un video; uno nuevo lo reemplaza mientras no se haya enviado.',
  page_record_failed: 'El último video que enviaste no se pudo usar: {reason} Graba o elige otro.',
  page_record_failed_generic: 'puede que esté dañado, sea demasiado largo o corto, o no sea un video.',
  page_record_failed_kept:
    'El último video que enviaste no se pudo usar: {reason} El que enviaste antes se enviará igual; puedes intentarlo de nuevo.',
  page_record_camera_preview: 'Vista previa de la cámara',
  page_record_your_recording: 'Tu grabación',
  page_record_use_camera: 'Usar la cámara',
  page_record_start: 'Empezar a grabar',
  page_record_stop: 'Detener la grabación',
  page_record_choose_file: 'Elegir un video',
  page_record_send: 'Enviar video',
  page_record_limit: 'Hasta {duration} de duración.',
  page_record_progress: 'Progreso del envío',
  page_recipient_heading: '¿Para quién es tu videomensaje?',
  page_recipient_intro:
    'Tu pedido no indicaba cómo contactar con el destinatario. Dínoslo y le enviaremos «{video_title}» cuando llegue el regalo.',
  page_recipient_name: 'Su nombre',
  page_recipient_email: 'Su correo electrónico',
  page_recipient_phone: 'Su número de móvil (para un SMS)',
  page_recipient_save: 'Guardar destinatario',
  page_watch_unavailable: 'Este videomensaje ya no está disponible',
  page_watch_on_its_way: 'Un videomensaje de {sender_name} está en camino. Vuelve a mirar en un rato.',
  page_watch_from: 'Un videomensaje de {sender_name}, con un regalo de {store_name}',
  page_watch_sent_on: 'Enviado el {date}',
  page_watch_play: 'Reproducir el videomensaje',
  page_next_now: '{recipient_name} recibe tu video en cuanto lo envíes.',
  page_next_on_date: '{recipient_name} recibe tu video el {date}.',
  page_next_on_store_day: '{recipient_name} recibe tu video el día que fijó la tienda.',
  page_next_arrived: 'El regalo ya llegó: {recipient_name} recibe tu video en cuanto lo envíes.',
  page_next_package_about: '{recipient_name} recibe tu video cuando llegue el paquete, hacia el {date}.',
  page_next_package: '{recipient_name} recibe tu video cuando llegue el paquete.',
  page_thanks_heading: 'Da las gracias',
  page_thanks_invite:
    'Graba un video corto o escribe una nota de respuesta a {sender_name}. Se la enviamos por correo.',
  page_thanks_send_video: 'Enviar video de agradecimiento',
  page_thanks_note_label: 'O escribe una nota',
  page_thanks_note_hint: 'Hasta {max_chars} caracteres.',
  page_thanks_needs_script:
    'Para responder con un vídeo o una nota, abre esta página en un navegador con JavaScript activado.',
  page_thanks_send_note: 'Enviar nota',
  page_thanks_received_now: '¡Gracias! Tu agradecimiento va de camino a {sender_name}.',
  page_thanks_received_one_minute:
    '¡Gracias! {sender_name} recibirá tu agradecimiento en un minuto más o menos. Hasta entonces puedes reemplazarlo aquí.',
  page_thanks_received_minutes:
    '¡Gracias! {sender_name} recibirá tu agradecimiento en unos {minutes} minutos. Hasta entonces puedes reemplazarlo aquí.',
  page_thanks_waiting_video:
    'Tu video de agradecimiento va de camino a {sender_name}. Hasta que se envíe, puedes reemplazarlo aquí abajo.',
  page_thanks_waiting_note:
    'Tu nota de agradecimiento va de camino a {sender_name}. Hasta que se envíe, puedes reemplazarla aquí abajo.',
  page_thanks_no_sender_email:
    'Tu agradecimiento se guardó, pero la tienda no tiene el correo electrónico de {sender_name}, así que no podemos enviarlo.',
  page_thanks_sent_video: 'Tu video de agradecimiento se envió a {sender_name}.',
  page_thanks_sent_note: 'Tu nota de agradecimiento se envió a {sender_name}.',
  page_thanks_title: 'Un agradecimiento de {recipient_name}',
  page_thanks_intro:
    '{recipient_name} vio tu videomensaje «{video_title}», enviado con un regalo de {store_name}, y te respondió:',
  page_thanks_video_label: 'Video de agradecimiento de {recipient_name}',
  page_thanks_note_from: 'Nota de {recipient_name}',
  page_thanks_watch_gift: 'Volver a ver tu videomensaje',
  page_thanks_visit_store: 'Visitar {store_name}',
  page_thanks_not_found_title: 'Agradecimiento no encontrado',
  page_thanks_not_found_heading: 'No encontramos este agradecimiento',
  page_thanks_not_found_body: 'Puede que el enlace esté incompleto o que el agradecimiento se haya eliminado.',
  page_transcript_label: 'Lo que dices (se muestra como subtítulos)',
  page_transcript_hint:
    'Opcional. Escribe tu mensaje y el destinatario podrá leerlo como subtítulos mientras ve el video. Hasta {max_chars} caracteres.',
  page_captions_label: 'Subtítulos',

  script_wrong_type: 'Elige un video MP4, WebM o QuickTime (.mov).',
  script_empty: 'Ese video está vacío. Inténtalo de nuevo.',
  script_too_large:
    'Ese archivo de video es demasiado grande para su duración (el límite es de {megabytes} MB): se grabó con una calidad muy alta. Grábalo de nuevo en HD (1080p) en lugar de 4K, o graba uno más corto.',
  script_watch_then_send: 'Mira tu video y pulsa «Enviar video».',
  script_too_long: 'Ese video dura {duration}; un videomensaje puede durar hasta {limit}. Elige o graba uno más corto.',
  script_too_short: 'Ese video dura menos de un segundo: muy poco para un mensaje. Graba o elige uno más largo.',
  script_timer: '{elapsed} / {limit} — quedan {left}',
  script_camera_failed: 'No pudimos iniciar tu cámara. Puedes elegir un video en su lugar.',
  script_camera_denied:
    'Tu navegador no permitió que esta página use la cámara y el micrófono. Permítelos (el icono de cámara junto a la barra de direcciones) y vuelve a intentarlo, o elige un video en su lugar.',
  script_camera_missing: 'No se encontró ninguna cámara ni micrófono. Puedes elegir un video en su lugar.',
  script_camera_busy:
    'Tu cámara la está usando otra aplicación, o no pudo iniciarse. Cierra la otra aplicación y vuelve a intentarlo, o elige un video en su lugar.',
  script_too_many_uploads:
    'Se enviaron demasiados videos para este mensaje en la última hora. Vuelve a intentarlo más tarde.',
  script_camera_ready: 'Cámara lista. Pulsa «Empezar a grabar» cuando quieras.',
  script_record_again: 'Grabar de nuevo',
  script_recording: 'Grabando… se detiene sola al llegar a {limit}.',
  script_sending: 'Enviando tu video…',
  script_received:
    '¡Gracias! Recibimos tu video. Lo estamos preparando para que se vea en cualquier teléfono o computadora, y puedes cerrar esta página.',
  script_not_sent: 'Tu video no se envió: {reason}',
  script_went_wrong: 'Algo salió mal ({status}).',
  script_connection_failed: 'Tu video no se envió: falló la conexión. Inténtalo de nuevo.',
  script_reconnecting: 'Se cortó la conexión. Seguimos desde donde se detuvo…',
  script_ready: 'Tu video está listo: se ve en cualquier teléfono o computadora.',
  script_thanks_preparing: 'Tu video llegó. Lo estamos preparando para que se vea en cualquier teléfono o computadora…',
  script_processing_failed: 'No pudimos preparar tu video: {reason} Grábalo de nuevo o elige otro video.',
  script_processing_gone:
    'Ya no podemos seguir este video: uno más reciente lo reemplazó, o el mensaje se eliminó. Recarga la página para ver en qué estado está tu video.',
  script_give_name: 'Indica su nombre.',
  script_give_contact: 'Indica su correo electrónico o su número de móvil (o los dos).',
  script_email_wrong: 'Ese correo electrónico no parece correcto.',
  script_saving: 'Guardando…',
  script_saved: 'Guardado. Ahora graba tu video aquí abajo.',
  script_recipient_not_saved: 'El destinatario no se guardó: falló la conexión. Inténtalo de nuevo.',
  script_transcript_not_saved: 'No se pudieron guardar sus subtítulos.',
  script_note_empty: 'Escribe primero unas palabras.',
  script_note_too_long: 'La nota puede tener hasta {max_chars} caracteres.',
  script_note_sending: 'Enviando tu nota…',
  script_note_not_sent: 'Tu nota no se envió: {reason}',
  script_note_connection_failed: 'Tu nota no se envió: falló la conexión. Inténtalo de nuevo.',

  order_default_video_title: 'Un videomensaje de {sender_name}',
  email_hi_sender: 'Hola, {sender_name}:',
  email_hi_recipient: 'Hola, {recipient_name}:',
  email_quoted_title: '«{video_title}»',
  email_or_open_link: 'O abre este enlace:',
  email_signature: '— {store_name}',
  email_recipient_video_subject: '{sender_name} te envió un videomensaje',
  email_recipient_video_preheader: '{sender_name} grabó un videomensaje para acompañar tu paquete de {store_name}.',
  email_recipient_video_preheader__gift:
    '{sender_name} grabó un videomensaje para acompañar tu regalo de {store_name}.',
  email_recipient_video_intro:
    'Tu paquete de {store_name} ya llegó, y {sender_name} grabó un videomensaje para acompañarlo:',
  email_recipient_video_intro__gift:
    '{sender_name} grabó un videomensaje para ti, para acompañar tu regalo de {store_name}:',
  email_recipient_video_play_alt: 'Reproducir el videomensaje de {sender_name}',
  email_recipient_video_play_title: 'Reproducir el videomensaje',
  email_recipient_video_play: 'Reproducir',
  email_recipient_video_from: 'Un videomensaje de {sender_name}',
  email_recipient_video_watch: 'Ver el video',
  email_recipient_video_watch_here: 'Míralo aquí:',
  email_recipient_video_enjoy: '¡Que lo disfrutes!',
  email_record_link_subject: 'Graba tu videomensaje para {recipient_name}',
  email_record_link_preheader: 'Gracias por tu pedido en {store_name}. Graba el videomensaje para {recipient_name}.',
  email_record_link_intro: 'Gracias por tu pedido. Graba el videomensaje para {recipient_name}:',
  email_record_link_intro_text: 'Gracias por tu pedido. Graba aquí el videomensaje para {recipient_name}:',
  email_record_link_button: 'Grabar tu video',
  email_record_link_then: 'Se lo enviaremos en cuanto llegue el paquete.',
  email_record_link_then__now: 'Se lo enviaremos en cuanto esté listo.',
  email_record_link_then__date: 'Se lo enviaremos el día elegido.',
  email_needs_recipient_subject: '¿Para quién es tu videomensaje? Grábalo y cuéntanos',
  email_needs_recipient_title: '¿Para quién es tu videomensaje?',
  email_needs_recipient_preheader:
    'A tu videomensaje de {store_name} le falta el correo electrónico o el teléfono del destinatario.',
  email_needs_recipient_intro:
    'Gracias por tu pedido. Tu videomensaje llegó sin el correo electrónico ni el teléfono del destinatario, así que aún no podemos enviarlo. Dinos para quién es y graba el video:',
  email_needs_recipient_intro_text:
    'Gracias por tu pedido. Tu videomensaje llegó sin el correo electrónico ni el teléfono del destinatario, así que aún no podemos enviarlo. En esta página puedes decirnos para quién es y grabar el video:',
  email_needs_recipient_button: 'Añadir destinatario y grabar',
  email_needs_recipient_then: 'En cuanto sepamos cómo contactarle, se lo enviaremos cuando llegue el paquete.',
  email_needs_recipient_then__now: 'En cuanto sepamos cómo contactarle, se lo enviaremos en cuanto esté listo.',
  email_needs_recipient_then__date: 'En cuanto sepamos cómo contactarle, se lo enviaremos el día elegido.',
  email_sent_note_subject: 'Tu videomensaje para {recipient_name} se envió',
  email_sent_note_preheader: 'Tu paquete llegó a {recipient_name}, y tu videomensaje con él.',
  email_sent_note_body: 'Tu paquete llegó a {recipient_name}, y acabamos de enviarle tu videomensaje «{video_title}».',
  email_sent_note_preheader__gift: 'Tu videomensaje se envió a {recipient_name}.',
  email_sent_note_body__gift: 'Acabamos de enviar a {recipient_name} tu videomensaje «{video_title}».',
  email_sent_note_later: 'Te avisaremos cuando lo vea.',
  email_viewed_note_subject: '{recipient_name} vio tu videomensaje',
  email_viewed_note_preheader: '{recipient_name} acaba de ver «{video_title}».',
  email_viewed_note_body: '{recipient_name} acaba de ver tu videomensaje «{video_title}».',
  email_thanks_subject: '{recipient_name} te envió un agradecimiento',
  email_thanks_preheader: '{recipient_name} vio tu videomensaje de {store_name} y te respondió.',
  email_thanks_body: '{recipient_name} vio tu videomensaje «{video_title}» y te envió un agradecimiento.',
  email_thanks_note: '«{thanks_note}»',
  email_thanks_play_alt: 'Reproducir el agradecimiento de {recipient_name}',
  email_thanks_button: 'Ver el agradecimiento',
  email_thanks_see_here: 'Míralo aquí:',
  email_bounce_subject: 'Tu videomensaje para {recipient_name} no llegó',
  email_bounce_preheader:
    'El servidor de correo de {recipient_name} devolvió tu videomensaje. Se puede enviar de nuevo.',
  email_bounce_body:
    'Enviamos por correo tu videomensaje «{video_title}» a {recipient_name}, pero su servidor de correo lo devolvió: nunca llegó a su bandeja de entrada.',
  email_bounce_resend:
    '{store_name} ya lo sabe y puede enviarlo de nuevo, por SMS si tiene el teléfono de {recipient_name}, o a un correo electrónico corregido. Si conoces una dirección o un número mejor, responde a la confirmación de tu pedido de {store_name}.',
  email_not_watched_subject: '{recipient_first_name} aún no ha visto tu videomensaje',
  email_not_watched_preheader: 'Puede que esté esperando sin abrir; {store_name} puede enviarlo de nuevo.',
  email_not_watched_body:
    'Hace tres días enviamos a {recipient_first_name} tu videomensaje «{video_title}», y aún no lo ha abierto. Puede que simplemente esté esperando en una bandeja de entrada llena, o en la carpeta de spam.',
  email_not_watched_resend:
    'Si crees que no lo ha visto, contacta con {store_name}: pueden revisar la dirección y enviarlo de nuevo, a una dirección corregida o por SMS.',

  sms_recipient_video_full:
    '{store_name}: {sender_name} te manda un mensaje de video "{video_title}" con tu paquete: {playback_url}',
  sms_recipient_video_short:
    '{store_name}: {sender_name} te manda un mensaje de video con tu paquete. Para verlo: {playback_url}',
  sms_recipient_video_full__gift:
    '{store_name}: {sender_name} te manda un mensaje de video "{video_title}": {playback_url}',
  sms_recipient_video_short__gift:
    '{store_name}: {sender_name} te manda un mensaje de video. Para verlo: {playback_url}',
  sms_recipient_video_shortest: '{store_name}: un mensaje de video de {sender_name}: {playback_url}',
  sms_not_watched_full:
    '{store_name}: {recipient_first_name} no ha visto tu mensaje de video. Escribe a {store_name} si quieres que lo enviemos de nuevo.',
  sms_not_watched_short: '{store_name}: {recipient_first_name} no ha visto tu video. Si quieres, lo enviamos de nuevo.',
  sms_not_watched_shortest: '{store_name}: {recipient_first_name} no ha visto tu video. Lo podemos reenviar.',
} as const satisfies Phrases;
const esHasEnglishPlaceholders: SamePlaceholdersAsEnglish<typeof es> = true;

/** The catalogue: every language's phrases. */
export const CATALOGUE: Readonly<Record<Locale, Phrases>> = { en, fr, es };
void [frHasEnglishPlaceholders, esHasEnglishPlaceholders];

/** The phrase `key` in `locale`, placeholders unfilled. */
export function phraseOf(locale: Locale, key: PhraseKey): string {
  return CATALOGUE[locale][key];
}

export type ScriptPhrases = { readonly [K in Extract<PhraseKey, `script_${string}`>]: string };

/** The keys that start with `prefix` (`script_`, `email_`, `sms_`), typed as such. */
export function keysStartingWith<P extends string>(prefix: P): Array<Extract<PhraseKey, `${P}${string}`>> {
  return (Object.keys(en) as PhraseKey[]).filter((key): key is Extract<PhraseKey, `${P}${string}`> =>
    key.startsWith(prefix),
  );
}
