import { readPageData } from './dom.ts';
import type { WatchPageData } from './page-data.ts';
import { setUpThanksForm } from './thanks-form.ts';
import { interpolate } from '../../i18n/interpolate.ts';

/**
 * The watch page's reply recorder (src/thanks/): loaded by watch-page.ts once the reply is invited,
 * it reads the same page data and sets up the "Say thank you" form.
 */
const { thanks, phrases } = readPageData<WatchPageData>();
if (thanks) setUpThanksForm(thanks, (key, values = {}) => interpolate(phrases[key], values));
