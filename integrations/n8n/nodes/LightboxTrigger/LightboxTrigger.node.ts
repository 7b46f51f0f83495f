import type {
  IDataObject,
  IHookFunctions,
  INodeType,
  INodeTypeDescription,
  IWebhookFunctions,
  IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { CREDENTIAL, eventItem, lightboxRequest, verifySignature } from '../shared';

// Activating the workflow creates a Lightbox webhook endpoint for this node's URL and events;
// deactivating deletes it (docs/api.md §15, §22 and §24). Every delivery's Standard Webhooks
// signature is checked against the endpoint's secret; one that does not verify is refused (401)
// and starts nothing.

interface TriggerState {
  endpointId?: string;
  secret?: string;
}

export const EVENTS = [
  { name: 'Gallery Created', value: 'listing.created' },
  { name: 'Gallery Updated', value: 'listing.updated' },
  { name: 'Gallery Deleted', value: 'listing.deleted' },
  {
    name: 'Gallery Sent to Client',
    value: 'listing.assigned',
    description: 'A gallery was assigned to a client, who now has its link',
  },
  { name: 'Gallery Unassigned', value: 'listing.unassigned' },
  { name: 'Gallery Viewed', value: 'client_link.viewed', description: 'A client opened their gallery link' },
  {
    name: 'Gallery Downloaded',
    value: 'client_link.downloaded',
    description: 'A client downloaded a photo or the whole gallery',
  },
  {
    name: 'Selection Submitted',
    value: 'client_link.selection_submitted',
    description: 'A client sent their favorite photos from their link',
  },
  // docs/api.md §28: the object of these is the share link (its listing_id names the gallery).
  { name: 'Share Link Created', value: 'share_link.created' },
  { name: 'Share Link Updated', value: 'share_link.updated' },
  { name: 'Share Link Deleted', value: 'share_link.deleted' },
  { name: 'Share Link Viewed', value: 'share_link.viewed', description: 'Someone opened a share link' },
  {
    name: 'Share Link Downloaded',
    value: 'share_link.downloaded',
    description: 'Someone downloaded a photo or the whole gallery at a share link',
  },
  {
    name: 'Share Link Selection Submitted',
    value: 'share_link.selection_submitted',
    description: 'Someone sent their favorite photos at a share link',
  },
  { name: 'Media Added', value: 'media.created' },
  { name: 'Media Updated', value: 'media.updated' },
  { name: 'Media Deleted', value: 'media.deleted' },
  {
    name: 'Photos Ready',
    value: 'media.variants_ready',
    description: "A photo's web, thumbnail and MLS versions are ready",
  },
  {
    name: 'Photos Analyzed',
    value: 'media.analyzed',
    description: "A photo's analysis is done: blur, tilt, similar photos, people, text, room (docs/api.md §30)",
  },
  { name: 'Client Created', value: 'client.created' },
  { name: 'Client Updated', value: 'client.updated' },
  { name: 'Client Deleted', value: 'client.deleted' },
  { name: 'Email Sent', value: 'notification.sent' },
  {
    name: 'Email Failed',
    value: 'notification.failed',
    description: "A gallery email could not be delivered to the client's address",
  },
  // docs/api.md §29: the object is the product, the invoice or the payment.
  { name: 'Product Created', value: 'product.created' },
  { name: 'Product Updated', value: 'product.updated' },
  { name: 'Product Deleted', value: 'product.deleted' },
  { name: 'Invoice Created', value: 'invoice.created', description: 'A draft invoice was made' },
  { name: 'Invoice Updated', value: 'invoice.updated' },
  {
    name: 'Invoice Issued',
    value: 'invoice.issued',
    description: 'An invoice was numbered and emailed to the client',
  },
  { name: 'Invoice Paid', value: 'invoice.paid', description: 'An invoice was paid in full' },
  { name: 'Invoice Voided', value: 'invoice.voided' },
  { name: 'Payment Recorded', value: 'payment.created', description: 'A payment of an invoice was recorded' },
  // docs/api.md §31: the object is the MLS profile, or the gallery's compliance report.
  { name: 'MLS Profile Created', value: 'mls_profile.created' },
  { name: 'MLS Profile Updated', value: 'mls_profile.updated' },
  { name: 'MLS Profile Deleted', value: 'mls_profile.deleted' },
  {
    name: 'Compliance Changed',
    value: 'listing.compliance_changed',
    description: "A gallery's compliance with its MLS profile changed status",
  },
  {
    name: 'Kit Ready',
    value: 'listing.kit_ready',
    description: "A gallery's listing kit was built (MLS pack, slideshows, reel, flyer, social images)",
  },
];

const sameSet = (a: string[], b: string[]): boolean =>
  a.length === b.length && [...a].sort().join() === [...b].sort().join();

export class LightboxTrigger implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Lightbox Trigger',
    name: 'lightboxTrigger',
    icon: { light: 'file:lightbox.svg', dark: 'file:lightbox.dark.svg' },
    group: ['trigger'],
    version: 1,
    subtitle: '={{$parameter["events"].join(", ")}}',
    description:
      'Starts the workflow when something happens in your Lightbox: a new gallery, a client viewing it, photos ready...',
    defaults: { name: 'Lightbox Trigger' },
    inputs: [],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: CREDENTIAL, required: true }],
    webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
    properties: [
      {
        displayName: 'Trigger On',
        name: 'events',
        type: 'multiOptions',
        required: true,
        default: [],
        options: EVENTS,
        description: 'The Lightbox events that start this workflow',
      },
    ],
  };

  webhookMethods = {
    default: {
      async checkExists(this: IHookFunctions): Promise<boolean> {
        const state = this.getWorkflowStaticData('node') as TriggerState;
        if (!state.endpointId) return false;
        const answer = await lightboxRequest.call(
          this,
          'GET',
          `/v1/webhook_endpoints/${encodeURIComponent(state.endpointId)}`,
          {
            allowed: [404],
          },
        );
        const endpoint = answer.body;
        const events = this.getNodeParameter('events') as string[];
        const current =
          answer.status === 200 &&
          endpoint.url === this.getNodeWebhookUrl('default') &&
          endpoint.enabled === true &&
          sameSet((endpoint.events ?? []) as string[], events);
        if (current) return true;
        // Gone, disabled (a 410 or by hand) or for other events: replace it with a fresh one.
        if (answer.status === 200) {
          await lightboxRequest.call(this, 'DELETE', `/v1/webhook_endpoints/${encodeURIComponent(state.endpointId)}`, {
            allowed: [404],
          });
        }
        delete state.endpointId;
        delete state.secret;
        return false;
      },

      async create(this: IHookFunctions): Promise<boolean> {
        const state = this.getWorkflowStaticData('node') as TriggerState;
        const workflow = this.getWorkflow();
        const answer = await lightboxRequest.call(this, 'POST', '/v1/webhook_endpoints', {
          body: {
            url: this.getNodeWebhookUrl('default') as string,
            events: this.getNodeParameter('events') as string[],
            description: `n8n: ${workflow.name ?? 'workflow'} (${workflow.id ?? ''})`.slice(0, 500),
          },
        });
        state.endpointId = answer.body.id as string;
        state.secret = answer.body.secret as string;
        return true;
      },

      async delete(this: IHookFunctions): Promise<boolean> {
        const state = this.getWorkflowStaticData('node') as TriggerState;
        if (state.endpointId) {
          await lightboxRequest.call(this, 'DELETE', `/v1/webhook_endpoints/${encodeURIComponent(state.endpointId)}`, {
            allowed: [404],
          });
        }
        delete state.endpointId;
        delete state.secret;
        return true;
      },
    },
  };

  async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
    const state = this.getWorkflowStaticData('node') as TriggerState;
    const request = this.getRequestObject() as unknown as {
      rawBody?: Buffer;
      headers: Record<string, string | string[] | undefined>;
    };
    const refuse = (why: string): IWebhookResponseData => {
      const response = this.getResponseObject();
      response.status(401).json({ message: `Refused: ${why}` });
      return { noWebhookResponse: true };
    };
    if (!state.secret) return refuse('this trigger has no signing secret; deactivate and activate the workflow');
    if (!request.rawBody) return refuse('the delivery has no body');
    const problem = verifySignature(state.secret, request.headers, request.rawBody.toString('utf8'));
    if (problem) return refuse(problem);

    const event = this.getBodyData();
    const events = this.getNodeParameter('events') as string[];
    // The dashboard's "Send test event" (webhook.test) and types not chosen start nothing.
    if (typeof event.type !== 'string' || !events.includes(event.type)) return { webhookResponse: { received: true } };
    return { workflowData: [this.helpers.returnJsonArray([eventItem(event as IDataObject)])] };
  }
}
