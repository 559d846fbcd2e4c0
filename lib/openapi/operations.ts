// Every /api/v1 operation: method, path, what it takes (the zod schemas the routes validate with) and what it answers
// (./response-schemas.ts). lib/openapi/openapi-document.test.ts holds it to app/api/v1's route files.
import { z } from "zod";
import { CreateAlertChannelInput, UpdateAlertChannelInput } from "@/lib/alerts/alert-channel-input";
import { AuditLogFilter } from "@/lib/audit/audit-log-filter";
import { BulkFilter } from "@/lib/delivery/bulk-selection";
import { DeliveryFilter } from "@/lib/delivery/delivery-filter";
import { oneDeliveryInput } from "@/lib/delivery/replay-delivery";
import { CreateDestinationInput, UpdateDestinationInput } from "@/lib/destinations/destination-input";
import { CreateEndpointInput, UpdateEndpointInput } from "@/lib/endpoints/endpoint-input";
import { RotateSecretInput } from "@/lib/endpoints/rotate-endpoint-secret";
import { TestEventInput } from "@/lib/ingest/send-test-event";
import { InviteMemberInput } from "@/lib/invitations/invitation-input";
import { ChangeMemberRoleInput } from "@/lib/members/member-input";
import { UpdateOrganizationInput } from "@/lib/organizations/organization-input";
import { DryRunQuery, named, PageQuery, type Operation } from "./operation";
import { AckInput, AckOutput, NackInput, NackOutput, PullInput, PullOutput } from "@/lib/pull/pull-input";
import * as out from "./response-schemas";

const endpointId = { id: "The endpoint's id (ep_…)" };
const destinationIds = { ...endpointId, destinationId: "The destination's id (dst_…)" };
const deliveryId = { id: "The delivery's id (dlv_…): the stored request, all its destinations" };

const Endpoint = named("Endpoint", out.Endpoint);
const Destination = named("Destination", out.Destination);
const Member = named("Member", out.Member);
const Organization = named("Organization", out.Organization);
const Counted = named("Count", out.Counted);
const AlertChannel = named("AlertChannel", out.AlertChannel);
const alertChannelId = { id: "The alert channel's id (ach_…)" };
const OneDelivery = named("OneDeliveryInput", oneDeliveryInput);
const Filter = named("DeliveryBulkFilter", BulkFilter.extend({ q: BulkFilter.shape.q.describe("As the list's q: only the deliveries it matches") }));
const list = (name: string, item: z.ZodType) => named(`${name}List`, out.page(item));

export const OPERATIONS: Operation[] = [
  { method: "get", path: "/openapi.json", operationId: "getOpenApiDocument", tag: "Meta", public: true,
    summary: "This document (no key needed; one sent is ignored)",
    responses: { 200: { description: "The OpenAPI 3.1 document", body: named("OpenApiDocument", z.record(z.string(), z.unknown())) } } },

  { method: "get", path: "/endpoints", operationId: "listEndpoints", tag: "Endpoints", summary: "List endpoints, newest first",
    query: PageQuery, responses: { 200: { description: "A page of endpoints", body: list("Endpoint", out.Endpoint) } } },
  { method: "post", path: "/endpoints", operationId: "createEndpoint", tag: "Endpoints", summary: "Create an endpoint (and its default destination)",
    body: named("CreateEndpointInput", CreateEndpointInput), errors: [409],
    responses: { 201: { description: "The endpoint; `secret` when one was generated (shown this once)", body: named("CreatedEndpoint", out.CreatedEndpoint) } } },
  { method: "get", path: "/endpoints/{id}", operationId: "getEndpoint", tag: "Endpoints", summary: "Get an endpoint",
    params: endpointId, errors: [404], responses: { 200: { description: "The endpoint", body: Endpoint } } },
  { method: "patch", path: "/endpoints/{id}", operationId: "updateEndpoint", tag: "Endpoints", summary: "Change an endpoint (only the fields given)",
    params: endpointId, body: named("UpdateEndpointInput", UpdateEndpointInput), errors: [404, 409],
    responses: { 200: { description: "The endpoint as changed", body: Endpoint } } },
  { method: "delete", path: "/endpoints/{id}", operationId: "deleteEndpoint", tag: "Endpoints", summary: "Delete an endpoint; its deliveries are purged in the background",
    params: endpointId, errors: [404], responses: { 204: { description: "Deleted" } } },
  { method: "get", path: "/endpoints/{id}/stats", operationId: "getEndpointStats", tag: "Endpoints", summary: "Counts by status and the oldest pending age",
    params: endpointId, errors: [404], responses: { 200: { description: "The endpoint's stats", body: named("EndpointStats", out.EndpointStats) } } },
  { method: "post", path: "/endpoints/{id}/rotate-secret", operationId: "rotateEndpointSecret", tag: "Endpoints",
    summary: "A new signing secret now; the previous one verifies for a grace period",
    params: endpointId, body: named("RotateSecretInput", RotateSecretInput), errors: [404, 409],
    responses: { 200: { description: "When the previous secret stops verifying; the new secret when it was generated", body: named("RotatedSecret", out.RotatedSecret) } } },
  { method: "get", path: "/endpoints/{id}/quarantine", operationId: "listQuarantinedRequests", tag: "Endpoints",
    summary: "Requests refused for their signature, kept for a re-verify (never their headers or body)",
    params: endpointId, query: PageQuery, errors: [404],
    responses: { 200: { description: "A page of quarantined requests, newest first", body: list("QuarantinedRequest", out.QuarantinedRequest) } } },
  { method: "post", path: "/endpoints/{id}/quarantine/reverify", operationId: "reverifyQuarantine", tag: "Endpoints",
    summary: "Admit what verifies with the present secret (?dryRun=true only counts)",
    params: endpointId, query: DryRunQuery, errors: [404, 409, 429],
    responses: { 200: { description: "How many verify (admitted unless a dry run), and how many were duplicates", body: named("Reverified", out.Reverified) } } },
  { method: "post", path: "/endpoints/{id}/test-event", operationId: "sendTestEvent", tag: "Endpoints",
    summary: "Send a synthetic delivery (eventType inbox.test unless named) through the endpoint's destinations, as a received one; its item says test: true",
    params: endpointId, body: named("TestEventInput", TestEventInput), errors: [404, 429],
    responses: { 202: { description: "Stored; the worker delivers it", body: named("TestEventSent", out.TestEventSent) } } },

  { method: "get", path: "/endpoints/{id}/destinations", operationId: "listDestinations", tag: "Destinations", summary: "List an endpoint's destinations",
    params: endpointId, query: PageQuery, errors: [404], responses: { 200: { description: "A page of destinations", body: list("Destination", out.Destination) } } },
  { method: "post", path: "/endpoints/{id}/destinations", operationId: "createDestination", tag: "Destinations", summary: "Add a destination to an endpoint",
    params: endpointId, body: named("CreateDestinationInput", CreateDestinationInput), errors: [404, 409],
    responses: { 201: { description: "The destination", body: Destination } } },
  { method: "get", path: "/endpoints/{id}/destinations/{destinationId}", operationId: "getDestination", tag: "Destinations", summary: "Get a destination",
    params: destinationIds, errors: [404], responses: { 200: { description: "The destination", body: Destination } } },
  { method: "patch", path: "/endpoints/{id}/destinations/{destinationId}", operationId: "updateDestination", tag: "Destinations",
    summary: "Change a destination (only the fields given; null clears)",
    params: destinationIds, body: named("UpdateDestinationInput", UpdateDestinationInput), errors: [404, 409],
    responses: { 200: { description: "The destination as changed", body: Destination } } },
  { method: "delete", path: "/endpoints/{id}/destinations/{destinationId}", operationId: "deleteDestination", tag: "Destinations",
    summary: "Delete a destination (the default one only when it is the last); its pending deliveries end in the background",
    params: destinationIds, errors: [404, 409], responses: { 204: { description: "Deleted" } } },
  { method: "get", path: "/endpoints/{id}/destinations/{destinationId}/stats", operationId: "getDestinationStats", tag: "Destinations",
    summary: "One destination's counts by status and oldest pending age (the endpoint's are the sums)",
    params: destinationIds, errors: [404], responses: { 200: { description: "The destination's stats", body: named("EndpointStats", out.EndpointStats) } } },
  { method: "post", path: "/endpoints/{id}/destinations/{destinationId}/pull", operationId: "pullDeliveries", tag: "Pull",
    summary: "Lease a pull destination's ready deliveries, oldest first, waiting up to waitSeconds while none is ready",
    params: destinationIds, body: named("PullInput", PullInput), errors: [404, 409],
    responses: { 200: { description: "The leased deliveries", body: named("Pulled", PullOutput) } } },
  { method: "post", path: "/endpoints/{id}/destinations/{destinationId}/ack", operationId: "ackDeliveries", tag: "Pull",
    summary: "Settle leased deliveries as delivered", params: destinationIds, body: named("AckInput", AckInput), errors: [404, 409],
    responses: { 200: { description: "The lease ids acked; those unknown, expired or settled already", body: named("Acked", AckOutput) } } },
  { method: "post", path: "/endpoints/{id}/destinations/{destinationId}/nack", operationId: "nackDeliveries", tag: "Pull",
    summary: "Record a failed attempt for leased deliveries: retried under the destination's settings",
    params: destinationIds, body: named("NackInput", NackInput), errors: [404, 409],
    responses: { 200: { description: "The lease ids nacked; those unknown, expired or settled already", body: named("Nacked", NackOutput) } } },

  { method: "get", path: "/deliveries", operationId: "listDeliveries", tag: "Deliveries", summary: "List deliveries, newest first, filtered",
    query: DeliveryFilter.extend({ q: z.string().optional().describe("Delivery id, external id, event type, or words of the body (`word*`: prefix)") }).extend(PageQuery.shape),
    errors: [429], responses: { 200: { description: "A page of deliveries", body: list("DeliverySummary", out.DeliverySummary) } } },
  { method: "get", path: "/deliveries/{id}", operationId: "getDelivery", tag: "Deliveries", summary: "Get a delivery with its headers, body and attempts",
    params: deliveryId, errors: [404], responses: { 200: { description: "The delivery", body: named("Delivery", out.Delivery) } } },
  { method: "post", path: "/deliveries/{id}/replay", operationId: "replayDelivery", tag: "Deliveries",
    summary: "Deliver again (every destination, or the one named); a filtered one is matched against today's filters",
    params: deliveryId, body: OneDelivery, errors: [404, 409],
    responses: { 202: { description: "Pending again (filtered: still no destination matches)", body: named("Replayed", out.Replayed) } } },
  { method: "post", path: "/deliveries/{id}/bury", operationId: "buryDelivery", tag: "Deliveries", summary: "Stop delivering (every destination, or the one named)",
    params: deliveryId, body: OneDelivery, errors: [404, 409], responses: { 200: { description: "Dead", body: named("Buried", out.Buried) } } },
  { method: "post", path: "/deliveries/replay", operationId: "replayDeliveries", tag: "Deliveries", summary: "Replay every delivery a filter (and search q) names (?dryRun=true only counts)",
    query: DryRunQuery, body: Filter, errors: [404, 409, 429],
    responses: { 202: { description: "How many were replayed", body: Counted }, 200: { description: "With dryRun: how many would be", body: Counted } } },
  { method: "post", path: "/deliveries/bury", operationId: "buryDeliveries", tag: "Deliveries", summary: "Bury every delivery a filter (and search q) names (?dryRun=true only counts)",
    query: DryRunQuery, body: Filter, errors: [404, 409, 429], responses: { 200: { description: "How many were (or, with dryRun, would be) buried", body: Counted } } },

  { method: "get", path: "/organization", operationId: "getOrganization", tag: "Organization", summary: "The key's organization",
    responses: { 200: { description: "The organization", body: Organization } } },
  { method: "patch", path: "/organization", operationId: "updateOrganization", tag: "Organization", summary: "Rename it, change its retention, or set its daily digest (null: off)",
    body: named("UpdateOrganizationInput", UpdateOrganizationInput), responses: { 200: { description: "The organization as changed", body: Organization } } },
  { method: "get", path: "/members", operationId: "listMembers", tag: "Organization", summary: "Who is in the organization, oldest first (one page)",
    responses: { 200: { description: "Every member", body: list("Member", out.Member) } } },
  { method: "patch", path: "/members/{userId}", operationId: "changeMemberRole", tag: "Organization", summary: "Change a member's role (never the last owner's)",
    params: { userId: "The member's user id (usr_…)" }, body: named("ChangeMemberRoleInput", ChangeMemberRoleInput), errors: [404, 409],
    responses: { 200: { description: "The member", body: Member } } },
  { method: "delete", path: "/members/{userId}", operationId: "removeMember", tag: "Organization", summary: "Remove a member (never the last owner); revokes their keys",
    params: { userId: "The member's user id (usr_…)" }, errors: [404, 409], responses: { 204: { description: "Removed" } } },
  { method: "post", path: "/invitations", operationId: "inviteMember", tag: "Organization", summary: "Invite someone by email with a role (a mail carries the link)",
    body: named("InviteMemberInput", InviteMemberInput), errors: [409, 429],
    responses: { 201: { description: "The invitation (never its link)", body: named("Invitation", out.Invitation) } } },
  { method: "get", path: "/invitations", operationId: "listInvitations", tag: "Organization", summary: "Pending invitations (one page)",
    responses: { 200: { description: "Every pending invitation", body: list("Invitation", out.Invitation) } } },
  { method: "delete", path: "/invitations/{id}", operationId: "withdrawInvitation", tag: "Organization", summary: "Withdraw a pending invitation: its link stops working",
    params: { id: "The invitation's id (inv_…)" }, errors: [404], responses: { 204: { description: "Withdrawn" } } },
  { method: "get", path: "/alert-channels", operationId: "listAlertChannels", tag: "Alerts", summary: "List the organization's alert channels, newest first",
    query: PageQuery, responses: { 200: { description: "A page of alert channels", body: list("AlertChannel", out.AlertChannel) } } },
  { method: "post", path: "/alert-channels", operationId: "createAlertChannel", tag: "Alerts",
    summary: "Add an alert channel (an email address is confirmed first; URLs pass the destinations' SSRF rules)",
    body: named("CreateAlertChannelInput", CreateAlertChannelInput), errors: [409],
    responses: { 201: { description: "The channel; a webhook channel's `secret` (shown this once)", body: named("CreatedAlertChannel", out.CreatedAlertChannel) } } },
  { method: "get", path: "/alert-channels/{id}", operationId: "getAlertChannel", tag: "Alerts", summary: "Get an alert channel",
    params: alertChannelId, errors: [404], responses: { 200: { description: "The channel", body: AlertChannel } } },
  { method: "patch", path: "/alert-channels/{id}", operationId: "updateAlertChannel", tag: "Alerts",
    summary: "Rename a channel or change its target (never its type, nor a webhook's secret)",
    params: alertChannelId, body: named("UpdateAlertChannelInput", UpdateAlertChannelInput), errors: [404],
    responses: { 200: { description: "The channel as changed", body: AlertChannel } } },
  { method: "delete", path: "/alert-channels/{id}", operationId: "deleteAlertChannel", tag: "Alerts",
    summary: "Delete a channel; endpoints and destinations stop naming it", params: alertChannelId, errors: [404],
    responses: { 204: { description: "Deleted" } } },
  { method: "post", path: "/alert-channels/{id}/test", operationId: "testAlertChannel", tag: "Alerts",
    summary: "Send a test notification on the channel (recorded and retried like an incident's)", params: alertChannelId, errors: [404],
    responses: { 202: { description: "Queued", body: named("AlertChannelTest", out.AlertChannelTest) } } },

  { method: "get", path: "/audit-log", operationId: "listAuditLog", tag: "Audit log", summary: "The organization's audit log, newest first",
    query: AuditLogFilter.extend(PageQuery.shape), responses: { 200: { description: "A page of entries", body: list("AuditEntry", out.AuditEntry) } } },
];
