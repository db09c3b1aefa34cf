// The service's one way to send e-mail: the SMTP transport of SMTP_URL and SMTP_FROM (nodemailer),
// or none when e-mail is off. Used by the webhook notices (src/webhooks/delivery/condition-notice-mail.ts)
// and the invitations of people (src/users/invitation.service.ts).
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { config } from '../config.ts';

export interface Mailer {
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
