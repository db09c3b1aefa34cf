// E-mail to administrators when a subscription is paused; the in-app Notification rows are
// written with the pause itself (delivery.repository.ts). Sent only when SMTP is configured.
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { config } from '../config.ts';
import { logger } from '../logger.ts';
import { deliveryRepository, PAUSE_AFTER_FAILURES, type PausedNotice } from './delivery.repository.ts';
import { notificationRepository } from '../notifications/notification.repository.ts';

interface Mailer {
  sendMail(message: SendMailOptions): Promise<unknown>;
}

export interface MailerSettings {
  transport: Mailer;
  from: string;
}

/** The configured SMTP mailer (SMTP_URL, SMTP_FROM), or undefined when e-mail is off. */
export function configuredMailer(): MailerSettings | undefined {
  return config.smtp ? { transport: nodemailer.createTransport(config.smtp.url), from: config.smtp.from } : undefined;
}

/**
 * E-mails each administrator with an address whose role opens the subscription (the in-app notice
 * shows to them alone, notification.repository.ts); a mail failure is logged, never retried into a second notice.
 */
export async function emailPausedNotice(mailer: MailerSettings, notice: PausedNotice): Promise<void> {
  const sent: number[] = [];
  const visible = await notificationRepository.subscriptionNoticesVisible(notice.recipients.map((r) => r.notificationId));
  for (const recipient of notice.recipients) {
    if (!recipient.email || !visible.has(recipient.notificationId)) continue;
    try {
      await mailer.transport.sendMail({
        from: mailer.from,
        to: { name: recipient.fullName, address: recipient.email },
        subject: `Webhook paused: ${notice.subscription.url}`,
        text:
          `Deliveries to ${notice.subscription.url} (subscription ${notice.subscription.id}) failed ` +
          `${PAUSE_AFTER_FAILURES} times in a row, so the subscription is paused.\n\n` +
          'Nothing is sent until it is resumed (POST /webhooks/{id}/resume or the settings page); ' +
          'events that occur meanwhile are kept and go out on resume, in event order.\n',
      });
      sent.push(recipient.notificationId);
    } catch (err) {
      logger.warn({ err, subscriptionId: notice.subscription.id }, 'could not e-mail the webhook pause notice');
    }
  }
  if (sent.length) await deliveryRepository.markEmailed(sent, new Date());
}
