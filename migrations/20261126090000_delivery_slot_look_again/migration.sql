-- Hand-written (functions are outside the schema engine's diff). A delivery waiting for a slot
-- of its subscription's in-flight bound is told when to look again should no release hand it a
-- slot (its holder died): the head of the queue soon, those further back in proportion to their
-- place. Before, every waiting delivery looked again every 45 s: a backlog of thousands of waiting
-- deliveries then polled in step, filling the task queue and starving the hand-overs.
DROP FUNCTION "acquire_delivery_slot"(text, text, bigint, text, timestamp(3), integer, integer, integer, boolean);

CREATE FUNCTION "acquire_delivery_slot"(
  p_delivery text, p_subscription text, p_seq bigint, p_workflow text, p_now timestamp(3),
  p_lease_ms integer, p_wait_lease_ms integer, p_limit integer, p_rate_reserved boolean,
  p_look_again_ms integer
) RETURNS TABLE("outcome" text, "until" timestamp(3)) LANGUAGE plpgsql AS $$
DECLARE
  s record;
  bound integer;
  mine boolean;
  held integer;
  older integer;
  tat timestamp(3);
BEGIN
  SELECT "maxInFlight", "inFlightBound", "ratePerSecond", "rateNextAt", "retryAfterUntil" INTO s
    FROM "WebhookSubscription" WHERE "id" = p_subscription FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'acquired'::text, NULL::timestamp(3);
    RETURN;
  END IF;
  IF s."retryAfterUntil" IS NOT NULL AND s."retryAfterUntil" > p_now THEN
    DELETE FROM "DeliverySlot" WHERE "deliveryId" = p_delivery AND "state" <> 'held';
    RETURN QUERY SELECT 'retry_after'::text, s."retryAfterUntil";
    RETURN;
  END IF;
  bound := LEAST(p_limit, s."maxInFlight", COALESCE(s."inFlightBound", s."maxInFlight"));
  -- A slot handed over by a release (or still held by a retry of this attempt) is its own.
  SELECT EXISTS (SELECT 1 FROM "DeliverySlot" WHERE "deliveryId" = p_delivery AND "state" = 'held' AND "leaseUntil" > p_now) INTO mine;
  IF NOT mine THEN
    SELECT count(*) INTO held FROM "DeliverySlot"
     WHERE "subscriptionId" = p_subscription AND "state" = 'held' AND "leaseUntil" > p_now;
    SELECT count(*) INTO older FROM "DeliverySlot"
     WHERE "subscriptionId" = p_subscription AND "state" IN ('waiting', 'rate') AND "leaseUntil" > p_now AND "seq" < p_seq;
    IF held >= bound OR older > 0 THEN
      INSERT INTO "DeliverySlot" ("deliveryId", "subscriptionId", "seq", "workflowId", "state", "leaseUntil", "since")
      VALUES (p_delivery, p_subscription, p_seq, p_workflow, 'waiting', p_now + make_interval(secs => p_wait_lease_ms / 1000.0), p_now)
      ON CONFLICT ("deliveryId") DO UPDATE SET "state" = 'waiting', "leaseUntil" = EXCLUDED."leaseUntil";
      -- When to look again should the hand-over not come: the head of the queue soon, those
      -- further back later in proportion (a bound's worth of waiters per step), at most half
      -- the lease of their place, so that thousands of waiters do not poll in step.
      RETURN QUERY SELECT 'in_flight_bound'::text,
        p_now + make_interval(secs => LEAST(p_wait_lease_ms / 2, p_look_again_ms::bigint * (1 + older / GREATEST(bound, 1))) / 1000.0);
      RETURN;
    END IF;
  END IF;
  -- The rate (GCRA): each start reserves the next free start time, 1/rate after the last.
  IF s."ratePerSecond" IS NOT NULL AND NOT p_rate_reserved THEN
    tat := GREATEST(COALESCE(s."rateNextAt", p_now), p_now);
    UPDATE "WebhookSubscription" SET "rateNextAt" = tat + make_interval(secs => 1.0 / s."ratePerSecond") WHERE "id" = p_subscription;
    IF tat > p_now THEN
      -- It keeps its place in event order (state `rate`: no slot is handed to it), holding no slot meanwhile.
      INSERT INTO "DeliverySlot" ("deliveryId", "subscriptionId", "seq", "workflowId", "state", "leaseUntil", "since")
      VALUES (p_delivery, p_subscription, p_seq, p_workflow, 'rate', tat + make_interval(secs => p_wait_lease_ms / 1000.0), p_now)
      ON CONFLICT ("deliveryId") DO UPDATE SET "state" = 'rate', "leaseUntil" = EXCLUDED."leaseUntil";
      RETURN QUERY SELECT 'rate'::text, tat;
      RETURN;
    END IF;
  END IF;
  INSERT INTO "DeliverySlot" ("deliveryId", "subscriptionId", "seq", "workflowId", "state", "leaseUntil", "since")
  VALUES (p_delivery, p_subscription, p_seq, p_workflow, 'held', p_now + make_interval(secs => p_lease_ms / 1000.0), p_now)
  ON CONFLICT ("deliveryId") DO UPDATE SET "state" = 'held', "leaseUntil" = EXCLUDED."leaseUntil";
  RETURN QUERY SELECT 'acquired'::text, NULL::timestamp(3);
END
$$;
