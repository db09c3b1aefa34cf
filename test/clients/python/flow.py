"""A short integrator's flow through the Python client that openapi-python-client generated from the
served document (package `ticketing_client` on PYTHONPATH). Every answer must parse into the
generated model of its status: the flow prints fields read from those models, as one JSON object,
and test/clients/clients.test.ts checks them against the service.

    python3 flow.py main                  GET /me, boards, a ticket sent twice with one
                                          Idempotency-Key, a refused ticket, paging, a subscription
    python3 flow.py deliveries <id>       the subscription's delivery log, page by page
    python3 flow.py audit                 the audit log's subscription creations, page by page
    python3 flow.py bulk <board> <field> <value>
                                          a bulk job of two tickets sent twice with one
                                          Idempotency-Key, then polled
    python3 flow.py job <job id>          a bulk job as it is now
    python3 flow.py destination <queue url> <access key id> <secret access key> <kafka password>
                                          a subscription to an SQS queue, read back, changed to
                                          a Kafka topic, deleted; the answers' raw bodies too
    python3 flow.py admin <email> <role id> <admin role id> <person id>
                                          the administration writes: a board made, renamed,
                                          archived and opened again; an invitation sent and
                                          revoked, one to an admin role refused; a person's role
                                          changed, deactivated and reactivated

TICKETING_API_URL (…/public/v1) and TICKETING_API_KEY come from the environment.
"""

import json
import os
import sys
import uuid

from ticketing_client import AuthenticatedClient
from ticketing_client.api.audit_log import list_audit_log
from ticketing_client.api.boards import archive_board, create_board, list_boards, unarchive_board, update_board
from ticketing_client.api.users import change_user_role, deactivate_user, invite_user, reactivate_user, revoke_invitation
from ticketing_client.api.identity import get_me
from ticketing_client.api.tickets import bulk_tickets, create_ticket, get_job, list_tickets
from ticketing_client.api.webhooks import (
    create_webhook_subscription,
    delete_webhook_subscription,
    get_webhook_subscription,
    list_webhook_deliveries,
    update_webhook_subscription,
)
from ticketing_client.models import (
    ArchiveBoardResponse200,
    AwsCredentialsInput,
    GetWebhookSubscriptionResponse200,
    KafkaDestinationInput,
    KafkaDestinationInputSasl,
    SqsDestinationInput,
    UpdateWebhookSubscriptionBody,
    UpdateWebhookSubscriptionResponse200,
    UserPasswordInput,
    ChangeUserRoleBody,
    ChangeUserRoleResponse200,
    CreateBoardBody,
    CreateBoardResponse201,
    DeactivateUserResponse200,
    InviteUserBody,
    InviteUserResponse201,
    ReactivateUserResponse200,
    RevokeInvitationResponse200,
    UnarchiveBoardResponse200,
    UpdateBoardBody,
    UpdateBoardResponse200,
    BulkTicketsBody,
    BulkTicketsResponse202,
    GetJobResponse200,
    CreateTicketBody,
    CreateTicketBodyFieldsItem,
    CreateWebhookSubscriptionBody,
    CreateWebhookSubscriptionBodyEventsItem,
    CreateWebhookSubscriptionBodyRetryScheduleType0,
    CreateWebhookSubscriptionBodyPayload,
    CreateWebhookSubscriptionResponse201,
    GetMeResponse200,
    ListAuditLogAction,
    ListAuditLogResponse200,
    ListBoardsResponse200,
    ListTicketsResponse200,
    ListWebhookDeliveriesResponse200,
    ProblemValidationFailedOrIdempotencyKeyReused,
    Ticket,
)
from ticketing_client.types import UNSET


def parsed(response, model):
    """The answer as `model`; anything else (another status, or nothing parsed) stops the flow."""
    if not isinstance(response.parsed, model):
        raise SystemExit(
            f"expected {model.__name__}, got {type(response.parsed).__name__} "
            f"(HTTP {response.status_code}): {response.content[:500]!r}"
        )
    return response.parsed


def main_flow(client):
    me = parsed(get_me.sync_detailed(client=client), GetMeResponse200)
    boards = parsed(list_boards.sync_detailed(client=client), ListBoardsResponse200)
    support = next(b for b in boards.data if b.name == "Support")
    product = next(f for f in support.fields if f.name == "Product")

    def new_ticket(subject):
        return CreateTicketBody(
            board_id=support.id,
            subject=subject,
            requester_email="customer@example.com",
            fields=[CreateTicketBodyFieldsItem(field_id=product.id, value=product.options[0])],
        )

    key = f"python-{uuid.uuid4()}"
    first = create_ticket.sync_detailed(client=client, body=new_ticket("From Python"), idempotency_key=key)
    again = create_ticket.sync_detailed(client=client, body=new_ticket("From Python"), idempotency_key=key)
    refused = create_ticket.sync_detailed(
        client=client,
        body=CreateTicketBody(board_id="brd_none", subject="Nowhere", requester_email="customer@example.com"),
    )
    problem = parsed(refused, ProblemValidationFailedOrIdempotencyKeyReused)
    ticket = parsed(first, Ticket)
    more = [parsed(create_ticket.sync_detailed(client=client, body=new_ticket(f"Page {i}")), Ticket) for i in (1, 2)]

    pages, cursor = [], UNSET
    while True:
        page = parsed(list_tickets.sync_detailed(client=client, limit=2, cursor=cursor), ListTicketsResponse200)
        pages.append([t.id for t in page.data])
        if page.next_cursor is None:
            break
        cursor = page.next_cursor

    subscription = parsed(
        create_webhook_subscription.sync_detailed(
            client=client,
            body=CreateWebhookSubscriptionBody(
                url="https://93.184.216.34/python",
                events=[CreateWebhookSubscriptionBodyEventsItem.TICKET_CREATED],
                description="From Python",
                retry_schedule=CreateWebhookSubscriptionBodyRetryScheduleType0(delays_seconds=[60, 300]),
                payload=CreateWebhookSubscriptionBodyPayload.THIN,
            ),
        ),
        CreateWebhookSubscriptionResponse201,
    )
    return {
        "me": {"workspace": me.workspace.name, "key": me.api_key.name, "scopes": me.api_key.scopes},
        "boards": [{"id": b.id, "name": b.name, "fields": [f.name for f in b.fields]} for b in boards.data],
        "ticket": {
            "id": ticket.id,
            "subject": ticket.subject,
            "boardId": ticket.board_id,
            "channel": ticket.channel.value,
            "version": ticket.version,
            "fields": [{"fieldId": f.field_id, "value": f.value} for f in ticket.fields],
            "createdAt": ticket.created_at.isoformat(),
            "replayed": first.headers.get("Idempotent-Replayed"),
        },
        "repeat": {"id": parsed(again, Ticket).id, "replayed": again.headers.get("Idempotent-Replayed")},
        "refused": {"status": problem.status, "code": problem.code.value, "paths": [e.path for e in problem.errors or []]},
        "created": [ticket.id] + [t.id for t in more],
        "pages": pages,
        "subscription": {
            "id": subscription.id,
            "url": subscription.url,
            "events": subscription.events,
            "condition": subscription.condition.value,
            "payload": subscription.payload.value,
            "secret": subscription.secret,
            "createdAt": subscription.created_at.isoformat(),
            "retrySchedule": {
                "delaysSeconds": subscription.retry_schedule.delays_seconds,
                "maxAttempts": subscription.retry_schedule.max_attempts,
                "custom": subscription.retry_schedule.custom,
            },
        },
    }


def deliveries_flow(client, subscription_id):
    pages, cursor = [], UNSET
    while True:
        page = parsed(
            list_webhook_deliveries.sync_detailed(subscription_id, client=client, limit=1, cursor=cursor),
            ListWebhookDeliveriesResponse200,
        )
        pages.append(
            [
                {
                    "id": e.id,
                    "deliveryId": e.delivery_id,
                    "eventType": e.event_type,
                    "attempt": e.attempt,
                    "status": e.status.value,
                    "httpStatus": e.http_status,
                    "attemptedAt": e.attempted_at.isoformat() if e.attempted_at else None,
                    "waited": {"reason": e.waited.reason.value, "ms": e.waited.ms} if e.waited else None,
                    "maxAttempts": e.max_attempts,
                }
                for e in page.data
            ]
        )
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    return {"pages": pages}


def destination_of(d):
    """A destination as the flow prints it: the generated model the answer parsed into, and its members."""
    return {"model": type(d).__name__, **d.to_dict()}


def destination_flow(client, queue_url, access_key_id, secret_access_key, kafka_password):
    answers = []

    def answered(response, model):
        answers.append(response.content.decode())
        return parsed(response, model)

    created = answered(
        create_webhook_subscription.sync_detailed(
            client=client,
            body=CreateWebhookSubscriptionBody(
                events=[CreateWebhookSubscriptionBodyEventsItem.TICKET_CREATED],
                destination=SqsDestinationInput(
                    type_="sqs",
                    queue_url=queue_url,
                    region="eu-west-1",
                    credentials=AwsCredentialsInput(access_key_id=access_key_id, secret_access_key=secret_access_key),
                ),
            ),
        ),
        CreateWebhookSubscriptionResponse201,
    )
    read = answered(get_webhook_subscription.sync_detailed(created.id, client=client), GetWebhookSubscriptionResponse200)
    changed = answered(
        update_webhook_subscription.sync_detailed(
            created.id,
            client=client,
            body=UpdateWebhookSubscriptionBody(
                destination=KafkaDestinationInput(
                    type_="kafka",
                    brokers=["93.184.216.34:9093"],
                    topic="tickets",
                    tls=True,
                    sasl=KafkaDestinationInputSasl.SCRAM_SHA_512,
                    credentials=UserPasswordInput(username="python", password=kafka_password),
                ),
            ),
        ),
        UpdateWebhookSubscriptionResponse200,
    )
    deleted = delete_webhook_subscription.sync_detailed(created.id, client=client)
    gone = get_webhook_subscription.sync_detailed(created.id, client=client)
    return {
        "created": {"id": created.id, "url": created.url, "destination": destination_of(created.destination)},
        "read": {"url": read.url, "destination": destination_of(read.destination)},
        "changed": {"url": changed.url, "destination": destination_of(changed.destination)},
        "deleted": deleted.status_code,
        "gone": gone.status_code,
        "answers": answers,
    }


def audit_flow(client):
    pages, cursor = [], UNSET
    while True:
        page = parsed(
            list_audit_log.sync_detailed(
                client=client, action=ListAuditLogAction.WEBHOOK_SUBSCRIPTION_CREATED, limit=1, cursor=cursor
            ),
            ListAuditLogResponse200,
        )
        pages.append(
            [
                {
                    "id": e.id,
                    "action": e.action,
                    "actor": e.actor.label,
                    "target": e.target.id,
                    "fields": [c.field for c in e.changes],
                }
                for e in page.data
            ]
        )
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    return {"pages": pages}


def job_summary(client, job_id):
    job = parsed(get_job.sync_detailed(job_id, client=client), GetJobResponse200)
    return {
        "id": job.id,
        "status": job.status.value,
        "total": job.total,
        "processed": job.processed,
        "succeeded": job.succeeded,
        "failed": job.failed,
        "items": [
            {
                "index": i.index,
                "operation": i.operation.value,
                "status": i.status.value,
                "ticketId": i.ticket_id,
                "error": i.error.code if i.error else None,
            }
            for i in job.items
        ],
    }


def bulk_flow(client, board_id, field_id, value):
    """Two tickets in one bulk job (the second on a board that does not exist, which fails on its
    own when the job runs), sent twice with one Idempotency-Key, then the job read back."""
    body = BulkTicketsBody.from_dict(
        {
            "items": [
                {
                    "create": {
                        "boardId": board_id,
                        "subject": "Bulk from Python",
                        "requesterEmail": "customer@example.com",
                        "fields": [{"fieldId": field_id, "value": value}],
                    }
                },
                {"create": {"boardId": "brd_not_a_board", "subject": "Nowhere from Python", "requesterEmail": "customer@example.com"}},
            ]
        }
    )
    key = f"python-bulk-{uuid.uuid4()}"
    first_r = bulk_tickets.sync_detailed(client=client, body=body, idempotency_key=key)
    first = parsed(first_r, BulkTicketsResponse202)
    again_r = bulk_tickets.sync_detailed(client=client, body=body, idempotency_key=key)
    again = parsed(again_r, BulkTicketsResponse202)
    return {
        "accepted": {"id": first.id, "status": first.status.value, "total": first.total, "replayed": first_r.headers.get("idempotent-replayed")},
        "repeat": {"id": again.id, "replayed": again_r.headers.get("idempotent-replayed")},
        "job": job_summary(client, first.id),
    }


def admin_flow(client, email, role_id, admin_role_id, person_id):
    board_body = CreateBoardBody.from_dict(
        {
            "name": "Python board",
            "priorities": ["low", "high"],
            "fields": [{"name": "Severity", "type": "select", "required": True, "options": ["minor", "major"]}],
            "states": [{"name": "Open", "category": "open"}, {"name": "Done", "category": "solved", "initial": False}],
        }
    )
    board = parsed(create_board.sync_detailed(client=client, body=board_body), CreateBoardResponse201)
    renamed = parsed(update_board.sync_detailed(board.id, client=client, body=UpdateBoardBody(name="Python board, renamed")), UpdateBoardResponse200)
    archived = parsed(archive_board.sync_detailed(board.id, client=client), ArchiveBoardResponse200)
    opened = parsed(unarchive_board.sync_detailed(board.id, client=client), UnarchiveBoardResponse200)

    invited = parsed(invite_user.sync_detailed(client=client, body=InviteUserBody(email=email, role_id=int(role_id))), InviteUserResponse201)
    refused = invite_user.sync_detailed(client=client, body=InviteUserBody(email="boss-" + email, role_id=int(admin_role_id)))
    revoked = parsed(revoke_invitation.sync_detailed(invited.invitation.id, client=client), RevokeInvitationResponse200)

    person = int(person_id)
    moved = parsed(change_user_role.sync_detailed(person, client=client, body=ChangeUserRoleBody(role_id=int(role_id))), ChangeUserRoleResponse200)
    off = parsed(deactivate_user.sync_detailed(person, client=client), DeactivateUserResponse200)
    on = parsed(reactivate_user.sync_detailed(person, client=client), ReactivateUserResponse200)
    return {
        "board": {
            "id": board.id,
            "fields": [[f.name, f.type_.value, f.required, f.options] for f in board.fields],
            "states": [s.name for s in board.states],
            "renamed": renamed.name,
            "archived": archived.archived_at is not None,
            "opened": opened.archived_at is None,
        },
        "invitation": {"id": invited.invitation.id, "email": invited.invitation.email, "emailed": invited.emailed, "revoked": revoked.id},
        "refused": {"status": refused.status_code, "code": refused.parsed.code.value},
        "person": {"roleId": moved.role_id, "deactivated": off.deactivated_at is not None, "reactivated": on.deactivated_at is None},
    }


if __name__ == "__main__":
    client = AuthenticatedClient(
        base_url=os.environ["TICKETING_API_URL"],
        token=os.environ["TICKETING_API_KEY"],
        raise_on_unexpected_status=True,
    )
    with client:
        if sys.argv[1:2] == ["main"]:
            result = main_flow(client)
        elif sys.argv[1:2] == ["deliveries"] and len(sys.argv) == 3:
            result = deliveries_flow(client, sys.argv[2])
        elif sys.argv[1:] == ["audit"]:
            result = audit_flow(client)
        elif sys.argv[1:2] == ["bulk"] and len(sys.argv) == 5:
            result = bulk_flow(client, *sys.argv[2:5])
        elif sys.argv[1:2] == ["destination"] and len(sys.argv) == 6:
            result = destination_flow(client, *sys.argv[2:6])
        elif sys.argv[1:2] == ["admin"] and len(sys.argv) == 6:
            result = admin_flow(client, *sys.argv[2:6])
        elif sys.argv[1:2] == ["job"] and len(sys.argv) == 3:
            result = {"job": job_summary(client, sys.argv[2])}
        else:
            raise SystemExit(__doc__)
    print(json.dumps(result))
