// A short integrator's flow through the Go client that oapi-codegen generated from the served
// document (package ticketing, generated beside this file by test/clients/clients.test.ts). Every
// answer must parse into the generated type of its status, with no member the type lacks: the flow
// prints fields read from those types, as one JSON object, and the test checks them.
//
//	go run . main               GET /me, boards, a ticket sent twice with one Idempotency-Key,
//	                            a refused ticket, paging, a subscription
//	go run . deliveries <id>    the subscription's delivery log, page by page
//	go run . audit              the audit log's subscription creations, page by page
//	go run . bulk <board id> <field id> <value>
//	                            a bulk job of two tickets sent twice with one Idempotency-Key, then polled
//	go run . job <job id>       a bulk job as it is now
//	go run . destination <queue url> <access key id> <secret access key> <kafka password>
//	                            a subscription to an SQS queue, read back, changed to a Kafka
//	                            topic, deleted; the answers' raw bodies too
//	go run . admin <email> <role id> <admin role id> <person id>
//	                            the administration writes: a board made, renamed, archived and
//	                            opened again; an invitation sent and revoked, one to an admin role
//	                            refused; a person's role changed, deactivated and reactivated
//
// TICKETING_API_URL (…/public/v1) and TICKETING_API_KEY come from the environment.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"time"

	"ticketing.example/clientflow/ticketing"
)

var ctx = context.Background()

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

// parsed returns the generated type's value for the expected status, after decoding the body
// again into that type with unknown members refused: the document must name every member sent.
func parsed[T any](value *T, body []byte, status int, err error) *T {
	if err != nil {
		fail("request failed: %v", err)
	}
	if value == nil {
		fail("unexpected answer (HTTP %d): %.500s", status, body)
	}
	strict := json.NewDecoder(bytes.NewReader(body))
	strict.DisallowUnknownFields()
	var again T
	if err := strict.Decode(&again); err != nil {
		fail("the answer does not fit its generated type: %v: %.500s", err, body)
	}
	return value
}

func status(r interface{ StatusCode() int }) int { return r.StatusCode() }

func mainFlow(c *ticketing.ClientWithResponses) map[string]any {
	meR, err := c.GetMeWithResponse(ctx)
	me := parsed(meR.JSON200, meR.Body, status(meR), err)
	limit := 50
	boardsR, err := c.ListBoardsWithResponse(ctx, &ticketing.ListBoardsParams{Limit: &limit})
	boards := parsed(boardsR.JSON200, boardsR.Body, status(boardsR), err)

	var boardID, productID, option string
	boardList := []map[string]any{}
	for _, b := range boards.Data {
		fields := []string{}
		for _, f := range b.Fields {
			fields = append(fields, f.Name)
			if b.Name == "Support" && f.Name == "Product" {
				boardID, productID, option = b.Id, f.Id, f.Options[0]
			}
		}
		boardList = append(boardList, map[string]any{"id": b.Id, "name": b.Name, "fields": fields})
	}
	if boardID == "" {
		fail("no Support board with a Product field")
	}

	newTicket := func(subject string) ticketing.CreateTicketJSONRequestBody {
		body := ticketing.CreateTicketJSONRequestBody{BoardId: boardID, Subject: subject, RequesterEmail: "customer@example.com"}
		body.Fields = &[]struct {
			FieldId string      `json:"fieldId"`
			Value   interface{} `json:"value"`
		}{{FieldId: productID, Value: option}}
		return body
	}
	key := fmt.Sprintf("go-%d", time.Now().UnixNano())
	createOnce := func() (*ticketing.Ticket, *ticketing.CreateTicketResponse) {
		r, err := c.CreateTicketWithResponse(ctx, &ticketing.CreateTicketParams{IdempotencyKey: &key}, newTicket("From Go"))
		return parsed(r.JSON201, r.Body, status(r), err), r
	}
	ticket, first := createOnce()
	repeat, again := createOnce()

	refusedR, err := c.CreateTicketWithResponse(ctx, nil, ticketing.CreateTicketJSONRequestBody{BoardId: "brd_none", Subject: "Nowhere", RequesterEmail: "customer@example.com"})
	problem := parsed(refusedR.ApplicationproblemJSON422, refusedR.Body, status(refusedR), err)
	paths := []string{}
	if problem.Errors != nil {
		for _, e := range *problem.Errors {
			paths = append(paths, e.Path)
		}
	}

	created := []int{ticket.Id}
	for _, subject := range []string{"Page 1", "Page 2"} {
		r, err := c.CreateTicketWithResponse(ctx, nil, newTicket(subject))
		created = append(created, parsed(r.JSON201, r.Body, status(r), err).Id)
	}

	pages := [][]int{}
	pageSize := 2
	params := &ticketing.ListTicketsParams{Limit: &pageSize}
	for {
		r, err := c.ListTicketsWithResponse(ctx, params)
		page := parsed(r.JSON200, r.Body, status(r), err)
		ids := []int{}
		for _, t := range page.Data {
			ids = append(ids, t.Id)
		}
		pages = append(pages, ids)
		if page.NextCursor == nil {
			break
		}
		params.Cursor = page.NextCursor
	}

	description := "From Go"
	thin := ticketing.CreateWebhookSubscriptionJSONBodyPayload("thin")
	subR, err := c.CreateWebhookSubscriptionWithResponse(ctx, ticketing.CreateWebhookSubscriptionJSONRequestBody{
		Url:         "https://93.184.216.34/go",
		Events:      []ticketing.CreateWebhookSubscriptionJSONBodyEvents{"ticket.created"},
		Description: &description,
		// The request's anonymous struct, as oapi-codegen declares it (its tag is part of the type).
		RetrySchedule: &struct {
			DelaysSeconds []int `json:"delaysSeconds"`
		}{DelaysSeconds: []int{60, 300}},
		Payload:     &thin,
	})
	sub := parsed(subR.JSON201, subR.Body, status(subR), err)

	fields := []map[string]any{}
	for _, f := range ticket.Fields {
		fields = append(fields, map[string]any{"fieldId": f.FieldId, "value": f.Value})
	}
	return map[string]any{
		"me":     map[string]any{"workspace": me.Workspace.Name, "key": me.ApiKey.Name, "scopes": me.ApiKey.Scopes},
		"boards": boardList,
		"ticket": map[string]any{
			"id": ticket.Id, "subject": ticket.Subject, "boardId": ticket.BoardId, "channel": string(ticket.Channel),
			"version": ticket.Version, "fields": fields, "createdAt": ticket.CreatedAt.Format(time.RFC3339Nano),
			"replayed": first.Headers201.IdempotentReplayed,
		},
		"repeat":   map[string]any{"id": repeat.Id, "replayed": again.Headers201.IdempotentReplayed},
		"refused":  map[string]any{"status": problem.Status, "code": string(problem.Code), "paths": paths},
		"created":  created,
		"pages":    pages,
		"subscription": map[string]any{
			"id": sub.Id, "url": sub.Url, "events": sub.Events, "condition": string(sub.Condition), "payload": string(sub.Payload),
			"secret": sub.Secret, "createdAt": sub.CreatedAt.Format(time.RFC3339Nano),
			"retrySchedule": map[string]any{
				"delaysSeconds": sub.RetrySchedule.DelaysSeconds, "maxAttempts": sub.RetrySchedule.MaxAttempts, "custom": sub.RetrySchedule.Custom,
			},
		},
	}
}

func deliveriesFlow(c *ticketing.ClientWithResponses, subscriptionID string) map[string]any {
	pages := [][]map[string]any{}
	pageSize := 1
	params := &ticketing.ListWebhookDeliveriesParams{Limit: &pageSize}
	for {
		r, err := c.ListWebhookDeliveriesWithResponse(ctx, subscriptionID, params)
		page := parsed(r.JSON200, r.Body, status(r), err)
		entries := []map[string]any{}
		for _, e := range page.Data {
			entry := map[string]any{
				"id": e.Id, "deliveryId": e.DeliveryId, "eventType": e.EventType, "attempt": e.Attempt,
				"status": string(e.Status), "httpStatus": e.HttpStatus, "attemptedAt": nil, "waited": nil,
				"maxAttempts": e.MaxAttempts,
			}
			if e.AttemptedAt != nil {
				entry["attemptedAt"] = e.AttemptedAt.Format(time.RFC3339Nano)
			}
			if e.Waited != nil {
				entry["waited"] = map[string]any{"reason": string(e.Waited.Reason), "ms": e.Waited.Ms}
			}
			entries = append(entries, entry)
		}
		pages = append(pages, entries)
		if page.NextCursor == nil {
			break
		}
		params.Cursor = page.NextCursor
	}
	return map[string]any{"pages": pages}
}

func auditFlow(c *ticketing.ClientWithResponses) map[string]any {
	pages := [][]map[string]any{}
	pageSize := 1
	action := ticketing.ListAuditLogParamsAction("webhook_subscription.created")
	params := &ticketing.ListAuditLogParams{Limit: &pageSize, Action: &action}
	for {
		r, err := c.ListAuditLogWithResponse(ctx, params)
		page := parsed(r.JSON200, r.Body, status(r), err)
		entries := []map[string]any{}
		for _, e := range page.Data {
			fields := []string{}
			for _, change := range e.Changes {
				fields = append(fields, change.Field)
			}
			entries = append(entries, map[string]any{"id": e.Id, "action": e.Action, "actor": e.Actor.Label, "target": e.Target.Id, "fields": fields})
		}
		pages = append(pages, entries)
		if page.NextCursor == nil {
			break
		}
		params.Cursor = page.NextCursor
	}
	return map[string]any{"pages": pages}
}

// jobSummary reads a bulk job's answer (GET /jobs/{id}) from its generated type.
func jobSummary(r *ticketing.GetJobResponse, err error) map[string]any {
	job := parsed(r.JSON200, r.Body, status(r), err)
	items := []map[string]any{}
	for _, i := range job.Items {
		item := map[string]any{"index": i.Index, "operation": string(i.Operation), "status": string(i.Status), "ticketId": i.TicketId, "error": nil}
		if i.Error != nil {
			item["error"] = i.Error.Code
		}
		items = append(items, item)
	}
	return map[string]any{
		"id": job.Id, "status": string(job.Status), "total": job.Total, "processed": job.Processed,
		"succeeded": job.Succeeded, "failed": job.Failed, "items": items,
	}
}

// bulkFlow sends a bulk job of two tickets (the second on a board that does not exist, which
// fails on its own when the job runs) twice with one Idempotency-Key, then reads the job.
func bulkFlow(c *ticketing.ClientWithResponses, boardID, fieldID, value string) map[string]any {
	var body ticketing.BulkTicketsJSONRequestBody
	raw := fmt.Sprintf(`{"items": [
		{"create": {"boardId": %q, "subject": "Bulk from Go", "requesterEmail": "customer@example.com", "fields": [{"fieldId": %q, "value": %q}]}},
		{"create": {"boardId": "brd_not_a_board", "subject": "Nowhere from Go", "requesterEmail": "customer@example.com"}}
	]}`, boardID, fieldID, value)
	if err := json.Unmarshal([]byte(raw), &body); err != nil {
		fail("bulk body: %v", err)
	}
	key := fmt.Sprintf("go-bulk-%d", time.Now().UnixNano())
	params := &ticketing.BulkTicketsParams{IdempotencyKey: &key}
	firstR, err := c.BulkTicketsWithResponse(ctx, params, body)
	first := parsed(firstR.JSON202, firstR.Body, status(firstR), err)
	againR, err := c.BulkTicketsWithResponse(ctx, params, body)
	again := parsed(againR.JSON202, againR.Body, status(againR), err)
	return map[string]any{
		"accepted": map[string]any{"id": first.Id, "status": string(first.Status), "total": first.Total, "replayed": firstR.Headers202.IdempotentReplayed},
		"repeat":   map[string]any{"id": again.Id, "replayed": againR.Headers202.IdempotentReplayed},
		"job":      jobSummary(c.GetJobWithResponse(ctx, first.Id)),
	}
}

func adminFlow(c *ticketing.ClientWithResponses, email string, roleID, adminRoleID, personID int) map[string]any {
	var boardBody ticketing.CreateBoardJSONRequestBody
	raw := `{"name": "Go board", "priorities": ["low", "high"],
		"fields": [{"name": "Severity", "type": "select", "required": true, "options": ["minor", "major"]}],
		"states": [{"name": "Open", "category": "open"}, {"name": "Done", "category": "solved", "initial": false}]}`
	if err := json.Unmarshal([]byte(raw), &boardBody); err != nil {
		fail("board body: %v", err)
	}
	boardR, err := c.CreateBoardWithResponse(ctx, boardBody)
	board := parsed(boardR.JSON201, boardR.Body, status(boardR), err)
	name := "Go board, renamed"
	renamedR, err := c.UpdateBoardWithResponse(ctx, board.Id, ticketing.UpdateBoardJSONRequestBody{Name: &name})
	renamed := parsed(renamedR.JSON200, renamedR.Body, status(renamedR), err)
	archivedR, err := c.ArchiveBoardWithResponse(ctx, board.Id)
	archived := parsed(archivedR.JSON200, archivedR.Body, status(archivedR), err)
	openedR, err := c.UnarchiveBoardWithResponse(ctx, board.Id)
	opened := parsed(openedR.JSON200, openedR.Body, status(openedR), err)
	fields := [][]any{}
	for _, f := range board.Fields {
		fields = append(fields, []any{f.Name, string(f.Type), f.Required, f.Options})
	}
	states := []string{}
	for _, st := range board.States {
		states = append(states, st.Name)
	}

	invitation := func(address string, role int) ticketing.InviteUserJSONRequestBody {
		var body ticketing.InviteUserJSONRequestBody
		if err := json.Unmarshal([]byte(fmt.Sprintf(`{"email": %q, "roleId": %d}`, address, role)), &body); err != nil {
			fail("invitation body: %v", err)
		}
		return body
	}
	invitedR, err := c.InviteUserWithResponse(ctx, invitation(email, roleID))
	invited := parsed(invitedR.JSON201, invitedR.Body, status(invitedR), err)
	refusedR, err := c.InviteUserWithResponse(ctx, invitation("boss-"+email, adminRoleID))
	refused := parsed(refusedR.ApplicationproblemJSON403, refusedR.Body, status(refusedR), err)
	revokedR, err := c.RevokeInvitationWithResponse(ctx, invited.Invitation.Id)
	revoked := parsed(revokedR.JSON200, revokedR.Body, status(revokedR), err)

	movedR, err := c.ChangeUserRoleWithResponse(ctx, personID, ticketing.ChangeUserRoleJSONRequestBody{RoleId: roleID})
	moved := parsed(movedR.JSON200, movedR.Body, status(movedR), err)
	offR, err := c.DeactivateUserWithResponse(ctx, personID)
	off := parsed(offR.JSON200, offR.Body, status(offR), err)
	onR, err := c.ReactivateUserWithResponse(ctx, personID)
	on := parsed(onR.JSON200, onR.Body, status(onR), err)
	return map[string]any{
		"board": map[string]any{
			"id": board.Id, "fields": fields, "states": states, "renamed": renamed.Name,
			"archived": archived.ArchivedAt != nil, "opened": opened.ArchivedAt == nil,
		},
		"invitation": map[string]any{"id": invited.Invitation.Id, "email": invited.Invitation.Email, "emailed": invited.Emailed, "revoked": revoked.Id},
		"refused":    map[string]any{"status": status(refusedR), "code": string(refused.Code)},
		"person":     map[string]any{"roleId": moved.RoleId, "deactivated": off.DeactivatedAt != nil, "reactivated": on.DeactivatedAt == nil},
	}
}

// destinationOf is a destination as the flow prints it: the generated type its discriminator picks, and its members.
func destinationOf(d interface{ ValueByDiscriminator() (interface{}, error) }) map[string]any {
	v, err := d.ValueByDiscriminator()
	if err != nil {
		fail("destination: %v", err)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		fail("destination: %v", err)
	}
	out := map[string]any{}
	if err := json.Unmarshal(raw, &out); err != nil {
		fail("destination: %v", err)
	}
	out["model"] = fmt.Sprintf("%T", v)
	return out
}

func destinationFlow(c *ticketing.ClientWithResponses, queueURL, accessKeyID, secretAccessKey, kafkaPassword string) map[string]any {
	answers := []string{}
	region := "eu-west-1"
	var sqs ticketing.CreateWebhookSubscriptionJSONBody_Destination
	if err := sqs.FromSqsDestinationInput(ticketing.SqsDestinationInput{
		Type:        "sqs",
		QueueUrl:    queueURL,
		Region:      &region,
		Credentials: ticketing.AwsCredentialsInput{AccessKeyId: accessKeyID, SecretAccessKey: secretAccessKey},
	}); err != nil {
		fail("destination: %v", err)
	}
	createdR, err := c.CreateWebhookSubscriptionWithResponse(ctx, ticketing.CreateWebhookSubscriptionJSONRequestBody{
		Events:      []ticketing.CreateWebhookSubscriptionJSONBodyEvents{"ticket.created"},
		Destination: &sqs,
	})
	created := parsed(createdR.JSON201, createdR.Body, status(createdR), err)
	answers = append(answers, string(createdR.Body))

	readR, err := c.GetWebhookSubscriptionWithResponse(ctx, created.Id)
	read := parsed(readR.JSON200, readR.Body, status(readR), err)
	answers = append(answers, string(readR.Body))

	tls := true
	sasl := ticketing.ScramSha512
	var kafka ticketing.UpdateWebhookSubscriptionJSONBody_Destination
	if err := kafka.FromKafkaDestinationInput(ticketing.KafkaDestinationInput{
		Type:        "kafka",
		Brokers:     []string{"93.184.216.34:9093"},
		Topic:       "tickets",
		Tls:         &tls,
		Sasl:        &sasl,
		Credentials: &ticketing.UserPasswordInput{Username: "go", Password: kafkaPassword},
	}); err != nil {
		fail("destination: %v", err)
	}
	changedR, err := c.UpdateWebhookSubscriptionWithResponse(ctx, created.Id, ticketing.UpdateWebhookSubscriptionJSONRequestBody{Destination: &kafka})
	changed := parsed(changedR.JSON200, changedR.Body, status(changedR), err)
	answers = append(answers, string(changedR.Body))

	deletedR, err := c.DeleteWebhookSubscriptionWithResponse(ctx, created.Id)
	if err != nil {
		fail("delete: %v", err)
	}
	goneR, err := c.GetWebhookSubscriptionWithResponse(ctx, created.Id)
	if err != nil {
		fail("read after delete: %v", err)
	}
	return map[string]any{
		"created": map[string]any{"id": created.Id, "url": created.Url, "destination": destinationOf(created.Destination)},
		"read":    map[string]any{"url": read.Url, "destination": destinationOf(read.Destination)},
		"changed": map[string]any{"url": changed.Url, "destination": destinationOf(changed.Destination)},
		"deleted": status(deletedR),
		"gone":    status(goneR),
		"answers": answers,
	}
}

func atoi(s string) int {
	var n int
	if _, err := fmt.Sscanf(s, "%d", &n); err != nil {
		fail("not a number: %s", s)
	}
	return n
}

func main() {
	bearer := ticketing.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+os.Getenv("TICKETING_API_KEY"))
		return nil
	})
	c, err := ticketing.NewClientWithResponses(os.Getenv("TICKETING_API_URL"), bearer)
	if err != nil {
		fail("client: %v", err)
	}
	var result map[string]any
	switch {
	case len(os.Args) == 2 && os.Args[1] == "main":
		result = mainFlow(c)
	case len(os.Args) == 3 && os.Args[1] == "deliveries":
		result = deliveriesFlow(c, os.Args[2])
	case len(os.Args) == 2 && os.Args[1] == "audit":
		result = auditFlow(c)
	case len(os.Args) == 5 && os.Args[1] == "bulk":
		result = bulkFlow(c, os.Args[2], os.Args[3], os.Args[4])
	case len(os.Args) == 6 && os.Args[1] == "destination":
		result = destinationFlow(c, os.Args[2], os.Args[3], os.Args[4], os.Args[5])
	case len(os.Args) == 6 && os.Args[1] == "admin":
		result = adminFlow(c, os.Args[2], atoi(os.Args[3]), atoi(os.Args[4]), atoi(os.Args[5]))
	case len(os.Args) == 3 && os.Args[1] == "job":
		result = map[string]any{"job": jobSummary(c.GetJobWithResponse(ctx, os.Args[2]))}
	default:
		fail("usage: flow main | flow deliveries <subscription id> | flow audit | flow bulk <board id> <field id> <value> | flow job <job id> | flow destination <queue url> <access key id> <secret access key> <kafka password> | flow admin <email> <role id> <admin role id> <person id>")
	}
	out, _ := json.Marshal(result)
	fmt.Println(string(out))
}
