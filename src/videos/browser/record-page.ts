import { byId, readPageData } from './dom.ts';
import { CAPTION_PHRASES } from './caption-phrases.ts';
import { sendTranscript } from './transcript.ts';
import { setUpRecorder } from './recorder.ts';
import { setUpRecipientForm } from './recipient-form.ts';
import type { RecordPageData } from './page-data.ts';

/**
 * The record page: the sender's gift video (recorder.ts) with its optional transcript (the watch
 * page's captions), and the recipient form when the order lacks one.
 */
const { uploadUrl, maxBytes, maxSeconds, types, recipientUrl } = readPageData<RecordPageData>();
const transcriptInput = byId('transcript', HTMLTextAreaElement);
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
  async afterUpload(answerUrl) {
    const transcript = transcriptInput.value.trim();
    if (transcript === '') return null;
    const url = answerUrl('transcript_url');
    return url !== null && (await sendTranscript(transcript, url)) ? null : CAPTION_PHRASES.transcriptNotSaved;
  },
});
