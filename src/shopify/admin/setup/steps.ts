/** What the setup guide is built from: each step's real state, read from the shop (setup.ts). */
export interface SetupState {
  /** `unknown`: the theme could not be read (a token without `read_themes`, Shopify down). */
  themeBlock: 'active' | 'missing' | 'unknown';
  themeEditorUrl: string;
  productChosen: boolean;
  planActive: boolean;
  testGiftSent: boolean;
}

export type SetupStepId = 'theme_block' | 'video_product' | 'plan' | 'test_gift';

export interface SetupStep {
  id: SetupStepId;
  title: string;
  description: string;
  done: boolean;
  /** Where the step is done: a Shopify admin page (opened at the top), or a page of this app. */
  action: { label: string; url: string; target: 'top' | 'app' } | null;
}

/**
 * The four steps of a merchant's first hour (issue 28), in order, each ticked from the shop's state
 * and never from a click: a step is done when it is true of the shop, so a block removed from the
 * theme un-ticks its step.
 */
export function setupSteps(state: SetupState): { steps: SetupStep[]; completed: number } {
  const steps: SetupStep[] = [
    {
      id: 'theme_block',
      title: 'Add the video message block to your product page',
      description:
        state.themeBlock === 'unknown'
          ? 'The theme editor opens with the “Video gift message” block added under the buy buttons: save the theme. (Doorstep could not read your theme to check it.)'
          : 'The theme editor opens with the “Video gift message” block added under the buy buttons: save the theme.',
      done: state.themeBlock === 'active',
      action: { label: 'Add the block', url: state.themeEditorUrl, target: 'top' },
    },
    {
      id: 'video_product',
      title: 'Create or choose your “Video message” product',
      description:
        'The add-on product shoppers buy with a gift, at your price. Doorstep can create it in your store (no shipping, no stock to count, on your Online Store), or you can choose one you have in Settings.',
      done: state.productChosen,
      action: { label: 'Choose an existing product', url: '/settings', target: 'app' },
    },
    {
      id: 'plan',
      title: 'Approve the plan',
      description: 'Doorstep charges a share of each video message sent, up to the cap you approve in Shopify.',
      done: state.planActive,
      action: null,
    },
    {
      id: 'test_gift',
      title: 'Send a test gift to yourself',
      description:
        'A sample video message goes to your store’s e-mail address, as a recipient gets it: the e-mail, then the watch page. It is marked as a test and never billed.',
      done: state.testGiftSent,
      action: null,
    },
  ];
  return { steps, completed: steps.filter((step) => step.done).length };
}
