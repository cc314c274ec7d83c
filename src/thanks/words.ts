import { durationText } from '../videos/browser/duration-text.ts';

/**
 * Every sentence the thank-you reply shows on the watch page and the sender's page, in one place
 * (English today; the message catalogue translates these). The e-mail's words are its templates.
 */
export const THANKS_WORDS = {
  heading: 'Say thank you',
  invite: (sender: string) => `Record a short video or write a note back to ${sender}. We e-mail it to them.`,
  videoLimit: (seconds: number) => `A video can be up to ${durationText(seconds)} long.`,
  sendVideo: 'Send thank-you video',
  noteLabel: 'Or write a note',
  noteHint: (max: number) => `Up to ${max} characters.`,
  sendNote: 'Send note',
  received: (sender: string, delayMinutes: number) =>
    delayMinutes > 0
      ? `Thank you! ${sender} gets your thank-you in about ${delayMinutes} minute${delayMinutes === 1 ? '' : 's'}. Until then you can replace it here.`
      : `Thank you! Your thank-you is on its way to ${sender}.`,
  waiting: (sender: string, reply: 'video' | 'note') =>
    `Your thank-you ${reply} is on its way to ${sender}. Until it goes out you can replace it below.`,
  noSenderEmail: (sender: string) =>
    `Your thank-you was saved, but the store has no e-mail address for ${sender}, so we cannot send it.`,
  sent: (sender: string, reply: 'video' | 'note') => `Your thank-you ${reply} was sent to ${sender}.`,
  yourNote: 'Your note',
  pageTitle: (recipient: string) => `A thank-you from ${recipient}`,
  pageIntro: (recipient: string, title: string, store: string) =>
    `${recipient} watched your video message “${title}”, sent with a gift from ${store}, and wrote back:`,
  videoLabel: (recipient: string) => `Thank-you video from ${recipient}`,
  notFoundTitle: 'Thank-you not found',
  notFoundHeading: "We can't find this thank-you",
  notFoundText: 'The link may be incomplete, or the thank-you may have been removed.',
} as const;
