import { z } from 'zod';
import {
  MAX_WEBHOOK_SITES,
  WebhookEventTypeSchema,
  WebhookUrlSchema,
  type WebhookEndpointRequest,
} from '#domain/webhooks.ts';
import { SiteIdLineSchema, siteIdsOfLine } from '#client/lib/site-id-line.ts';

const SitesLineSchema = SiteIdLineSchema.refine(
  (line) => siteIdsOfLine(line).length <= MAX_WEBHOOK_SITES,
  {
    error: `An endpoint hears about at most ${MAX_WEBHOOK_SITES} sites; leave the field empty for every site`,
  },
);

const EventChoiceSchema = z
  .array(WebhookEventTypeSchema)
  .min(1, { error: 'Choose at least one event to send' });

/** The events and sites of an endpoint, as its page changes them. */
export const SubscriptionFormSchema = z.object({
  eventTypes: EventChoiceSchema,
  sites: SitesLineSchema,
});
export type SubscriptionForm = z.infer<typeof SubscriptionFormSchema>;

/** The form that adds an endpoint, as typed; the address read by the domain's own rule. */
export const EndpointFormSchema = SubscriptionFormSchema.extend({
  url: WebhookUrlSchema,
  description: z.string().trim().max(200, { error: 'Keep the description under 200 characters' }),
});
export type EndpointForm = z.infer<typeof EndpointFormSchema>;

/** The body of `POST /api/webhooks` from the form: no sites given is every site. */
export function endpointRequestOf(form: EndpointForm): WebhookEndpointRequest {
  const siteIds = siteIdsOfLine(form.sites);
  return {
    url: form.url,
    ...(form.description ? { description: form.description } : {}),
    eventTypes: form.eventTypes,
    ...(siteIds.length > 0 ? { siteIds } : {}),
  };
}
