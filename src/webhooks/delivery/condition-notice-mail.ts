// E-mail to administrators when the service pauses a subscription (failures) or disables it (410
// Gone); the in-app Notification rows are written with the change itself (condition-notice.ts).
// Sent only when SMTP is configured.
import { logger } from '../../logger.ts';
import { deliveryRepository, PAUSE_AFTER_FAILURES } from './delivery.repository.ts';
import type { ConditionNotice, ConditionNoticeKind } from './condition-notice.ts';
import { notificationRepository } from '../../notifications/notification.repository.ts';
import type { MailerSettings } from '../../notifications/mailer.ts';

export { configuredMailer, type MailerSettings } from '../../notifications/mailer.ts';

const MAILS: Record<ConditionNoticeKind, (s: ConditionNotice['subscription']) => { subject: string; text: string }> = {
  'webhook.paused': (s) => ({
    subject: `Webhook paused: ${s.url}`,
    text:
      `Deliveries to ${s.url} (subscription ${s.id}) failed ${PAUSE_AFTER_FAILURES} times in a row, so the subscription is paused.\n\n` +
      'Nothing is sent until it is resumed (POST /webhooks/{id}/resume or the settings page); ' +
      'events that occur meanwhile are kept and go out on resume, in event order.\n',
  }),
  'webhook.disabled': (s) => ({
    subject: `Webhook disabled: ${s.url}`,
    text:
      `${s.url} (subscription ${s.id}) answered 410 Gone, so the subscription is disabled and its waiting deliveries are cancelled.\n\n` +
      'Nothing is sent until it is enabled again (POST /webhooks/{id}/enable or the settings page); ' +
      'events that occur meanwhile are not delivered.\n',
  }),
};

/**
 * E-mails each administrator with an address whose role opens the subscription (the in-app notice
 * shows to them alone, notification.repository.ts); a mail failure is logged, never retried into a second notice.
 */
export async function emailConditionNotice(mailer: MailerSettings, notice: ConditionNotice): Promise<void> {
  const sent: number[] = [];
  const visible = await notificationRepository.subscriptionNoticesVisible(notice.recipients.map((r) => r.notificationId));
  const mail = MAILS[notice.kind](notice.subscription);
  for (const recipient of notice.recipients) {
    if (!recipient.email || !visible.has(recipient.notificationId)) continue;
    try {
      await mailer.transport.sendMail({ from: mailer.from, to: { name: recipient.fullName, address: recipient.email }, ...mail });
      sent.push(recipient.notificationId);
    } catch (err) {
      logger.warn({ err, subscriptionId: notice.subscription.id, kind: notice.kind }, 'could not e-mail the webhook notice');
    }
  }
  if (sent.length) await deliveryRepository.markEmailed(sent, new Date());
}
