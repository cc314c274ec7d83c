/**
 * Every user-visible phrase of the captions feature (issue 14), in one object so the message
 * catalogue can translate them: the record page's transcript field (server-rendered), what its
 * script says, and the watch page's captions track. Shared by the server and the browser scripts.
 */
export const CAPTION_PHRASES = {
  /** The record page's field label. */
  transcriptLabel: 'What you say (shown as captions)',
  transcriptHint: (maxChars: number) =>
    `Optional. Type your message and the recipient can read it as captions while they watch. Up to ${maxChars} characters.`,
  /** Said after the thank-you ("Your video was received.") when the video arrived but its captions did not. */
  transcriptNotSaved: 'Its captions could not be saved.',
  /** The `<track>`'s label in the player's captions menu. */
  trackLabel: 'Captions',
  /** The `<track>`'s `srclang`: the language the sender is assumed to type in (the page's language). */
  trackLanguage: 'en',
} as const;
