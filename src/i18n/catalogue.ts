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
 * would make the text UCS-2 (src/notifications/sms-segments.ts); for the same reason the Spanish SMS
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
  page_next_now: '{recipient_name} gets your video as soon as you send it.',
  page_next_on_date: '{recipient_name} gets your video on {date}.',
  page_next_on_store_day: '{recipient_name} gets your video on the day the store set.',
  page_next_arrived: 'The gift has arrived: {recipient_name} gets your video as soon as you send it.',
  page_next_package_about: '{recipient_name} gets your video when the package arrives, about {date}.',
  page_next_package: '{recipient_name} gets your video when the package arrives.',

  // The record page's script
  script_wrong_type: 'Please choose an MP4, WebM or QuickTime (.mov) video.',
  script_empty: 'That video is empty. Please try again.',
  script_too_large: 'That video is too large (the limit is {megabytes} MB). Please record a shorter one.',
  script_watch_then_send: 'Watch your video, then press “Send video”.',
  script_too_long:
    'That video is {duration} long; video messages can be up to {limit}. Please choose or record a shorter one.',
  script_timer: '{elapsed} / {limit} — {left} left',
  script_camera_failed: 'We could not use your camera ({error}). You can choose a video file instead.',
  script_camera_ready: 'Camera ready. Press “Start recording” when you are.',
  script_record_again: 'Record again',
  script_recording: 'Recording… it stops by itself at {limit}.',
  script_sending: 'Sending your video…',
  script_received: 'Thank you! Your video was received. It will be delivered with the gift.',
  script_not_sent: 'Your video was not sent: {reason}',
  script_went_wrong: 'Something went wrong ({status}).',
  script_connection_failed: 'Your video was not sent: the connection failed. Please try again.',
  script_give_name: 'Please give their name.',
  script_give_contact: 'Please give their e-mail address or mobile number (or both).',
  script_email_wrong: 'That e-mail address does not look right.',
  script_saving: 'Saving…',
  script_saved: 'Saved. Now record your video below.',
  script_recipient_not_saved: 'The recipient was not saved: the connection failed. Please try again.',

  // E-mails
  email_hi_sender: 'Hi {sender_name},',
  email_hi_recipient: 'Hi {recipient_name},',
  email_quoted_title: '“{video_title}”',
  email_or_open_link: 'Or open this link:',
  email_signature: '— {store_name}',
  email_recipient_video_subject: '{sender_name} sent you a video message',
  email_recipient_video_preheader: '{sender_name} recorded a video message to go with your package from {store_name}.',
  email_recipient_video_intro:
    'Your package from {store_name} has arrived, and {sender_name} recorded a video message to go with it:',
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
  email_sent_note_subject: 'Your video message to {recipient_name} was sent',
  email_sent_note_preheader: 'Your package reached {recipient_name}, and your video message went with it.',
  email_sent_note_body:
    'Your package reached {recipient_name}, and we just sent them your video message “{video_title}”.',
  email_sent_note_later: 'We’ll let you know when they watch it.',
  email_viewed_note_subject: '{recipient_name} watched your video message',
  email_viewed_note_preheader: '{recipient_name} just watched “{video_title}”.',
  email_viewed_note_body: '{recipient_name} just watched your video message “{video_title}”.',

  // SMS: the fullest wording first, each shorter by an optional part (notifications/templates.ts fitSms)
  sms_recipient_video_full:
    '{store_name}: {sender_name} sent you a video message "{video_title}" with your package: {playback_url}',
  sms_recipient_video_short:
    '{store_name}: {sender_name} sent you a video message with your package. Watch it: {playback_url}',
  sms_recipient_video_shortest: '{store_name}: a video message from {sender_name}: {playback_url}',
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
  page_next_now: '{recipient_name} reçoit votre vidéo dès que vous l’envoyez.',
  page_next_on_date: '{recipient_name} reçoit votre vidéo le {date}.',
  page_next_on_store_day: '{recipient_name} reçoit votre vidéo le jour choisi par la boutique.',
  page_next_arrived: `Le cadeau est arrivé${nb}: {recipient_name} reçoit votre vidéo dès que vous l’envoyez.`,
  page_next_package_about: '{recipient_name} reçoit votre vidéo à l’arrivée du colis, vers le {date}.',
  page_next_package: '{recipient_name} reçoit votre vidéo à l’arrivée du colis.',

  script_wrong_type: 'Choisissez une vidéo MP4, WebM ou QuickTime (.mov).',
  script_empty: 'Cette vidéo est vide. Veuillez réessayer.',
  script_too_large: 'Cette vidéo est trop lourde (la limite est de {megabytes} Mo). Enregistrez-en une plus courte.',
  script_watch_then_send: `Regardez votre vidéo, puis appuyez sur «${nb}Envoyer la vidéo${nb}».`,
  script_too_long: `Cette vidéo dure {duration}${nb}; un message vidéo peut durer jusqu’à {limit}. Choisissez ou enregistrez-en une plus courte.`,
  script_timer: '{elapsed} / {limit} — encore {left}',
  script_camera_failed: 'Impossible d’utiliser votre caméra ({error}). Vous pouvez choisir une vidéo à la place.',
  script_camera_ready: `Caméra prête. Appuyez sur «${nb}Lancer l’enregistrement${nb}» quand vous voulez.`,
  script_record_again: 'Recommencer',
  script_recording: 'Enregistrement… il s’arrête tout seul à {limit}.',
  script_sending: 'Envoi de votre vidéo…',
  script_received: `Merci${nb}! Votre vidéo est bien reçue. Elle sera remise avec le cadeau.`,
  script_not_sent: `Votre vidéo n’a pas été envoyée${nb}: {reason}`,
  script_went_wrong: 'Un problème est survenu ({status}).',
  script_connection_failed: `Votre vidéo n’a pas été envoyée${nb}: la connexion a échoué. Veuillez réessayer.`,
  script_give_name: 'Indiquez son nom.',
  script_give_contact: 'Indiquez son adresse e-mail ou son numéro de mobile (ou les deux).',
  script_email_wrong: 'Cette adresse e-mail ne semble pas correcte.',
  script_saving: 'Enregistrement…',
  script_saved: 'C’est noté. Enregistrez maintenant votre vidéo ci-dessous.',
  script_recipient_not_saved: `Le destinataire n’a pas été enregistré${nb}: la connexion a échoué. Veuillez réessayer.`,

  email_hi_sender: 'Bonjour {sender_name},',
  email_hi_recipient: 'Bonjour {recipient_name},',
  email_quoted_title: `«${nb}{video_title}${nb}»`,
  email_or_open_link: `Ou ouvrez ce lien${nb}:`,
  email_signature: '— {store_name}',
  email_recipient_video_subject: '{sender_name} vous a envoyé un message vidéo',
  email_recipient_video_preheader:
    '{sender_name} a enregistré un message vidéo pour accompagner votre colis de {store_name}.',
  email_recipient_video_intro: `Votre colis de {store_name} est arrivé, et {sender_name} a enregistré un message vidéo pour l’accompagner${nb}:`,
  email_recipient_video_play_alt: 'Regarder le message vidéo de {sender_name}',
  email_recipient_video_play_title: 'Regarder le message vidéo',
  email_recipient_video_play: 'Lecture',
  email_recipient_video_from: 'Un message vidéo de {sender_name}',
  email_recipient_video_watch: 'Regarder la vidéo',
  email_recipient_video_watch_here: `Regardez-la ici${nb}:`,
  email_recipient_video_enjoy: `Bon visionnage${nb}!`,
  email_record_link_subject: 'Enregistrez votre message vidéo pour {recipient_name}',
  email_record_link_preheader:
    'Merci pour votre commande chez {store_name}. Enregistrez le message vidéo pour {recipient_name}.',
  email_record_link_intro: `Merci pour votre commande. Enregistrez le message vidéo pour {recipient_name}${nb}:`,
  email_record_link_intro_text: `Merci pour votre commande. Enregistrez le message vidéo pour {recipient_name} ici${nb}:`,
  email_record_link_button: 'Enregistrer votre vidéo',
  email_record_link_then: 'Nous la lui enverrons dès l’arrivée du colis.',
  email_needs_recipient_subject: `À qui s’adresse votre message vidéo${nb}? Enregistrez-le et dites-le-nous`,
  email_needs_recipient_title: `À qui s’adresse votre message vidéo${nb}?`,
  email_needs_recipient_preheader:
    'Pour votre message vidéo de {store_name}, il nous manque l’adresse e-mail ou le numéro de téléphone du destinataire.',
  email_needs_recipient_intro: `Merci pour votre commande. Votre message vidéo est arrivé sans l’adresse e-mail ni le numéro de téléphone du destinataire, nous ne pouvons donc pas encore l’envoyer. Dites-nous à qui il s’adresse, et enregistrez la vidéo${nb}:`,
  email_needs_recipient_intro_text: `Merci pour votre commande. Votre message vidéo est arrivé sans l’adresse e-mail ni le numéro de téléphone du destinataire, nous ne pouvons donc pas encore l’envoyer. Sur cette page, dites-nous à qui il s’adresse et enregistrez la vidéo${nb}:`,
  email_needs_recipient_button: 'Ajouter le destinataire et enregistrer',
  email_needs_recipient_then:
    'Dès que nous saurons comment le joindre, nous lui enverrons la vidéo à l’arrivée du colis.',
  email_sent_note_subject: 'Votre message vidéo pour {recipient_name} est parti',
  email_sent_note_preheader: 'Votre colis est arrivé chez {recipient_name}, et votre message vidéo avec lui.',
  email_sent_note_body: `Votre colis est arrivé chez {recipient_name}, et nous venons de lui envoyer votre message vidéo «${nb}{video_title}${nb}».`,
  email_sent_note_later: 'Nous vous dirons quand il aura été regardé.',
  email_viewed_note_subject: '{recipient_name} a regardé votre message vidéo',
  email_viewed_note_preheader: `{recipient_name} vient de regarder «${nb}{video_title}${nb}».`,
  email_viewed_note_body: `{recipient_name} vient de regarder votre message vidéo «${nb}{video_title}${nb}».`,

  sms_recipient_video_full:
    '{store_name} : {sender_name} vous envoie un message vidéo "{video_title}" avec votre colis : {playback_url}',
  sms_recipient_video_short:
    '{store_name} : {sender_name} vous envoie un message vidéo avec votre colis : {playback_url}',
  sms_recipient_video_shortest: '{store_name} : un message vidéo de {sender_name} : {playback_url}',
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
  page_next_now: '{recipient_name} recibe tu video en cuanto lo envíes.',
  page_next_on_date: '{recipient_name} recibe tu video el {date}.',
  page_next_on_store_day: '{recipient_name} recibe tu video el día que fijó la tienda.',
  page_next_arrived: 'El regalo ya llegó: {recipient_name} recibe tu video en cuanto lo envíes.',
  page_next_package_about: '{recipient_name} recibe tu video cuando llegue el paquete, hacia el {date}.',
  page_next_package: '{recipient_name} recibe tu video cuando llegue el paquete.',

  script_wrong_type: 'Elige un video MP4, WebM o QuickTime (.mov).',
  script_empty: 'Ese video está vacío. Inténtalo de nuevo.',
  script_too_large: 'Ese video es demasiado grande (el límite es de {megabytes} MB). Graba uno más corto.',
  script_watch_then_send: 'Mira tu video y pulsa «Enviar video».',
  script_too_long: 'Ese video dura {duration}; un videomensaje puede durar hasta {limit}. Elige o graba uno más corto.',
  script_timer: '{elapsed} / {limit} — quedan {left}',
  script_camera_failed: 'No pudimos usar tu cámara ({error}). Puedes elegir un video en su lugar.',
  script_camera_ready: 'Cámara lista. Pulsa «Empezar a grabar» cuando quieras.',
  script_record_again: 'Grabar de nuevo',
  script_recording: 'Grabando… se detiene sola al llegar a {limit}.',
  script_sending: 'Enviando tu video…',
  script_received: '¡Gracias! Recibimos tu video. Se entregará con el regalo.',
  script_not_sent: 'Tu video no se envió: {reason}',
  script_went_wrong: 'Algo salió mal ({status}).',
  script_connection_failed: 'Tu video no se envió: falló la conexión. Inténtalo de nuevo.',
  script_give_name: 'Indica su nombre.',
  script_give_contact: 'Indica su correo electrónico o su número de móvil (o los dos).',
  script_email_wrong: 'Ese correo electrónico no parece correcto.',
  script_saving: 'Guardando…',
  script_saved: 'Guardado. Ahora graba tu video aquí abajo.',
  script_recipient_not_saved: 'El destinatario no se guardó: falló la conexión. Inténtalo de nuevo.',

  email_hi_sender: 'Hola, {sender_name}:',
  email_hi_recipient: 'Hola, {recipient_name}:',
  email_quoted_title: '«{video_title}»',
  email_or_open_link: 'O abre este enlace:',
  email_signature: '— {store_name}',
  email_recipient_video_subject: '{sender_name} te envió un videomensaje',
  email_recipient_video_preheader: '{sender_name} grabó un videomensaje para acompañar tu paquete de {store_name}.',
  email_recipient_video_intro:
    'Tu paquete de {store_name} ya llegó, y {sender_name} grabó un videomensaje para acompañarlo:',
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
  email_sent_note_subject: 'Tu videomensaje para {recipient_name} se envió',
  email_sent_note_preheader: 'Tu paquete llegó a {recipient_name}, y tu videomensaje con él.',
  email_sent_note_body: 'Tu paquete llegó a {recipient_name}, y acabamos de enviarle tu videomensaje «{video_title}».',
  email_sent_note_later: 'Te avisaremos cuando lo vea.',
  email_viewed_note_subject: '{recipient_name} vio tu videomensaje',
  email_viewed_note_preheader: '{recipient_name} acaba de ver «{video_title}».',
  email_viewed_note_body: '{recipient_name} acaba de ver tu videomensaje «{video_title}».',

  sms_recipient_video_full:
    '{store_name}: {sender_name} te manda un mensaje de video "{video_title}" con tu paquete: {playback_url}',
  sms_recipient_video_short:
    '{store_name}: {sender_name} te manda un mensaje de video con tu paquete. Para verlo: {playback_url}',
  sms_recipient_video_shortest: '{store_name}: un mensaje de video de {sender_name}: {playback_url}',
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
