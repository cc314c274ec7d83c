import { readPageData } from './dom.ts';
import { setUpRecorder } from './recorder.ts';
import { setUpRecipientForm } from './recipient-form.ts';
import type { RecordPageData } from './page-data.ts';

/** The record page: the sender's gift video (recorder.ts), and the recipient form when the order lacks one. */
const { uploadUrl, maxBytes, maxSeconds, types, recipientUrl } = readPageData<RecordPageData>();
if (recipientUrl) setUpRecipientForm(recipientUrl);
setUpRecorder({
  idPrefix: '',
  uploadUrl,
  maxBytes,
  maxSeconds,
  types,
  words: {
    received: 'Thank you! Your video was received. It will be delivered with the gift.',
    plural: 'video messages',
  },
});
