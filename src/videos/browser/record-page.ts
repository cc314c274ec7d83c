import { byId, readPageData } from './dom.ts';
import { setUpRecipientForm } from './recipient-form.ts';
import { setUpRecorder, type Translate } from './recorder.ts';
import { sendTranscript } from './transcript.ts';
import type { RecordPageData } from './page-data.ts';
import { interpolate } from '../../i18n/interpolate.ts';

/**
 * The record page: the sender's gift video (recorder.ts) with its optional transcript (the watch
 * page's captions), and the recipient form when the order lacks one.
 */
const { uploadUrl, maxBytes, maxSeconds, types, recipientUrl, phrases } = readPageData<RecordPageData>();
/** The page's words in its language, from the server's catalogue. */
const t: Translate = (key, values = {}) => interpolate(phrases[key], values);
const transcriptInput = byId('transcript', HTMLTextAreaElement);
if (recipientUrl) setUpRecipientForm(recipientUrl, t);
setUpRecorder({
  idPrefix: '',
  uploadUrl,
  maxBytes,
  maxSeconds,
  types,
  t,
  received: t('script_received'),
  ready: t('script_ready'),
  async afterUpload(answerUrl) {
    const transcript = transcriptInput.value.trim();
    if (transcript === '') return null;
    const url = answerUrl('transcript_url');
    return url !== null && (await sendTranscript(transcript, url)) ? null : t('script_transcript_not_saved');
  },
});
